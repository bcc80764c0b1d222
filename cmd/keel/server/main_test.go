package server

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/openkeel/keel/internal/testenv"
	"github.com/openkeel/keel/reconciler"
	"github.com/openkeel/keel/restapi/auth"
)

// One real management cluster for the package; each test starts its own
// keel on it, with its own data folder.
var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// startKeel starts keel on the shared management cluster, and returns it
// with a gophercloud client at microversion mv. Nothing runs Cluster API
// there: keel applies, clusters stay CREATE_IN_PROGRESS (tests whose
// clusters must progress use startRealKeelWith).
func startKeel(t *testing.T, mv string) (*Instance, *gophercloud.ServiceClient) {
	t.Helper()
	return startKeelWith(t, mv, nil)
}

// startKeelWith starts keel on the shared management cluster with the
// tests' defaults (noauth member of project p-TEST, fast reconciler)
// changed by edit, and stops it when the test ends.
func startKeelWith(t *testing.T, mv string, edit func(*Options)) (*Instance, *gophercloud.ServiceClient) {
	t.Helper()
	o := Options{
		DataDir:    t.TempDir(),
		Listen:     "127.0.0.1:0",
		Config:     env.Config,
		Auth:       auth.NoAuth{DefaultProject: "p-" + t.Name(), Admin: false},
		Reconciler: reconciler.Options{Poll: 200 * time.Millisecond, RetryMin: 200 * time.Millisecond},
		Log:        slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Out:        os.Stderr,
	}
	if edit != nil {
		edit(&o)
	}
	in, err := Start(context.Background(), o)
	if err != nil {
		if in != nil {
			_ = in.Stop()
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Stop() })
	sc := &gophercloud.ServiceClient{
		ProviderClient: &gophercloud.ProviderClient{},
		Endpoint:       in.URL + "/v1/",
		Type:           "container-infra",
		Microversion:   mv,
	}
	return in, sc
}
