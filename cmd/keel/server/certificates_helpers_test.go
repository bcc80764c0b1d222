package server

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"maps"
	"net/http"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
)

// newCertCluster creates a template and a cluster through gophercloud and
// returns the cluster's UUID (the cluster's CAs exist from the create on).
func newCertCluster(t *testing.T, sc *gophercloud.ServiceClient, name string, extraLabels ...map[string]string) string {
	t.Helper()
	ctx := context.Background()
	labels := map[string]string{"kube_tag": "v1.33.4"}
	for _, l := range extraLabels {
		maps.Copy(labels, l)
	}
	tmpl, err := clustertemplates.Create(ctx, sc, clustertemplates.CreateOpts{
		Name: name + "-tmpl", COE: "kubernetes", ImageID: "ubuntu-2204-kube-v1.33",
		FlavorID: "m1.medium", MasterFlavorID: "m1.large", ExternalNetworkID: "public",
		Labels: labels,
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	uuid, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: name, ClusterTemplateID: tmpl.UUID, MasterCount: &one, NodeCount: &one}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	return uuid
}

// waitClusterStatus polls until the cluster reaches status (or fails the
// test after realWait).
func waitClusterStatus(t *testing.T, sc *gophercloud.ServiceClient, uuid, status string) *clusters.Cluster {
	t.Helper()
	deadline := time.Now().Add(realWait)
	for {
		got, err := clusters.Get(context.Background(), sc, uuid).Extract()
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == status {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster %s: status %s (%s), want %s", uuid, got.Status, got.StatusReason, status)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// adminCSR is the CSR `openstack coe cluster config` makes: RSA-2048,
// CN=admin, O=system:masters.
func adminCSR(t *testing.T) []byte {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject: pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}},
	}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

// verifyClientCert checks that certPEM is a client certificate issued by
// caPEM for CN=admin, O=system:masters.
func verifyClientCert(t *testing.T, caPEM, certPEM []byte) {
	t.Helper()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatalf("CA is not PEM: %q", caPEM)
	}
	block, _ := pem.Decode(certPEM)
	if block == nil {
		t.Fatalf("certificate is not PEM: %q", certPEM)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Fatalf("client certificate does not verify against the cluster CA: %v", err)
	}
	if cert.Subject.CommonName != "admin" || len(cert.Subject.Organization) != 1 || cert.Subject.Organization[0] != "system:masters" {
		t.Errorf("subject %s", cert.Subject)
	}
}

// certificatesGet returns the cluster's Kubernetes CA PEM over plain HTTP.
func certificatesGet(base, uuid string) ([]byte, error) {
	resp, err := http.Get(base + "/v1/certificates/" + uuid)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		PEM string `json:"pem"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET certificates: %d", resp.StatusCode)
	}
	return []byte(out.PEM), nil
}
