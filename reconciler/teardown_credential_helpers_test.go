package reconciler

import (
	"context"
	"fmt"
	"path"
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

// fakeCredentials stands for Keystone: it records each deletion with what
// the management cluster held at that moment, and fails while err is set.
type fakeCredentials struct {
	mu    sync.Mutex
	calls []credentialCall
	err   error
	// exists tells whether the cluster's object of o's type is still in
	// the management cluster.
	exists func(ctx context.Context, o client.Object) bool
}

type credentialCall struct {
	userID, id    string
	clusterExists bool // the CAPI Cluster, when Keystone was asked
	secretExists  bool // the cloud-config Secret
}

func (f *fakeCredentials) DeleteApplicationCredential(ctx context.Context, userID, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := credentialCall{userID: userID, id: id}
	c.clusterExists, c.secretExists = f.exists(ctx, &clusterv1.Cluster{}), f.exists(ctx, &corev1.Secret{})
	f.calls = append(f.calls, c)
	return f.err
}

func (f *fakeCredentials) recorded() []credentialCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]credentialCall(nil), f.calls...)
}

// credentialFixture is a cluster applied with a cloud-config Secret naming
// its application credential, whose CAPI Cluster a stand-in finalizer
// holds, and a reconciler deleting credentials with creds.
func credentialFixture(t *testing.T, creds *fakeCredentials, rec Recorder) (*fixture, *intent.ClusterState, client.ObjectKey, client.ObjectKey) {
	t.Helper()
	return credentialFixtureRetiring(t, creds, rec, "")
}

// credentialFixtureRetiring is credentialFixture with the credentials a
// rotation retired (the annotation's value; "" for none).
func credentialFixtureRetiring(t *testing.T, creds *fakeCredentials, rec Recorder, retired string) (*fixture, *intent.ClusterState, client.ObjectKey, client.ObjectKey) {
	t.Helper()
	f := newFixture(t)
	r, err := New(f.store, env.Client, f.sink, Options{RetryMin: 20 * time.Millisecond, RetryMax: 50 * time.Millisecond,
		Credentials: creds, CredentialAttempts: 3, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	f.rec = r
	ctx := context.Background()
	st := f.cluster("cred", 1)
	secretKey := client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID + "-cloud-config"}
	clusterKey := client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID}
	creds.exists = func(ctx context.Context, o client.Object) bool {
		key := clusterKey
		if _, ok := o.(*corev1.Secret); ok {
			key = secretKey
		}
		return !apierrors.IsNotFound(env.Client.Get(ctx, key, o))
	}
	dir := intent.RenderedPath(st.Dir)
	secret := fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\n  namespace: magnum-system\n  annotations:\n    %s: ac-1\n    %s: alice-id\n",
		secretKey.Name, intent.AnnotationAppCredentialID, intent.AnnotationAppCredentialUserID)
	if retired != "" {
		secret += fmt.Sprintf("    %s: %s\n", intent.AnnotationRetiredAppCredentials, retired)
	}
	secret += "stringData:\n  clouds.yaml: x\n"
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
	return f, st, clusterKey, secretKey
}

// releaseCluster removes the stand-in finalizer: CAPI is done.
func releaseCluster(t *testing.T, key client.ObjectKey) {
	t.Helper()
	ctx := context.Background()
	var cl clusterv1.Cluster
	if err := env.Client.Get(ctx, key, &cl); err != nil {
		t.Fatal(err)
	}
	cl.Finalizers = nil
	if err := env.Client.Update(ctx, &cl); err != nil {
		t.Fatal(err)
	}
}
