package intent

import "strconv"

// CA rotation (PATCH /v1/certificates, docs/secrets.md "Rotating the
// certificate authority"): the Kubernetes CA of a cluster is replaced in
// three phases, each one commit that is applied through Cluster API and
// rolled out before the next one is committed:
//
//   - trust (every machine rolls): every machine trusts the old and the
//     new CA; the old one still signs.
//   - sign (only the control plane rolls): kube-controller-manager signs
//     with the new CA (the kubelets' client certificates), and so does
//     POST /v1/certificates; the API servers still serve certificates of
//     the old CA, so clients that trust only the old CA keep working. No
//     certificate of the new CA cross-signed by the old one is used: keel's
//     CAs carry pathlen:0 and Go clients would refuse the chain.
//   - finish (every machine rolls): the new CA alone, everywhere.
//
// The new CA's key is in the cluster's encrypted key document
// (secrets/pki.sops.yaml) from the trust phase on; this record, public,
// says where the rotation stands.
const (
	CAPhaseTrust  = "trust"
	CAPhaseSign   = "sign"
	CAPhaseFinish = "finish"
)

// CAPhases are the phases in order.
var CAPhases = []string{CAPhaseTrust, CAPhaseSign, CAPhaseFinish}

// CARotation is where a cluster's latest CA rotation stands.
type CARotation struct {
	// Generation counts the cluster's CA rotations (1 for the first).
	Generation int64 `json:"generation"`
	// Phase is the phase committed last (CAPhases); finish once done.
	Phase string `json:"phase"`
}

// InProgress reports whether the rotation has phases left to commit.
func (r *CARotation) InProgress() bool { return r != nil && r.Phase != CAPhaseFinish }

// PhaseNumber is the phase's 1-based place in CAPhases (0: unknown).
func (r *CARotation) PhaseNumber() int {
	for i, p := range CAPhases {
		if r != nil && p == r.Phase {
			return i + 1
		}
	}
	return 0
}

// Next is the phase after this one ("" after finish).
func (r *CARotation) Next() string {
	if n := r.PhaseNumber(); n > 0 && n < len(CAPhases) {
		return CAPhases[n]
	}
	return ""
}

// Marker is the value machines carry for the rotation (ClusterClass
// variable caRotation): it changes with every phase, so that every phase
// rolls the control plane (the workers skip the sign phase, clusterclass
// feature_ca_rotation.go), and is "" for a cluster never rotated.
func (r *CARotation) Marker() string {
	if r == nil {
		return ""
	}
	return strconv.FormatInt(r.Generation, 10) + "-" + r.Phase
}

// SameCARotation reports whether two rotation records (nil: never
// rotated) say the same.
func SameCARotation(a, b *CARotation) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
