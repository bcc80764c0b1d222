package readmodel_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/readmodel/rmtest"
	"github.com/openkeel/keel/status"
)

// A nodegroup added to, resized in and removed from an existing cluster is
// notified as magnum.nodegroup.{create,update,delete} (an addition to
// Magnum), pending when its commit is projected and success when its
// status settles (delete: when its row goes), after the cluster's own
// notification of the same change, on SQLite and PostgreSQL. The
// nodegroups of the cluster's own create are not notified apart.
func TestNodeGroupChangesAreNotified(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			f := newNotifyingFixture(t, dsn, [2]string{"default-master", "master"}, [2]string{"default-worker", "worker"}, [2]string{"gpu", "worker"})
			gpu := f.st.NodeGroups[2]
			f.st.NodeGroups = f.st.NodeGroups[:2]
			c := f.st.Cluster
			settle := func(gpuCount int64) {
				if gpuCount == 0 {
					f.settle(1, nil)
					return
				}
				f.settle(1, map[string]int64{"gpu": gpuCount})
			}
			f.write(status.OpCreate)
			settle(0)
			f.st.NodeGroups = append(f.st.NodeGroups, gpu)
			f.write("nodegroup create")
			settle(1)
			f.st.NodeGroups[2].NodeCount = 3
			f.write("nodegroup update")
			settle(3)
			f.st.NodeGroups = f.st.NodeGroups[:2]
			f.write("nodegroup delete", gitstore.Change{Path: intent.NodeGroupPath(f.st.Dir, "gpu"), Delete: true})
			settle(3) // its MachineDeployment is still there
			settle(0) // and gone

			got := f.outboxLines(func(n readmodel.Notification) string {
				e := n.Event
				line := fmt.Sprintf("%s %s %s", e.EventType(), e.Outcome, e.Cluster.Status)
				if ng := e.NodeGroup; ng != nil {
					if ng.UUID != gpu.UUID || ng.ClusterID != c.UUID || ng.StackID != "kube-abcde" || e.ClusterUUID != c.UUID {
						t.Errorf("notification %d: nodegroup %+v of cluster %s", n.Seq, ng, e.ClusterUUID)
					}
					line += fmt.Sprintf(" %s %s %d", ng.Name, ng.Status, ng.NodeCount)
				}
				return line
			})
			want := []string{
				"magnum.cluster.create pending CREATE_IN_PROGRESS",
				"magnum.cluster.create success CREATE_COMPLETE",
				"magnum.cluster.update pending UPDATE_IN_PROGRESS",
				"magnum.nodegroup.create pending UPDATE_IN_PROGRESS gpu CREATE_IN_PROGRESS 1",
				"magnum.cluster.update success UPDATE_COMPLETE",
				"magnum.nodegroup.create success UPDATE_COMPLETE gpu CREATE_COMPLETE 1",
				"magnum.cluster.update pending UPDATE_IN_PROGRESS",
				"magnum.nodegroup.update pending UPDATE_IN_PROGRESS gpu UPDATE_IN_PROGRESS 3",
				"magnum.cluster.update success UPDATE_COMPLETE",
				"magnum.nodegroup.update success UPDATE_COMPLETE gpu UPDATE_COMPLETE 3",
				"magnum.cluster.update pending UPDATE_IN_PROGRESS",
				"magnum.nodegroup.delete pending UPDATE_IN_PROGRESS gpu DELETE_IN_PROGRESS 3",
				"magnum.cluster.update success UPDATE_COMPLETE",
				"magnum.nodegroup.delete success UPDATE_COMPLETE gpu DELETE_COMPLETE 3",
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("outbox:\n%q\nwant\n%q", got, want)
			}
		})
	}
}
