package workload

import (
	"testing"

	"github.com/openkeel/keel/internal/pki"
)

// A CA rotation leaves the etcd CA alone: after the API server restarted
// with a new Kubernetes CA, KubeadmControlPlane's way to the stacked etcd
// (a port-forward through the restarted API server, with the remade admin
// config, to a member serving with the unchanged etcd CA) still reaches
// every member, the one of the machine that brought the new CA included.
func TestEtcdUnchangedByRekey(t *testing.T) {
	ctx := testContext(t)
	c, p := newCluster(t, "etcdrekey")
	r := newRotationCAs(t, p.CA)
	for i, ca := range []pki.KeyPair{{}, r.finish} {
		if err := c.Boot(ctx, controlPlaneMachine("etcdrekey", i, ca)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		node := controlPlaneMachine("etcdrekey", i, pki.KeyPair{}).Name
		members, err := etcdClient(ctx, t, c, p.EtcdCA, node).Members(ctx)
		if err != nil || len(members) != 2 {
			t.Errorf("etcd-%s after the rekey: %d members, %v; want 2", node, len(members), err)
		}
	}
}
