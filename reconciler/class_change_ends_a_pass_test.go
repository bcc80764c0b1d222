package reconciler

import (
	"context"
	"fmt"
	"path"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
)

// A ClusterClass changed while a pass applies clusters ends the pass: the
// class goes first in the next, which Run is asked for (kick), and the
// clusters changed beside it wait for that pass.
func TestClassChangeEndsAPass(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	held, beside := f.cluster("held", 1), f.cluster("beside", 1)
	f.write(held)
	f.write(beside)
	f.rec.SyncAll(ctx)
	gate, passDone := f.heldPass(t, held)

	class, files := classFolder(beside.Cluster.StackID)
	beside.NodeGroups[1].NodeCount = 3
	f.write(beside, files...)
	waitFor(t, "the pass takes the commit in", func() bool { return len(f.rec.notify) == 0 })
	gate.open()
	received(t, passDone, "the pass ends")

	if f.rec.pending[class] == nil || f.rec.pending[beside.Dir] == nil {
		t.Fatalf("pending after the pass: %v, want the class and the cluster beside it", f.rec.pending)
	}
	select {
	case <-f.rec.kick:
	default:
		t.Fatal("Run was not asked for the next pass")
	}
	f.rec.Sync(ctx)
	if got := workerReplicas(t, beside.Cluster.StackID); got != 3 {
		t.Fatalf("worker replicas of the cluster beside the class: %d, want 3", got)
	}
	key := client.ObjectKey{Namespace: kube.Namespace, Name: beside.Cluster.StackID + "-class"}
	if err := env.Client.Get(ctx, key, &corev1.ConfigMap{}); err != nil {
		t.Fatalf("the class's object was not applied: %v", err)
	}
}

// classFolder is a ClusterClass folder holding one ConfigMap named after
// name: its unit and its files.
func classFolder(name string) (string, []gitstore.Change) {
	dir := path.Join(intent.ClusterClassesDir, name)
	cm := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-class\n  namespace: %s\ndata:\n  k: v\n", name, kube.Namespace)
	kust := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- configmap.yaml\n"
	return dir, []gitstore.Change{
		{Path: path.Join(dir, "configmap.yaml"), Data: []byte(cm)},
		{Path: path.Join(dir, compiler.KustomizationFile), Data: []byte(kust)},
	}
}
