package reconciler

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
)

// fakeConsumers stands for the workload cluster: its consumers use the
// current credential once ready is set.
type fakeConsumers struct {
	mu    sync.Mutex
	ready bool
	asked []string // "<stack>/<id>@<generation>"
}

func (f *fakeConsumers) Pending(_ context.Context, stackID, id string, gen int64) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, fmt.Sprintf("%s/%s@%d", stackID, id, gen))
	if !f.ready {
		return "waiting for the test's consumers", nil
	}
	return "", nil
}

func (f *fakeConsumers) setReady() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ready = true
}

// After a rotation the reconciler deletes the retired credentials only once
// the workload cluster's consumers use the current one (asked about the
// current credential of the cluster at its credential generation),
// reporting until then why the
// rotation waits; each retired credential is deleted once, the current one
// never.
func TestRotationRetiresCredentialsOnceConsumersUseTheNewOne(t *testing.T) {
	creds := &fakeCredentials{}
	f, st, _, _ := credentialFixtureRetiring(t, creds, nil, "alice-id/ac-0,bob-id/ac-b")
	consumers := &fakeConsumers{}
	f.rec.o.Consumers = consumers
	ctx := context.Background()
	uuid := st.Cluster.UUID
	// What the rotation's commit records beside the retired list.
	facts, err := intent.MarshalFacts(intent.Facts{CredentialGeneration: 1})
	if err != nil {
		t.Fatal(err)
	}
	f.commit("rotate", gitstore.Change{Path: path.Join(st.Dir, intent.FactsFile), Data: facts})

	f.rec.SyncAll(ctx)
	if calls := creds.recorded(); len(calls) != 0 {
		t.Fatalf("deleted %+v while the consumers use the old credential", calls)
	}
	if why := f.sink.retiringReason(uuid); !strings.Contains(why, "waiting for the test's consumers") {
		t.Fatalf("reported %q while waiting", why)
	}
	consumers.setReady()
	f.eventually("the retired credentials to be deleted", func() bool {
		f.rec.Sync(ctx)
		return len(creds.recorded()) == 2
	})
	got := creds.recorded()
	if got[0].userID+"/"+got[0].id != "alice-id/ac-0" || got[1].userID+"/"+got[1].id != "bob-id/ac-b" {
		t.Errorf("deleted %+v, want alice-id/ac-0 then bob-id/ac-b", got)
	}
	if why := f.sink.retiringReason(uuid); why != "" {
		t.Errorf("still reported %q", why)
	}
	f.rec.SyncAll(ctx)
	if n := len(creds.recorded()); n != 2 {
		t.Errorf("%d deletions after another pass, want 2", n)
	}
	consumers.mu.Lock()
	defer consumers.mu.Unlock()
	for _, a := range consumers.asked {
		if a != st.Cluster.StackID+"/ac-1@1" {
			t.Errorf("asked about %s, want the current credential at generation 1, %s/ac-1@1", a, st.Cluster.StackID)
		}
	}
}
