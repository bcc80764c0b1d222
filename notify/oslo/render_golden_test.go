package oslo

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func ptr[T any](v T) *T { return &v }

var at = time.Date(2026, 12, 2, 13, 46, 55, 189443000, time.UTC)

var cluster = ClusterData{
	Status: "CREATE_IN_PROGRESS", ProjectID: "p1", CreatedAt: ptr("2026-12-02T13:46:50.000000"),
	ClusterTemplateID: "0b8c1e2a-7c51-4b6e-9f43-0d5d4c1e7a11", Keypair: ptr("kp"), Labels: map[string]string{"kube_tag": "v1.33.1"},
	FlavorID: ptr("m1.small"), MasterFlavorID: ptr("m1.medium"), StackID: "kube-a1b2c", CreateTimeout: 60,
	NodeAddresses: []string{}, MasterAddresses: []string{}, NodeCount: 1, MasterCount: 1,
}

// TestRenderGolden: the envelope, message, context and CADF payload are
// what Magnum sends through oslo.messaging (the golden files were checked
// against pycadf's and magnum.conductor.utils' output, field by field);
// keel's additions (a Git change's commit, a nodegroup's notification)
// keep that shape.
func TestRenderGolden(t *testing.T) {
	failed := cluster
	failed.Status, failed.StatusReason = "CREATE_FAILED", ptr("quota exceeded")
	unhealthy := cluster
	unhealthy.Status, unhealthy.HealthStatus = "CREATE_COMPLETE", ptr("UNHEALTHY")
	for name, e := range map[string]*Event{
		"create_pending": {MessageID: "6f1c6b8e-2d4c-4a4e-9d0a-3b7f0f6e9c01", Action: ActionCreate, Outcome: OutcomePending, Time: at,
			Initiator: Initiator{UserID: "u1", ProjectID: "p1"}, RequestID: "req-5d7e", ClusterUUID: "b4a0c7a2-0000-4000-8000-000000000001", ClusterName: "k1", Cluster: cluster},
		"create_failure": {MessageID: "6f1c6b8e-2d4c-4a4e-9d0a-3b7f0f6e9c02", Action: ActionCreate, Outcome: OutcomeFailure, Time: at, System: true,
			Initiator: Initiator{UserID: "u1", ProjectID: "p1"}, ClusterUUID: "b4a0c7a2-0000-4000-8000-000000000001", ClusterName: "k1", Cluster: failed},
		"update_pending_git": {MessageID: "6f1c6b8e-2d4c-4a4e-9d0a-3b7f0f6e9c03", Action: ActionUpdate, Outcome: OutcomePending, Time: at,
			Initiator: Initiator{Name: "Jane Operator"}, ClusterUUID: "b4a0c7a2-0000-4000-8000-000000000001", ClusterName: "k1", Cluster: cluster,
			Commit: &Commit{ID: "5b1f0c2d9e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c", Subject: "Revert \"resize k1 to 3 workers\"", Author: "Jane Operator"}},
		"nodegroup_create_success": {MessageID: "6f1c6b8e-2d4c-4a4e-9d0a-3b7f0f6e9c04", Action: ActionCreate, Outcome: OutcomeSuccess, Time: at, System: true,
			Initiator: Initiator{UserID: "u1", ProjectID: "p1"}, ClusterUUID: "b4a0c7a2-0000-4000-8000-000000000001", ClusterName: "k1", Cluster: cluster,
			NodeGroup: &NodeGroupData{UUID: "c5d1e8b3-0000-4000-8000-000000000002", Name: "gpu", ClusterID: "b4a0c7a2-0000-4000-8000-000000000001",
				ProjectID: "p1", Labels: map[string]string{}, FlavorID: ptr("g1.large"), ImageID: ptr("ubuntu-2404-kube-v1.33.1"),
				NodeAddresses: []string{"10.0.0.7", "10.0.0.8"}, NodeCount: 2, Role: "gpu", MaxNodeCount: ptr(int64(4)), MinNodeCount: 1,
				StackID: "kube-a1b2c", Status: "CREATE_COMPLETE", Version: ptr("v1.33.1"), CreatedAt: ptr("2026-12-02T13:50:02.000000")}},
		"health_unhealthy": {MessageID: "6f1c6b8e-2d4c-4a4e-9d0a-3b7f0f6e9c05", Action: ActionUpdate, Outcome: OutcomeSuccess, Time: at, System: true,
			Initiator: Initiator{Name: "keel"}, ClusterUUID: "b4a0c7a2-0000-4000-8000-000000000001", ClusterName: "k1", Cluster: unhealthy,
			Health: &HealthChange{Previous: "HEALTHY", Status: "UNHEALTHY", Reason: map[string]string{"api": "ok", "k1-md-0-x7k2p.Ready": "False"}}},
	} {
		t.Run(name, func(t *testing.T) {
			body, err := Render(e, Publisher{Host: "keel-0"})
			if err != nil {
				t.Fatal(err)
			}
			compareGolden(t, filepath.Join("testdata", name+".json"), readable(t, body))
		})
	}
}

// readable unwraps oslo.message so that the golden file shows the message
// as indented JSON (the envelope's shape is checked here, once).
func readable(t *testing.T, body []byte) []byte {
	t.Helper()
	var env map[string]string
	if err := json.Unmarshal(body, &env); err != nil || len(env) != 2 || env["oslo.version"] != "2.0" {
		t.Fatalf("envelope %s: not {oslo.version 2.0, oslo.message} (%v)", body, err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(env["oslo.message"]), "", "  "); err != nil {
		t.Fatal(err)
	}
	return append(out.Bytes(), '\n')
}

func compareGolden(t *testing.T, file string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n%s", file, got)
	}
}
