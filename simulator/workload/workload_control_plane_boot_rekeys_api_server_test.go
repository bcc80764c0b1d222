package workload

import (
	"net/http"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/pki"
)

// tlsRefused is a check's expected outcome when the client cannot verify
// the API server's certificate.
const tlsRefused = 0

// caCheck is a client that trusts roots and authenticates with a
// certificate signed by signer, and the HTTP status it must get.
type caCheck struct {
	name          string
	roots, signer pki.KeyPair
	want          int
}

// rekeyPhase is a rotation phase's material and what clients see once a
// control-plane machine booted with it.
type rekeyPhase struct {
	name   string
	ca     pki.KeyPair
	checks []caCheck
}

func rekeyPhases(r rotationCAs) []rekeyPhase {
	return []rekeyPhase{
		{"trust", r.trust, []caCheck{
			{"roots A, client of A", r.a, r.a, http.StatusOK},
			{"roots A, client of B", r.a, r.b, http.StatusOK},
			{"roots B", r.b, r.a, tlsRefused},
		}},
		{"finish", r.finish, []caCheck{
			{"roots A", r.a, r.b, tlsRefused},
			{"roots B, client of B", r.b, r.b, http.StatusOK},
			{"roots B, client of A", r.b, r.a, http.StatusUnauthorized},
		}},
	}
}

// A CA rotation as the simulated control plane plays it: the <cluster>-ca
// material of the phases that change it reaches the API server with a
// control-plane machine that boots with it (Cluster API rolling the control
// plane), and the restarted server behaves as kubeadm's would. trust (A ‖ B,
// key A): the server still presents a certificate of A, so clients that
// trust only A connect, and B's client certificates are accepted too.
// finish (B): A is trusted nowhere. (The sign phase leaves the material as
// it is.) The cluster's data survives every restart, and the simulated
// kubelets carry on with the new admin client.
func TestControlPlaneBootRekeysAPIServer(t *testing.T) {
	ctx := testContext(t)
	p, err := pki.Generate("rekey", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c := newClusterWith(t, "rekey", p)
	r := newRotationCAs(t, p.CA)
	if err := c.Boot(ctx, controlPlaneMachine("rekey", 0, pki.KeyPair{})); err != nil {
		t.Fatal(err)
	}
	kept := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "before-rotation"}}
	if err := c.Client().Create(ctx, kept); err != nil {
		t.Fatal(err)
	}
	for i, ph := range rekeyPhases(r) {
		before := runningAPI(c)
		if err := c.Boot(ctx, controlPlaneMachine("rekey", i+1, ph.ca)); err != nil {
			t.Fatalf("%s: %v", ph.name, err)
		}
		if runningAPI(c) == before {
			t.Fatalf("%s: a control-plane machine booted with new CA material, the API server was not restarted", ph.name)
		}
		for _, ck := range ph.checks {
			got, err := get(ctx, c, httpsClient(t, ck.roots.Cert, ck.signer), "/api/v1/namespaces/default/configmaps/before-rotation")
			if got != ck.want {
				t.Errorf("%s, %s: status %d (%v), want %d (0: TLS verification fails)", ph.name, ck.name, got, err, ck.want)
			}
		}
		if err := c.Client().Get(ctx, client.ObjectKeyFromObject(kept), &corev1.ConfigMap{}); err != nil {
			t.Errorf("%s: the object made before the rotation, through the new admin client: %v", ph.name, err)
		}
		if err := c.Sync(ctx); err != nil {
			t.Errorf("%s: the kubelets after the restart: %v", ph.name, err)
		}
	}
}
