package restapi

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
)

// A CA rotation the cluster cannot take is a 400 that names why, and
// commits nothing (Magnum regenerates the CAs first and leaves the
// cluster UPDATE_FAILED).
func TestCARotationRefusalsChangeNothing(t *testing.T) {
	a := newKeyedAPI(t)
	tm := a.template(member, "t1", nil)
	disabled := true
	notTLS, err := clustertemplates.Create(context.Background(), a.client(member, ""), clustertemplates.CreateOpts{
		Name: "t2", COE: "kubernetes", ImageID: "ubuntu-2204-kube", FlavorID: "m1.medium", MasterFlavorID: "m1.large",
		ExternalNetworkID: "public", Labels: map[string]string{"kube_tag": "v1.33.4"}, TLSDisabled: &disabled,
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	pending := a.cluster(member, "pending", tm.UUID, 1)
	done := a.cluster(member, "done", tm.UUID, 1)
	a.complete(done)
	plain := a.cluster(member, "plain", notTLS.UUID, 1)
	a.complete(plain)
	for _, tc := range []struct {
		name, mv, id string
		status       int
		want         string
	}{
		{"below 1.5", "1.4", done, 400, "needs API microversion 1.5 or later"},
		{"no version header is 1.1", "", done, 400, "needs API microversion 1.5 or later"},
		{"non-TLS", "1.5", plain, 400, "Rotating the CA certificate on a non-TLS cluster is not supported"},
		{"still creating", "1.5", pending, 400, "in status CREATE_IN_PROGRESS is not supported"},
		{"unknown cluster", "1.5", "nope", 404, "Cluster nope could not be found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outer := a.t
			a.t = t
			defer func() { a.t = outer }()
			a.expectNoCommit(func() {
				expectError(t, a.do(member, tc.mv, "PATCH", "/v1/certificates/"+tc.id, nil), tc.status, tc.want)
			})
		})
	}
}
