package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/certificates"
)

// gophercloud's certificates client gets the cluster CA right after the
// create and has a CSR signed whose certificate verifies against it; its
// legacy bay_uuid is refused as Magnum refuses it, and CA rotation while
// the cluster is created; once it is complete a rotation starts, and GET
// returns both CAs (docs/secrets.md).
func TestCertificatesThroughGophercloud(t *testing.T) {
	_, sc := startRealKeelWith(t, "1.12", nil)
	ctx := context.Background()
	uuid := newCertCluster(t, sc, "certs")

	ca, err := certificates.Get(ctx, sc, uuid).Extract()
	if err != nil {
		t.Fatal(err)
	}
	if ca.ClusterUUID != uuid || !strings.HasPrefix(ca.PEM, "-----BEGIN CERTIFICATE-----") {
		t.Fatalf("GET: %+v", ca)
	}
	if len(ca.Links) != 2 || !strings.HasSuffix(ca.Links[0].Href, "/v1/certificates/"+uuid) {
		t.Errorf("links %+v", ca.Links)
	}
	// By name too, as magnumclient resolves it.
	byName, err := certificates.Get(ctx, sc, "certs").Extract()
	if err != nil || byName.PEM != ca.PEM {
		t.Errorf("GET by name: %v", err)
	}

	csr := adminCSR(t)
	signed, err := certificates.Create(ctx, sc, certificates.CreateOpts{ClusterUUID: uuid, CSR: string(csr)}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	if signed.ClusterUUID != uuid || signed.CSR != string(csr) {
		t.Errorf("POST echo: cluster %s csr %q", signed.ClusterUUID, signed.CSR)
	}
	verifyClientCert(t, []byte(ca.PEM), []byte(signed.PEM))

	_, err = certificates.Create(ctx, sc, certificates.CreateOpts{BayUUID: uuid, CSR: string(csr)}).Extract()
	if !gophercloud.ResponseCodeIs(err, http.StatusBadRequest) {
		t.Errorf("bay_uuid: err = %v, want 400", err)
	}
	// Rotation is refused for a cluster in progress, and starts once it is
	// complete: its trust phase has clients trust the old and the new CA.
	if err := certificates.Update(ctx, sc, uuid).ExtractErr(); !gophercloud.ResponseCodeIs(err, http.StatusBadRequest) {
		t.Errorf("rotate while CREATE_IN_PROGRESS: err = %v", err)
	}
	waitClusterStatus(t, sc, uuid, "CREATE_COMPLETE")
	if err := certificates.Update(ctx, sc, uuid).ExtractErr(); err != nil {
		t.Fatalf("rotate: %v", err)
	}
	after, err := certificates.Get(ctx, sc, uuid).Extract()
	if err != nil || !strings.HasPrefix(after.PEM, ca.PEM) || strings.Count(after.PEM, "BEGIN CERTIFICATE") != 2 {
		t.Errorf("GET during the rotation's trust phase: want the old CA then the new one, got %q (err %v)", after.PEM, err)
	}
}
