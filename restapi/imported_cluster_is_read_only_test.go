package restapi

import (
	"context"
	"net/http"
	"path"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
)

// A cluster keel import wrote as a read-only record shows Magnum's status,
// status_reason and stack_id, and every change to it is a Magnum-format
// 409 whose title says why; nothing is committed.
func TestImportedClusterIsReadOnly(t *testing.T) {
	a := newTestAPI(t)
	tmpl := a.template(member, "t", nil)
	uuid := a.cluster(member, "legacy", tmpl.UUID, 2)
	const reason = "Imported from Magnum as a read-only record: made by Magnum's Heat driver, which keel cannot adopt."
	a.markImported(uuid, &intent.Imported{From: "magnum", Driver: "heat", Status: "UPDATE_COMPLETE", Reason: reason,
		StackID: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a"})
	got := a.do(member, "1.1", "GET", "/v1/clusters/"+uuid, nil).json(t)
	if got["status"] != "UPDATE_COMPLETE" || got["status_reason"] != reason || got["stack_id"] != "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a" {
		t.Errorf("GET = status %v, reason %v, stack_id %v", got["status"], got["status_reason"], got["stack_id"])
	}
	for _, tc := range []struct {
		name, method, path, mv string
		body                   any
	}{
		{"patch", "PATCH", "/v1/clusters/" + uuid, "", []map[string]any{{"op": "replace", "path": "/node_count", "value": 3}}},
		{"resize", "POST", "/v1/clusters/" + uuid + "/actions/resize", "1.7", map[string]any{"node_count": 3}},
		{"upgrade", "POST", "/v1/clusters/" + uuid + "/actions/upgrade", "1.8", map[string]any{"cluster_template": tmpl.UUID}},
		{"delete", "DELETE", "/v1/clusters/" + uuid, "", nil},
		{"nodegroup create", "POST", "/v1/clusters/" + uuid + "/nodegroups", "1.9", map[string]any{"name": "gpu", "node_count": 1}},
		{"nodegroup update", "PATCH", "/v1/clusters/" + uuid + "/nodegroups/default-worker", "1.9",
			[]map[string]any{{"op": "replace", "path": "/max_node_count", "value": 5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.expectNoCommit(func() {
				expectError(t, a.do(member, tc.mv, tc.method, tc.path, tc.body), http.StatusConflict, "read-only record imported from Magnum")
			})
		})
	}
}

// markImported rewrites a cluster's document as keel import writes a
// read-only record.
func (a *testAPI) markImported(uuid string, im *intent.Imported) {
	a.t.Helper()
	a.rewriteAsImport(uuid, func(c *intent.Cluster) { c.Imported = im })
}

// rewriteAsImport edits a cluster's document in a commit made as keel
// import makes its own.
func (a *testAPI) rewriteAsImport(uuid string, edit func(*intent.Cluster)) {
	a.t.Helper()
	v, err := a.db.GetClusterByUUID(context.Background(), uuid)
	if err != nil || v == nil {
		a.t.Fatalf("cluster %s: %v", uuid, err)
	}
	_, err = a.store.Update(context.Background(), func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		c, err := intent.ReadClusterDocument(sn, v.Dir)
		if err != nil {
			return nil, err
		}
		edit(c)
		data, err := intent.Marshal(c)
		if err != nil {
			return nil, err
		}
		return &gitstore.Commit{Subject: "import", Author: gitstore.Signature{Name: "keel import", Email: "import@keel"},
			Trailers: []gitstore.Trailer{{Key: gitstore.TrailerOperation, Value: "import"}},
			Changes:  []gitstore.Change{{Path: path.Join(v.Dir, intent.ClusterFile), Data: data}}}, nil
	})
	if err != nil {
		a.t.Fatal(err)
	}
	if err := a.db.Sync(context.Background(), a.store); err != nil {
		a.t.Fatal(err)
	}
}
