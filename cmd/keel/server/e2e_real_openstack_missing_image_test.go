package server

import (
	"context"
	"strings"
	"testing"
	"time"

	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
)

// An image that exists when the cluster is created (keel's lookup finds
// it, as the user) and is deleted before CAPO creates the servers: Nova
// refuses the create, and the cluster is CREATE_FAILED with Nova's words.
func TestRealOpenStackMissingImageGivesCreateFailed(t *testing.T) {
	t.Parallel() // waits on OpenStack and CAPO far more than it computes
	ctx := context.Background()
	r := startRealOpenStackKeel(t)
	image := r.project.PrivateImage(t, "short-lived", map[string]string{"os_distro": "ubuntu"})
	yes, flavor := true, r.cloud.Flavors[0]
	tmpl, err := clustertemplates.Create(ctx, r.sc, clustertemplates.CreateOpts{
		Name: "short-lived", COE: "kubernetes", ImageID: image, FlavorID: flavor, MasterFlavorID: flavor,
		ExternalNetworkID: r.cloud.ExternalNetwork, NetworkDriver: "calico", Labels: map[string]string{"kube_tag": "v1.33.1"},
		MasterLBEnabled: &yes, FloatingIPEnabled: &yes,
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	id := r.createOne(t, "imageless", tmpl.UUID)
	// CAPO makes the network, router and load balancer first (tens of
	// seconds); the image goes now.
	ic, err := gcos.NewImageV2(r.project.Provider(t), r.cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	if err := images.Delete(ctx, ic, image).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	reason := r.failedReason(t, id, 10*time.Minute)
	// Nova's words (a 400 that does not repeat the ID).
	if !strings.Contains(reason, "InstanceCreateFailed") || !strings.Contains(reason, "Can not find requested image") {
		t.Errorf("status_reason %q does not name Nova's error for the missing image", reason)
	}
}
