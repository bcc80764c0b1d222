package reconciler

import (
	"context"
	"fmt"
	"path"
	"sync"
	"testing"
	"time"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/testenv"
	"github.com/openkeel/keel/repo"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// recordingSink remembers what the reconciler reported.
type recordingSink struct {
	mu       sync.Mutex
	applied  map[string]string // uuid → revision
	gens     map[string]int64  // uuid → the Cluster's generation after the apply
	errors   map[string]error
	deleting map[string]string
	failed   map[string]string // uuid → DeleteFailed's reason
	retiring map[string]string // uuid → Retiring's reason
	gone     map[string]bool
}

func newSink() *recordingSink {
	return &recordingSink{applied: map[string]string{}, gens: map[string]int64{}, errors: map[string]error{}, deleting: map[string]string{}, failed: map[string]string{}, retiring: map[string]string{}, gone: map[string]bool{}}
}

func (s *recordingSink) Applied(_ context.Context, uuid, rev string, gen int64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.errors[uuid] = err
		return
	}
	s.applied[uuid] = rev
	s.gens[uuid] = gen
}

func (s *recordingSink) Deleting(_ context.Context, uuid, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleting[uuid] = reason
	delete(s.failed, uuid)
}

func (s *recordingSink) DeleteFailed(_ context.Context, uuid, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed[uuid] = reason
	delete(s.deleting, uuid)
}

func (s *recordingSink) Retiring(_ context.Context, uuid, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retiring[uuid] = reason
}

func (s *recordingSink) Gone(_ context.Context, uuid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gone[uuid] = true
}

// Present is left to the real read model
// (cluster_deleted_while_no_pass_looked_leaves_the_read_model_test.go).
func (s *recordingSink) Present(context.Context, map[string]bool, map[string]bool, func(string) bool) {
}

func (s *recordingSink) retiringReason(uuid string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retiring[uuid]
}

func (s *recordingSink) isGone(uuid string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gone[uuid]
}

// fixture is a repository with one template, and a reconciler on it.
type fixture struct {
	t     testing.TB
	store *gitstore.Store
	rec   *Reconciler
	sink  *recordingSink
	tmpl  intent.ClusterTemplate
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	store, err := gitstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sink := newSink()
	rec, err := New(store, env.Client, sink, Options{RetryMin: 50 * time.Millisecond, RetryMax: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, store: store, rec: rec, sink: sink, tmpl: intent.ClusterTemplate{
		TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindClusterTemplate},
		ID:       1, UUID: "7f0c5b5e-2f43-4c43-9a9d-3d1c1b0a0001", Name: "k8s", ProjectID: "p1",
		COE: "kubernetes", ImageID: "img-1", FlavorID: intent.Ptr("m1.medium"), MasterFlavorID: intent.Ptr("m1.large"),
		NetworkDriver: intent.Ptr("calico"), ServerType: "vm", Labels: map[string]string{"kube_tag": "v1.33.4"},
	}}
	tp, err := repo.Document(intent.TemplatePath("p1", f.tmpl.UUID), f.tmpl)
	if err != nil {
		t.Fatal(err)
	}
	f.commit("template", tp)
	return f
}

var stackSeq int

// cluster builds a cluster state with a unique stack id (the tests share
// one management cluster).
func (f *fixture) cluster(name string, workers int64) *intent.ClusterState {
	stackSeq++
	stack := fmt.Sprintf("kube-t%04d", stackSeq%10000)
	c := intent.Cluster{
		TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindCluster},
		ID:       int64(stackSeq), UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", stackSeq), Name: name, ProjectID: "p1",
		ClusterTemplateID: f.tmpl.UUID, FlavorID: f.tmpl.FlavorID, MasterFlavorID: f.tmpl.MasterFlavorID,
		Labels: f.tmpl.Labels, CreateTimeout: 60, StackID: stack, ClusterClass: "magnum-v0.1.0",
	}
	ng := func(id int64, n, role string, count int64) intent.NodeGroup {
		return intent.NodeGroup{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindNodeGroup},
			ID: id, UUID: fmt.Sprintf("00000000-0000-4000-9000-%012d", id), Name: n, ClusterID: c.UUID, ProjectID: "p1",
			Role: role, IsDefault: true, NodeCount: count}
	}
	return &intent.ClusterState{Dir: intent.ClusterDirOf(&c), Cluster: c, NodeGroups: []intent.NodeGroup{
		ng(int64(stackSeq*10), intent.DefaultMasterNodeGroup, intent.RoleMaster, 1),
		ng(int64(stackSeq*10+1), intent.DefaultWorkerNodeGroup, intent.RoleWorker, workers),
	}}
}

// write commits a cluster's intent and rendered output.
func (f *fixture) write(st *intent.ClusterState, extra ...gitstore.Change) {
	f.t.Helper()
	_, err := f.store.Update(context.Background(), func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		changes, err := repo.WriteCluster(sn, &f.tmpl, st, intent.Facts{})
		if err != nil {
			return nil, err
		}
		return &gitstore.Commit{Subject: "cluster " + st.Cluster.Name, Author: gitstore.Signature{Name: "t", Email: "t@x"},
			Changes: append(changes, extra...)}, nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) commit(subject string, changes ...gitstore.Change) {
	f.t.Helper()
	_, err := f.store.Update(context.Background(), func(*gitstore.Snapshot) (*gitstore.Commit, error) {
		return &gitstore.Commit{Subject: subject, Author: gitstore.Signature{Name: "t", Email: "t@x"}, Changes: changes}, nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// renderedSecret is an extra document placed in a cluster's rendered folder
// (with its kustomization updated), standing for the credentials a cluster
// carries.
func renderedSecret(st *intent.ClusterState, name string) []gitstore.Change {
	dir := intent.RenderedPath(st.Dir)
	secret := fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\n  namespace: magnum-system\nstringData:\n  clouds.yaml: placeholder\n", name)
	kust := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- cluster.yaml\n- secret.yaml\n"
	return []gitstore.Change{
		{Path: path.Join(dir, "secret.yaml"), Data: []byte(secret)},
		{Path: path.Join(dir, compiler.KustomizationFile), Data: []byte(kust)},
	}
}

// eventually polls cond until it holds or 30 s pass, syncing the reconciler
// in between.
func (f *fixture) eventually(what string, cond func() bool) {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			f.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
		f.rec.Sync(context.Background())
	}
}

// workerReplicas is the first MachineDeployment's replicas in the CAPI
// Cluster of a stack.
func workerReplicas(t *testing.T, stackID string) int32 {
	t.Helper()
	var cl clusterv1.Cluster
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: kube.Namespace, Name: stackID}, &cl); err != nil {
		t.Fatal(err)
	}
	return *cl.Spec.Topology.Workers.MachineDeployments[0].Replicas
}
