package readmodel_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/readmodel/rmtest"
	"github.com/openkeel/keel/status"
)

// A cluster's life writes Magnum's notifications to the outbox, in order,
// on SQLite and PostgreSQL: create pending when its commit is projected,
// create success when the observer sees it settle, update pending and
// success for a resize, delete pending when its folder leaves Git and
// delete success when the reconciler reports it gone. A commit from
// outside the API names its author as the initiator; the success events
// name whoever started the operation, with Magnum's cluster_data.
func TestNotificationsFollowClusterLife(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newNotifyingFixture(t, dsn, [2]string{"default-master", "master"}, [2]string{"default-worker", "worker"})
			c := f.st.Cluster
			settle := func(workers int64) { f.settle(workers, nil) }
			f.write(status.OpCreate)
			settle(1)
			f.st.NodeGroups[1].NodeCount = 2
			f.write("resize")
			settle(2)
			f.remove()
			f.sync()
			f.db.Gone(ctx, c.UUID)

			got := outbox(t, f.db)
			want := []string{"create pending CREATE_IN_PROGRESS 1", "create success CREATE_COMPLETE 1",
				"update pending UPDATE_IN_PROGRESS 2", "update success UPDATE_COMPLETE 2",
				"delete pending DELETE_IN_PROGRESS 2", "delete success DELETE_COMPLETE 2"}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("outbox:\n%q\nwant\n%q", got, want)
			}
		})
	}
}

// outbox lists the cluster notifications as "action outcome status node_count",
// after checking what every one of them carries.
func outbox(t *testing.T, db *readmodel.DB) []string {
	t.Helper()
	ns, err := db.Notifications(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range ns {
		e := n.Event
		if e.NodeGroup != nil {
			continue // readmodel_nodegroup_notifications_test.go
		}
		if e.ClusterUUID != "22222222-2222-4222-8222-222222222222" || e.ClusterName != "c1" || e.Initiator.Name != "t" ||
			e.Cluster.ProjectID != "p" || e.Cluster.StackID != "kube-abcde" || e.Cluster.MasterCount != 1 || e.MessageID == "" {
			t.Errorf("notification %d: %+v", n.Seq, e)
		}
		out = append(out, fmt.Sprintf("%s %s %s %d", e.Action, e.Outcome, e.Cluster.Status, e.Cluster.NodeCount))
	}
	return out
}

func clusterTree(t *testing.T, f *fixture) string {
	sn, err := f.store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	h, err := sn.Hash(f.st.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

func settledObservation(workers int64) *status.Observation {
	r := func(n int64) status.Replicas {
		return status.Replicas{Exists: true, Desired: n, Current: n, Ready: n, UpToDate: n, SpecVersion: "v1.33.4", MachineVersions: []string{"v1.33.4"}}
	}
	return &status.Observation{Exists: true, Available: true, ControlPlaneAvailable: true, InfrastructureReady: true,
		ControlPlane: r(1), NodeGroups: map[string]status.Replicas{"default-worker": r(workers)}}
}
