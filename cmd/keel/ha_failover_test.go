package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// kill -9 of the leader: another replica takes the Lease and reconciles
// what was committed, including a cluster created after the kill (it
// reaches CREATE_COMPLETE); no acknowledged write is lost, and the applied
// objects have keel as their only appliers, with one leader at a time.
func TestHALeaderKilled(t *testing.T) {
	ctx := context.Background()
	h := newHACluster(t, 3)
	haWait(t, 60*time.Second, "a leader", func() bool { return h.leader() != nil })
	old := h.leader()
	var others []*replica
	for _, r := range h.replicas {
		if r != old {
			others = append(others, r)
		}
	}
	capi := func(stack string) bool {
		return h.mgmt.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: stack}, &clusterv1.Cluster{}) == nil
	}
	stackOf := func(r *replica, uuid string) string {
		v, _ := r.cluster(uuid)
		return v.StackID
	}

	acked := map[string]string{} // request id -> API path
	tmpl, rid := others[0].createTemplate("t-before")
	acked[rid] = "/v1/clustertemplates/" + tmpl
	before, rid := old.createCluster("before-kill", tmpl)
	acked[rid] = "/v1/clusters/" + before
	haWait(t, 60*time.Second, "the first leader to apply its cluster", func() bool { return capi(stackOf(old, before)) })

	old.kill9()
	killed := time.Now()
	// Acknowledged while nobody leads: it waits in Git for the next leader.
	after, rid := others[1].createCluster("after-kill", tmpl)
	acked[rid] = "/v1/clusters/" + after
	stackAfter := stackOf(others[0], after)

	haWait(t, 60*time.Second, "another replica to take the Lease", func() bool { return h.leader() != nil })
	toHolder := time.Since(killed)
	haWait(t, 60*time.Second, "the new leader to apply the cluster created after the kill", func() bool { return capi(stackAfter) })
	toApply := time.Since(killed)
	t.Logf("failover: kill -9 of the leader -> new Lease holder %s, -> first apply %s (Lease duration 15 s)",
		toHolder.Round(10*time.Millisecond), toApply.Round(10*time.Millisecond))
	// The failover time is a measurement, not an assertion (timed
	// assertions fail on a loaded machine): client-go takes an unreleased
	// Lease once LeaseDuration (15 s) has passed since the last renewal,
	// checked every RetryPeriod (2 s, jittered by 1.2), so about 15-18 s;
	// the 60 s wait above is the liveness bound. Measured figures:
	// docs/reconciler.md.
	haWait(t, 3*time.Minute, "the cluster created after the kill to be CREATE_COMPLETE", func() bool {
		v, ok := others[0].cluster(after)
		return ok && v.Status == "CREATE_COMPLETE"
	})

	// No acknowledged write lost: each is one commit on the Git server and
	// shows on every live replica.
	ids := h.git.requestIDs()
	for rid, path := range acked {
		if ids[rid] != 1 {
			t.Errorf("acknowledged write %s (request %s) is %d commits on the Git server, want 1", path, rid, ids[rid])
		}
		for _, r := range others {
			if !r.has(path) {
				t.Errorf("%s does not show the acknowledged %s", r.name, path)
			}
		}
	}
	if !capi(stackOf(others[0], before)) {
		t.Errorf("the cluster the killed leader applied is gone from the management cluster")
	}

	// One leader at a time among the survivors, and every applied object
	// has keel as its only server-side applier.
	leading := 0
	for _, r := range others {
		b, _ := os.ReadFile(r.log)
		leading += strings.Count(string(b), "leading: reconciling the repository")
	}
	if leading != 1 {
		t.Errorf("the surviving replicas started leading %d times, want once", leading)
	}
	for _, uuid := range []string{before, after} {
		checkAppliedOnlyByKeel(t, h, stackOf(others[0], uuid))
	}
}

// checkAppliedOnlyByKeel reads a cluster's inventory and checks that each
// object listed exists once and was server-side applied by the field
// manager keel alone.
func checkAppliedOnlyByKeel(t *testing.T, h *haCluster, stack string) {
	t.Helper()
	ctx := context.Background()
	var cm corev1.ConfigMap
	if err := h.mgmt.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: "keel-inventory-" + stack}, &cm); err != nil {
		t.Errorf("inventory of %s: %v", stack, err)
		return
	}
	var entries []struct{ Group, Version, Kind, Namespace, Name string }
	if err := json.Unmarshal([]byte(cm.Data["entries"]), &entries); err != nil || len(entries) == 0 {
		t.Errorf("inventory of %s: %v %q", stack, err, cm.Data["entries"])
		return
	}
	seen := map[string]bool{}
	for _, e := range entries {
		key := fmt.Sprintf("%s/%s/%s/%s", e.Group, e.Kind, e.Namespace, e.Name)
		if seen[key] {
			t.Errorf("inventory of %s lists %s twice", stack, key)
		}
		seen[key] = true
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: e.Group, Version: e.Version, Kind: e.Kind})
		if err := h.mgmt.Client.Get(ctx, client.ObjectKey{Namespace: e.Namespace, Name: e.Name}, u); err != nil {
			t.Errorf("%s of %s's inventory: %v", key, stack, err)
			continue
		}
		keel := 0
		for _, mf := range u.GetManagedFields() {
			switch {
			case mf.Operation != "Apply":
			case mf.Manager == kube.FieldManager:
				keel++
			default:
				t.Errorf("%s was server-side applied by %q besides keel", key, mf.Manager)
			}
		}
		if keel != 1 {
			t.Errorf("%s has %d managedFields entries of keel's applies, want 1", key, keel)
		}
	}
}
