package reconciler

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
)

// fakeServerGroups stands for Nova: it records each deletion and whether
// the CAPI Cluster and the cloud-config Secret existed at that moment;
// failures fails the first calls.
type fakeServerGroups struct {
	mu       sync.Mutex
	deleted  []string
	during   []string // "cluster=<bool> secret=<bool>" per call
	failures int
	exists   func(ctx context.Context, o client.Object) bool
}

func (f *fakeServerGroups) DeleteServerGroup(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.during = append(f.during, fmt.Sprintf("cluster=%v secret=%v", f.exists(ctx, &clusterv1.Cluster{}), f.exists(ctx, &corev1.Secret{})))
	if f.failures > 0 {
		f.failures--
		return fmt.Errorf("nova: 503")
	}
	f.deleted = append(f.deleted, id)
	return nil
}

func (f *fakeServerGroups) recorded() ([]string, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.deleted), slices.Clone(f.during)
}

// A deleted cluster's Nova server groups, named by its cloud-config
// Secret, are deleted only once its CAPI Cluster is gone (their members
// with it), before that Secret is; Nova failing is retried.
func TestTeardownDeletesServerGroupsAfterCluster(t *testing.T) {
	groups := &fakeServerGroups{failures: 1}
	f := newFixture(t)
	r, err := New(f.store, env.Client, f.sink, Options{RetryMin: 20 * time.Millisecond, RetryMax: 50 * time.Millisecond,
		ServerGroups: groups, CredentialAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	f.rec = r
	ctx := context.Background()
	st := f.cluster("sg", 1)
	secretKey := client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID + "-cloud-config"}
	clusterKey := client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID}
	groups.exists = func(ctx context.Context, o client.Object) bool {
		key := clusterKey
		if _, ok := o.(*corev1.Secret); ok {
			key = secretKey
		}
		return !apierrors.IsNotFound(env.Client.Get(ctx, key, o))
	}
	dir := intent.RenderedPath(st.Dir)
	secret := fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\n  namespace: magnum-system\n  annotations:\n    %s: sg-1,sg-2\nstringData:\n  clouds.yaml: x\n",
		secretKey.Name, intent.AnnotationServerGroupIDs)
	kust := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- cluster.yaml\n- secret.yaml\n"
	f.write(st, gitstore.Change{Path: path.Join(dir, "secret.yaml"), Data: []byte(secret)},
		gitstore.Change{Path: path.Join(dir, compiler.KustomizationFile), Data: []byte(kust)})
	f.rec.Sync(ctx)
	var cl clusterv1.Cluster
	if err := env.Client.Get(ctx, clusterKey, &cl); err != nil {
		t.Fatal(err)
	}
	cl.Finalizers = append(cl.Finalizers, "test.keel.openkeel.io/capi")
	if err := env.Client.Update(ctx, &cl); err != nil {
		t.Fatal(err)
	}

	f.commit("delete cluster", gitstore.Change{Path: st.Dir, Delete: true})
	for i := 0; i < 5; i++ {
		f.rec.Sync(ctx)
	}
	if _, during := groups.recorded(); len(during) != 0 {
		t.Fatalf("server groups deleted while the Cluster exists: %v", during)
	}
	releaseCluster(t, clusterKey)
	f.eventually("the cloud-config Secret to be deleted", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, secretKey, &corev1.Secret{}))
	})
	deleted, during := groups.recorded()
	if !slices.Equal(deleted, []string{"sg-1", "sg-2"}) {
		t.Errorf("deleted %v, want sg-1 and sg-2", deleted)
	}
	for _, d := range during {
		if d != "cluster=false secret=true" {
			t.Errorf("a deletion with %s, want the Cluster gone and the Secret there", d)
		}
	}
	if len(during) != 3 {
		t.Errorf("%d calls, want 3 (one failure retried)", len(during))
	}
	f.eventually("the teardown to finish", func() bool { return f.sink.isGone(st.Cluster.UUID) })
}
