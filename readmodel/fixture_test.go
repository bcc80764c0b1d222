package readmodel_test

import (
	"context"
	"testing"
	"time"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/repo"
)

// fixture is one cluster of a template, written to a store the way the
// API writes it, and projected into a read model.
type fixture struct {
	t     *testing.T
	ctx   context.Context
	store *gitstore.Store
	db    *readmodel.DB
	tmpl  intent.ClusterTemplate
	st    *intent.ClusterState
}

// newFixture opens a new store and the read model at dsn, for a cluster
// named name (stack id stackID) with labels, and nodegroups given as
// name → role (1 node each, the first of each role default).
func newFixture(t *testing.T, dsn, name, stackID string, labels map[string]string, ngs ...[2]string) *fixture {
	t.Helper()
	f := &fixture{t: t, ctx: context.Background()}
	var err error
	if f.store, err = gitstore.Open(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if f.db, err = readmodel.Open(f.ctx, dsn); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.db.Close() })
	f.tmpl = intent.ClusterTemplate{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindClusterTemplate},
		ID: 1, UUID: "11111111-1111-4111-8111-111111111111", Name: "k8s", ProjectID: "p", COE: "kubernetes", ImageID: "img",
		ServerType: "vm", Labels: labels}
	c := intent.Cluster{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindCluster},
		ID: 1, UUID: "22222222-2222-4222-8222-222222222222", Name: name, ProjectID: "p", ClusterTemplateID: f.tmpl.UUID,
		Labels: labels, CreateTimeout: 60, StackID: stackID, ClusterClass: "magnum-v0.1.0", CreatedAt: time.Now().UTC()}
	f.st = &intent.ClusterState{Dir: intent.ClusterDirOf(&c), Cluster: c}
	defaulted := map[string]bool{}
	for i, ng := range ngs {
		f.st.NodeGroups = append(f.st.NodeGroups, intent.NodeGroup{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindNodeGroup},
			ID: int64(i + 1), UUID: "33333333-3333-4333-8333-33333333333" + string(rune('1'+i)), Name: ng[0], ClusterID: c.UUID,
			ProjectID: "p", Role: ng[1], IsDefault: !defaulted[ng[1]], NodeCount: 1})
		defaulted[ng[1]] = true
	}
	return f
}

// write commits the template and the cluster as they are now (plus extra
// changes) with the Keel-Operation op, and projects HEAD.
func (f *fixture) write(op string, extra ...gitstore.Change) {
	f.t.Helper()
	commit(f.t, f.store, op, func(sn *gitstore.Snapshot) []gitstore.Change {
		tp, _ := repo.Document(intent.TemplatePath("p", f.tmpl.UUID), f.tmpl)
		ch, err := repo.WriteCluster(sn, &f.tmpl, f.st, intent.Facts{})
		if err != nil {
			f.t.Fatal(err)
		}
		return append(append(ch, tp), extra...)
	})
	f.sync()
}

// remove commits the removal of the cluster's folder (not projected).
func (f *fixture) remove() {
	f.t.Helper()
	commit(f.t, f.store, "delete", func(*gitstore.Snapshot) []gitstore.Change {
		return []gitstore.Change{{Path: f.st.Dir, Delete: true}}
	})
}

func (f *fixture) sync() {
	f.t.Helper()
	if err := f.db.Sync(f.ctx, f.store); err != nil {
		f.t.Fatal(err)
	}
}

// view is the cluster as the API reads it; nil once it left the read model.
func (f *fixture) view() *readmodel.ClusterView {
	f.t.Helper()
	v, err := f.db.GetClusterByUUID(f.ctx, f.st.Cluster.UUID)
	if err != nil {
		f.t.Fatal(err)
	}
	return v
}

// newNotifyingFixture is newFixture for cluster c1 (kube-abcde, Kubernetes
// v1.33.4) and the nodegroups ngs, past the read model's first projection:
// that is a full one, which notifies nothing (it would repeat every
// create).
func newNotifyingFixture(t *testing.T, dsn string, ngs ...[2]string) *fixture {
	t.Helper()
	f := newFixture(t, dsn, "c1", "kube-abcde", map[string]string{"kube_tag": "v1.33.4"}, ngs...)
	commit(t, f.store, "init", func(*gitstore.Snapshot) []gitstore.Change {
		return []gitstore.Change{{Path: "README.md", Data: []byte("clusters\n")}}
	})
	f.sync()
	return f
}

// settle reports HEAD applied and Cluster API settled with workers
// default workers (and the observation's other nodegroups, by name).
func (f *fixture) settle(workers int64, more map[string]int64) {
	f.t.Helper()
	o := settledObservation(workers)
	for name, n := range more {
		o.NodeGroups[name] = settledObservation(n).NodeGroups["default-worker"]
	}
	f.db.Applied(f.ctx, f.st.Cluster.UUID, clusterTree(f.t, f), 0, nil)
	f.db.SetObservation(f.ctx, f.st.Cluster.UUID, o)
}

// outboxLines describes each notification in the outbox, oldest first.
func (f *fixture) outboxLines(line func(n readmodel.Notification) string) []string {
	f.t.Helper()
	ns, err := f.db.Notifications(f.ctx, 100)
	if err != nil {
		f.t.Fatal(err)
	}
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = line(n)
	}
	return out
}
