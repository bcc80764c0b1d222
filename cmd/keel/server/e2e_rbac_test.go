package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/mgmtcluster"
	"github.com/openkeel/keel/restapi/auth"
)

// keel runs on a real management cluster with only the rights of
// deploy/base/rbac.yaml: as that ServiceAccount (and with leader election
// on) it creates a cluster to CREATE_COMPLETE, records its Events and
// deletes it again. Cluster API's own controllers and webhooks (with
// simulated OpenStack) run next to it with their own (admin) rights, as
// they do on a management cluster where clusterctl installed them. A
// permission the manifest lacks stalls the cluster or shows as a
// "forbidden" in keel's log. The cluster autoscales, so keel also applies
// its cluster-autoscaler, whose Role it may grant only with rights it holds
// itself.
func TestKeelRunsWithTheDocumentedRBAC(t *testing.T) {
	ctx := context.Background()
	// A management cluster of the test's own: Cluster API's webhooks
	// (failurePolicy Fail) must be served wherever its objects are written.
	mgmt, err := mgmtcluster.Start(ctx, mgmtcluster.Options{Webhooks: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mgmt.Stop() })
	applyManifest(t, mgmt.Client, "../../../deploy/base/rbac.yaml")
	cfg, err := mgmt.UserConfig("system:serviceaccount:"+kube.Namespace+":keel",
		"system:serviceaccounts", "system:serviceaccounts:"+kube.Namespace, "system:authenticated")
	if err != nil {
		t.Fatal(err)
	}

	capiCtx, stopCAPI := context.WithCancel(ctx)
	capiDone := make(chan error, 1)
	go func() {
		capiDone <- RunClusterAPI(capiCtx, mgmt.Config, ClusterAPIOptions{
			Webhooks: mgmt.Webhooks, DataDir: t.TempDir(), SimulateStep: 200 * time.Millisecond,
			Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		})
	}()
	t.Cleanup(func() {
		stopCAPI()
		if err := <-capiDone; err != nil { // stopped: only worth a note
			t.Log("cluster api:", err)
		}
	})

	logs := &syncBuffer{}
	_, sc := startKeelWith(t, "1.10", func(o *Options) {
		o.Config, o.LeaderElection = cfg, true
		o.Auth = auth.NoAuth{DefaultProject: "p-rbac", Admin: false}
		o.Log = slog.New(slog.NewTextHandler(io.MultiWriter(logs, os.Stderr), &slog.HandlerOptions{Level: slog.LevelWarn}))
	})

	uuid := newCertCluster(t, sc, "rbac", map[string]string{"auto_scaling_enabled": "true"})
	cl := waitClusterStatus(t, sc, uuid, "CREATE_COMPLETE")
	autoscaler := client.ObjectKey{Namespace: kube.Namespace, Name: cl.StackID + "-autoscaler"}
	if err := mgmt.Client.Get(ctx, autoscaler, &appsv1.Deployment{}); err != nil {
		t.Errorf("the cluster's autoscaler was not applied: %v", err)
	}

	var events corev1.EventList
	if err := mgmt.Client.List(ctx, &events, client.InNamespace(kube.Namespace)); err != nil {
		t.Fatal(err)
	}
	recorded := false
	for _, e := range events.Items {
		recorded = recorded || (e.InvolvedObject.Name == cl.StackID && e.Source.Component == "keel")
	}
	if !recorded {
		t.Errorf("keel recorded no Event on Cluster %s", cl.StackID)
	}

	if err := clusters.Delete(ctx, sc, uuid).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, realWait, "the deleted cluster to leave the API", func() bool {
		_, err := clusters.Get(ctx, sc, uuid).Extract()
		return gophercloud.ResponseCodeIs(err, http.StatusNotFound)
	})
	if l := strings.ToLower(logs.String()); strings.Contains(l, "forbidden") {
		t.Errorf("keel was refused something the manifest should allow:\n%s", logs.String())
	}
}

// applyManifest server-side applies every document of a YAML file with c
// (the cluster admin).
func applyManifest(t *testing.T, c client.Client, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			return
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(u.Object) == 0 {
			continue
		}
		if err := c.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(u),
			client.FieldOwner("keel-test"), client.ForceOwnership); err != nil {
			t.Fatalf("applying %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the logger's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
