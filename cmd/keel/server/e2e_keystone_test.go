package server

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"

	"github.com/openkeel/keel/internal/testing/keystonetest"
	"github.com/openkeel/keel/reconciler"
	"github.com/openkeel/keel/restapi/auth"
)

// keel in Keystone mode, used as a cloud user uses it: gophercloud logs in
// to Keystone with a password, finds keel as container-infra in the
// catalog, and keel validates the token with its service user.
func TestKeystoneEndToEnd(t *testing.T) {
	ks := keystonetest.New(t)
	alice := ks.AddUser(keystonetest.User{ID: "alice-id", Name: "alice", Password: "alice-pw",
		ProjectID: "demo-id", ProjectName: "demo", Roles: []string{"member"}})
	in, err := Start(context.Background(), Options{
		DataDir: t.TempDir(),
		Listen:  "127.0.0.1:0",
		Config:  env.Config,
		Auth: &auth.Keystone{AuthURL: ks.AuthURL, Service: gophercloud.AuthOptions{
			Username: keystonetest.ServiceUser, Password: keystonetest.ServicePass, DomainName: keystonetest.DomainName,
			Scope: &gophercloud.AuthScope{ProjectName: keystonetest.ServiceProject, DomainName: keystonetest.DomainName},
		}},
		AuthURL:    ks.AuthURL,
		Reconciler: reconciler.Options{Poll: 200 * time.Millisecond, RetryMin: 200 * time.Millisecond},
		Log:        slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Out:        os.Stderr,
	})
	if err != nil {
		if in != nil {
			_ = in.Stop()
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Stop() })
	ks.AddEndpoint("container-infra", "magnum", in.URL+"/v1")

	// Without a token: keystonemiddleware's 401 and challenge.
	resp, err := http.Get(in.URL + "/v1/clusters")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != `Keystone uri="`+ks.AuthURL+`"` {
		t.Fatalf("no token: %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	ctx := context.Background()
	// The unversioned URL, as in clouds.yaml: gophercloud discovers v3.
	provider, err := openstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{
		IdentityEndpoint: ks.URL, Username: alice.Name, Password: alice.Password, DomainName: keystonetest.DomainName,
		Scope: &gophercloud.AuthScope{ProjectName: alice.ProjectName, DomainName: keystonetest.DomainName},
	})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := openstack.NewContainerInfraV1(provider, gophercloud.EndpointOpts{Region: keystonetest.Region})
	if err != nil {
		t.Fatal(err)
	}
	sc.Microversion = "1.10"
	tmpl, err := clustertemplates.Create(ctx, sc, clustertemplates.CreateOpts{
		Name: "k8s", COE: "kubernetes", ImageID: "ubuntu-2204-kube-v1.33", FlavorID: "m1.medium",
		MasterFlavorID: "m1.large", ExternalNetworkID: "public", Labels: map[string]string{"kube_tag": "v1.33.4"},
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	if tmpl.ProjectID != alice.ProjectID || tmpl.UserID != alice.ID {
		t.Fatalf("template owned by %s/%s, want %s/%s", tmpl.ProjectID, tmpl.UserID, alice.ProjectID, alice.ID)
	}
	pages, err := clusters.List(sc, nil).AllPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	list, err := clusters.ExtractClusters(pages)
	if err != nil || len(list) != 0 {
		t.Fatalf("clusters: %v %v", list, err)
	}
	if n := ks.Validations(); n != 1 {
		t.Fatalf("keel validated alice's token %d times for two requests, want 1", n)
	}

	// The token's project is alice's, and the commit says so.
	h, err := in.Store.Head()
	if err != nil {
		t.Fatal(err)
	}
	c, err := in.Store.Repo().CommitObject(h)
	if err != nil {
		t.Fatal(err)
	}
	if c.Author.Name != alice.Name {
		t.Fatalf("commit author %q, want %q", c.Author.Name, alice.Name)
	}
}
