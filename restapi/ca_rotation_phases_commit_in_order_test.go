package restapi

import (
	"context"
	"strings"
	"testing"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/repo"
)

// newKeyedAPI is a test API with an age identity, as keel serve has one.
func newKeyedAPI(t *testing.T) *testAPI {
	t.Helper()
	kr, _, err := secrets.GenerateKeyring()
	if err != nil {
		t.Fatal(err)
	}
	return newTestAPI(t, func(c *Config) {
		c.Secrets = &repo.Secrets{Keyring: kr, Cloud: intent.CloudConfig{AuthURL: "https://keystone.example.org/v3"}}
	})
}

// PATCH /v1/certificates commits the trust phase of a CA rotation; each
// next phase is committed by keel (AdvanceCARotations) only once the last
// one rolled out, never twice; meanwhile GET /v1/certificates returns the
// CAs clients must trust, and the cluster's other changes are refused.
func TestCARotationPhasesCommitInOrder(t *testing.T) {
	ctx := context.Background()
	a := newKeyedAPI(t)
	tm := a.template(member, "t1", nil)
	id := a.cluster(member, "rot", tm.UUID, 1)
	a.complete(id)
	oldCA := a.caPEM(id)

	r := a.do(member, "1.5", "PATCH", "/v1/certificates/"+id, nil)
	if r.status != 202 || r.json(t)["uuid"] != id {
		t.Fatalf("PATCH: %d %s", r.status, r.body)
	}
	a.expectPhaseCommit("phase 1 of 3 (trust)", "u1")
	if got := a.caPEM(id); strings.Count(got, "BEGIN CERTIFICATE") != 2 || !strings.HasPrefix(got, oldCA) {
		t.Fatalf("GET /v1/certificates in the trust phase: want the old CA then the new one, got\n%s", got)
	}
	a.expectNoCommit(func() {
		expectError(t, a.do(member, "1.5", "PATCH", "/v1/certificates/"+id, nil), 400, "is rotating its certificate authority (phase 1 of 3, trust)")
		expectError(t, a.do(member, "1.10", "POST", "/v1/clusters/"+id+"/actions/resize", map[string]any{"node_count": 2}), 400, "is rotating its certificate authority")
		// Not rolled out yet: nothing to advance.
		if err := a.api.AdvanceCARotations(ctx); err != nil {
			t.Fatal(err)
		}
	})

	a.complete(id)
	if err := a.api.AdvanceCARotations(ctx); err != nil {
		t.Fatal(err)
	}
	a.expectPhaseCommit("phase 2 of 3 (sign)", "keel")
	if got := a.caPEM(id); strings.Count(got, "BEGIN CERTIFICATE") != 2 || !strings.HasSuffix(got, oldCA) {
		t.Fatalf("GET /v1/certificates in the sign phase: want the new CA then the old one, got\n%s", got)
	}

	a.complete(id)
	if err := a.api.AdvanceCARotations(ctx); err != nil {
		t.Fatal(err)
	}
	a.expectPhaseCommit("phase 3 of 3 (finish)", "keel")
	a.complete(id)
	a.expectNoCommit(func() {
		if err := a.api.AdvanceCARotations(ctx); err != nil {
			t.Fatal(err)
		}
	})
	if got := a.caPEM(id); strings.Count(got, "BEGIN CERTIFICATE") != 1 || got == oldCA {
		t.Fatalf("GET /v1/certificates after the rotation: want the new CA alone, got\n%s", got)
	}
	if c := a.do(member, "1.5", "GET", "/v1/clusters/"+id, nil).json(t); c["status"] != "UPDATE_COMPLETE" {
		t.Fatalf("after the last phase: %v (%v)", c["status"], c["status_reason"])
	}
	// The leader's poll no longer reads a cluster whose rotation completed.
	if vs, err := a.db.ClustersRotatingCA(ctx); err != nil || len(vs) != 0 {
		t.Fatalf("rotating clusters after the rotation: %d (%v)", len(vs), err)
	}
}

// caPEM is GET /v1/certificates/{id}'s PEM.
func (a *testAPI) caPEM(id string) string {
	a.t.Helper()
	r := a.do(member, "1.5", "GET", "/v1/certificates/"+id, nil)
	if r.status != 200 {
		a.t.Fatalf("GET /v1/certificates: %d %s", r.status, r.body)
	}
	pem, _ := r.json(a.t)["pem"].(string)
	return pem
}

// expectPhaseCommit checks HEAD is the rotation phase's commit by author.
func (a *testAPI) expectPhaseCommit(phase, author string) {
	a.t.Helper()
	msg := a.lastCommit()
	if !strings.HasPrefix(msg, "cluster rot: rotate the certificate authority, "+phase) || !strings.Contains(msg, "Keel-Operation: rotate-ca") {
		a.t.Fatalf("HEAD:\n%s", msg)
	}
	h, _ := a.store.Head()
	c, err := a.store.Repo().CommitObject(h)
	if err != nil || c.Author.Email != author+"@keel" {
		a.t.Fatalf("HEAD's author %v (%v), want %s", c.Author, err, author)
	}
}

// A rotation keeps nothing in memory: another API server on the same
// repository and read model (a restarted keel, the new leader after a
// failover) commits its next phase.
func TestCARotationResumesOnAnotherServer(t *testing.T) {
	ctx := context.Background()
	a := newKeyedAPI(t)
	tm := a.template(member, "t1", nil)
	id := a.cluster(member, "rot", tm.UUID, 1)
	a.complete(id)
	if r := a.do(member, "1.5", "PATCH", "/v1/certificates/"+id, nil); r.status != 202 {
		t.Fatalf("PATCH: %d %s", r.status, r.body)
	}
	a.complete(id)
	next := New(a.api.cfg)
	if err := next.AdvanceCARotations(ctx); err != nil {
		t.Fatal(err)
	}
	a.expectPhaseCommit("phase 2 of 3 (sign)", "keel")
}
