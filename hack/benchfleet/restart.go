package main

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// generations are the metadata.generation of the Cluster API objects keel
// applies or Cluster API derives from them: a restart that re-applied
// nothing changed leaves every one as it was.
func generations(kubeconfig string) (map[string]int64, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cl, err := client.New(cfg, client.Options{})
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, gvk := range []schema.GroupVersionKind{
		{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "ClusterList"},
		{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "MachineDeploymentList"},
		{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmControlPlaneList"},
	} {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk)
		if err := cl.List(context.Background(), l, client.InNamespace("magnum-system")); err != nil {
			return nil, err
		}
		for _, o := range l.Items {
			out[gvk.Kind+"/"+o.GetName()] = o.GetGeneration()
		}
	}
	return out, nil
}

// restartResult is what a warm restart cost.
type restartResult struct {
	stop, answers, verified time.Duration
	objects, changed        int
}

// restart stops keel with SIGTERM and starts it again on the same data:
// how long until the API answers, and until the reconciler has looked at
// every folder again (nothing pending, a reconcile per cluster counted).
func restart(k *keel, a *api, clusters int) (restartResult, error) {
	var r restartResult
	before, err := generations(k.kubeconfig())
	if err != nil {
		return r, err
	}
	t := time.Now()
	if err := k.stop(); err != nil {
		return r, err
	}
	r.stop = time.Since(t)
	t = time.Now()
	if err := k.start(); err != nil {
		return r, err
	}
	if _, err := k.waitAnswers(a, 15*time.Minute); err != nil {
		return r, err
	}
	r.answers = time.Since(t)
	if err := waitVerified(k.url(), clusters, 30*time.Minute); err != nil {
		return r, err
	}
	r.verified = time.Since(t)
	after, err := generations(k.kubeconfig())
	if err != nil {
		return r, err
	}
	r.objects, r.changed = len(before), changedCount(before, after)
	return r, nil
}

func changedCount(before, after map[string]int64) int {
	n := 0
	for k, g := range before {
		if after[k] != g {
			n++
		}
	}
	return n
}

// waitVerified waits for the reconciler's start-up pass: a reconcile of
// each cluster folder counted, and nothing left pending.
func waitVerified(url string, clusters int, limit time.Duration) error {
	end := time.Now().Add(limit)
	for time.Now().Before(end) {
		m, err := scrape(url)
		if err == nil && m["keel_reconcile_pending"] == 0 && reconciled(m) >= float64(clusters) {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("the reconciler had not verified %d clusters within %s", clusters, limit)
}

// reconciled counts the cluster folders' reconciles of any result.
func reconciled(m map[string]float64) float64 {
	n := 0.0
	for _, r := range []string{"success", "error", "stalled", "waiting"} {
		n += m[fmt.Sprintf(`keel_reconcile_total{kind="cluster",result="%s"}`, r)]
	}
	return n
}
