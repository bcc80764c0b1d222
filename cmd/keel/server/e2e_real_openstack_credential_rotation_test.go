package server

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
)

// The case credential rotation exists for, on the real Keystone, real CAPO
// and Cluster API and a simulated workload cluster: the cluster's creator
// leaves (deleted in Keystone, with her application credentials, CAPO's
// included); another member of the project rotates the credential (1.12)
// and the cluster goes UPDATE_IN_PROGRESS → UPDATE_COMPLETE, once CAPO's
// clouds.yaml and the workload cluster's cloud.conf carry his new
// credential and the cloud provider's workloads rolled onto it. CAPO then
// works with it: a resize makes a server, the delete leaves nothing in the
// project, and the member's credential goes with the cluster.
func TestRealOpenStackCredentialRotatedAfterCreatorLeft(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := startRealOpenStackKeel(t)
	bob := r.inProject(t, r.project.AnotherUser(t))
	id := r.createOne(t, "rotated", r.template(t, nil).UUID)
	c := waitRealStatus(t, r.sc, id, "CREATE_COMPLETE", 15*time.Minute)

	r.project.DeleteUser(t)
	sc := *bob.sc
	sc.Microversion = "1.12"
	if _, err := sc.Request(ctx, "PATCH", sc.ServiceURL("credentials", id), &gophercloud.RequestOpts{
		JSONBody: map[string]any{}, OkCodes: []int{202}}); err != nil {
		t.Fatalf("rotating as another member: %v", err)
	}
	waitRealStatus(t, bob.sc, id, "UPDATE_COMPLETE", 10*time.Minute)
	if n := bob.applicationCredentials(t); n != 1 {
		t.Fatalf("the member has %d application credentials, want the rotation's one", n)
	}
	var s corev1.Secret
	if err := r.in.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: c.StackID + "-cloud-config"}, &s); err != nil {
		t.Fatal(err)
	}
	cur := s.Annotations[intent.AnnotationAppCredentialID]
	if s.Annotations[intent.AnnotationAppCredentialUserID] != bob.project.UserID || !strings.Contains(string(s.Data["clouds.yaml"]), cur) {
		t.Fatalf("CAPO's clouds.yaml: credential %s of %s", cur, s.Annotations[intent.AnnotationAppCredentialUserID])
	}
	var conf corev1.Secret
	wl := workloadClient(t, r.in, c.StackID)
	if err := wl.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "cloud-config"}, &conf); err != nil ||
		!strings.Contains(string(conf.Data["cloud.conf"]), strconv.Quote(cur)) {
		t.Fatalf("the workload cluster's cloud.conf (%v):\n%s", err, conf.Data["cloud.conf"])
	}

	bob.resize(t, id, 2, nil)
	r.checkHolds(t, "after the resize with the rotated credential", holding{servers: 3, loadBalancers: 1, networks: 1, routers: 1, minFloatingIPs: 1, minSecurityGroups: 2, serverGroups: 2})
	if err := clusters.Delete(ctx, bob.sc, id).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Minute, "the cluster to be gone", func() bool {
		_, err := clusters.Get(ctx, bob.sc, id).Extract()
		return gophercloud.ResponseCodeIs(err, 404)
	})
	waitFor(t, 2*time.Minute, "the project to be empty", func() bool { return len(r.inventory(t)) == 0 })
	if n := bob.applicationCredentials(t); n != 0 {
		t.Errorf("after the delete the member still has %d application credentials", n)
	}
}
