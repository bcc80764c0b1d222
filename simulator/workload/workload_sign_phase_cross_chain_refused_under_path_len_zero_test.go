package workload

import (
	"crypto/x509"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/openkeel/keel/internal/pki"
)

// The sign phase's promise, "clients that trust only the old CA still
// connect", does not hold for Go clients (kubectl, client-go, Cluster
// API's controllers) when the old CA carries a path length of 0, as every
// CA of keel's pki.Generate and of Magnum does: the chain leaf → cross →
// old CA has one intermediate, and Go's verifier enforces the root's path
// length without RFC 5280's exemption for self-issued intermediates. The
// simulated API server presents exactly what keel renders (leaf ‖ cross),
// so this is the behaviour a real cluster shows; clients that trust the
// new CA, and client certificates of the old one, are unaffected.
func TestSignPhaseCrossChainRefusedUnderPathLenZero(t *testing.T) {
	ctx := testContext(t)
	p, err := pki.Generate("pathlen", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	p.CA = selfSignedCA(t, "pathlen", true)
	c := newClusterWith(t, "pathlen", p)
	r := newRotationCAs(t, p.CA)
	for i, ca := range []pki.KeyPair{{}, r.trust, r.sign} {
		if err := c.Boot(ctx, controlPlaneMachine("pathlen", i, ca)); err != nil {
			t.Fatal(err)
		}
	}
	_, err = get(ctx, c, httpsClient(t, r.a.Cert, r.a), "/readyz")
	var invalid x509.CertificateInvalidError
	if !errors.As(err, &invalid) || invalid.Reason != x509.TooManyIntermediates {
		t.Errorf("sign phase, roots = the old CA with path length 0: %v, want Go's TooManyIntermediates", err)
	}
	if got, err := get(ctx, c, httpsClient(t, r.b.Cert, r.a), "/api"); got != http.StatusOK {
		t.Errorf("sign phase, roots = the new CA, client of the old one: %d (%v), want 200", got, err)
	}
}
