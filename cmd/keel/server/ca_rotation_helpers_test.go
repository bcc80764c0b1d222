package server

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/certificates"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// getCA is GET /v1/certificates/{uuid}'s PEM.
func getCA(t *testing.T, sc *gophercloud.ServiceClient, uuid string) string {
	t.Helper()
	c, err := certificates.Get(context.Background(), sc, uuid).Extract()
	if err != nil {
		t.Fatal(err)
	}
	return c.PEM
}

// coeKubeconfig makes the kubeconfig `openstack coe cluster config` makes:
// the CA of GET /v1/certificates, and a CN=admin, O=system:masters client
// certificate signed through POST /v1/certificates.
func coeKubeconfig(t *testing.T, sc *gophercloud.ServiceClient, uuid, api string) *rest.Config {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject: pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}}}, key)
	if err != nil {
		t.Fatal(err)
	}
	csr := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
	signed, err := certificates.Create(context.Background(), sc, certificates.CreateOpts{ClusterUUID: uuid, CSR: string(csr)}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return &rest.Config{Host: api, Timeout: 10 * time.Second, TLSClientConfig: rest.TLSClientConfig{
		CAData: []byte(getCA(t, sc, uuid)), CertData: []byte(signed.PEM), KeyData: keyPEM}}
}

// reach lists the workload cluster's namespaces with cfg.
func reach(cfg *rest.Config) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{Limit: 1})
	return err
}

// mustReach fails the test unless cfg reaches the workload cluster within
// a minute (its API server may be restarting).
func mustReach(t *testing.T, cfg *rest.Config, what string) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		if err = reach(cfg); err == nil {
			return
		}
	}
	t.Fatalf("%s does not reach the workload cluster: %v", what, err)
}

// trustFailure tells a rejected kubeconfig (the server's certificate not
// trusted, or the client's refused) from a server that is not there.
func trustFailure(err error) bool {
	var uerr x509.UnknownAuthorityError
	var cerr *tls.CertificateVerificationError
	return apierrors.IsUnauthorized(err) || errors.As(err, &uerr) || errors.As(err, &cerr) ||
		strings.Contains(err.Error(), "x509: ") || strings.Contains(err.Error(), "Unauthorized")
}

// clusterMachines names the Machines of a CAPI Cluster.
func clusterMachines(t *testing.T, in *Instance, stack string) map[string]bool {
	t.Helper()
	var ms clusterv1.MachineList
	if err := in.Client.List(context.Background(), &ms, client.InNamespace(kube.Namespace), client.MatchingLabels{"cluster.x-k8s.io/cluster-name": stack}); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range ms.Items {
		out[m.Name] = true
	}
	return out
}

// verifyServer verifies the certificate chain host presents with caPEM as
// the only root.
func verifyServer(host, caPEM string) error {
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM([]byte(caPEM)) {
		return errors.New("no CA")
	}
	conn, err := tls.Dial("tcp", host, &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12})
	if err != nil {
		return err
	}
	return conn.Close()
}

// watchRotation follows a rotation to UPDATE_COMPLETE: each of its three
// phases is named in status_reason, and until the last one is committed
// the kubeconfig made before it keeps working (a restarting API server
// may refuse connections for a moment; it may never reject the kubeconfig
// itself). It returns a kubeconfig made in the trust phase and one made in
// the sign phase, each checked when made.
func watchRotation(t *testing.T, sc *gophercloud.ServiceClient, uuid, api string, before *rest.Config) (duringTrust, duringSign *rest.Config) {
	t.Helper()
	seen := map[int]bool{}
	for deadline := time.Now().Add(3 * realWait); ; time.Sleep(500 * time.Millisecond) {
		got := rotationStatus(t, sc, uuid, seen)
		switch {
		case got.Status == "UPDATE_COMPLETE" && seen[2]:
			// Only the finish phase's rollout completes the operation.
			if duringTrust == nil || duringSign == nil {
				t.Fatalf("the trust or sign phase went by unseen (phases seen: %v)", seen)
			}
			return duringTrust, duringSign
		case strings.HasSuffix(got.Status, "_FAILED") || time.Now().After(deadline):
			t.Fatalf("rotation: %s (%s)", got.Status, got.StatusReason)
		case seen[1] && !seen[2] && duringTrust == nil:
			duringTrust = coeKubeconfig(t, sc, uuid, api)
			mustReach(t, duringTrust, "a kubeconfig made in the trust phase")
		case seen[2] && !seen[3] && duringSign == nil:
			duringSign = coeKubeconfig(t, sc, uuid, api)
			mustReach(t, duringSign, "a kubeconfig made in the sign phase")
		}
		if err := reach(before); err != nil && trustFailure(err) && !seen[3] {
			// The last phase may have started since the status was read.
			if rotationStatus(t, sc, uuid, seen); !seen[3] {
				t.Fatalf("the kubeconfig made before the rotation was rejected before its last phase (phases seen: %v): %v", seen, err)
			}
		}
	}
}

// rotationStatus reads the cluster and notes the phases its status_reason
// named ("phase N of 3").
func rotationStatus(t *testing.T, sc *gophercloud.ServiceClient, uuid string, seen map[int]bool) *clusters.Cluster {
	t.Helper()
	got, err := clusters.Get(context.Background(), sc, uuid).Extract()
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 3; n++ {
		if strings.Contains(got.StatusReason, fmt.Sprintf("phase %d of 3", n)) {
			seen[n] = true
		}
	}
	return got
}
