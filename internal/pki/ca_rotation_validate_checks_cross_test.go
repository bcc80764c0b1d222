package pki

import (
	"strings"
	"testing"
)

// Validate accepts a rotation's key material and rejects a new CA or
// cross-signed certificate that does not fit: an edited or corrupted key
// document must not reach kubeadm.
func TestCARotationValidateChecksCross(t *testing.T) {
	p := rotatedPKI(t)
	other := rotatedFrom(t, unconstrainedCA(t)) // another rotation: another old CA, another new key
	for _, c := range []struct {
		name string
		edit func(q *ClusterPKI)
		want string // "" accepts
	}{
		{"rotation as begun", func(*ClusterPKI) {}, ""},
		{"new CA without cross", func(q *ClusterPKI) { q.CrossCA = nil }, "go together"},
		{"cross without new CA", func(q *ClusterPKI) { q.NextCA = nil }, "go together"},
		{"new CA with another key", func(q *ClusterPKI) { q.NextCA = &KeyPair{Cert: q.NextCA.Cert, Key: other.NextCA.Key} }, "next_ca: certificate and key do not match"},
		{"new CA not a CA", func(q *ClusterPKI) { q.NextCA = &KeyPair{Cert: []byte("junk"), Key: q.NextCA.Key} }, "next_ca:"},
		{"cross of another key", func(q *ClusterPKI) { q.CrossCA = other.CrossCA }, "not the key of next_ca"},
		{"old CA replaced", func(q *ClusterPKI) { q.CA = other.CA }, "cross_ca: not signed by ca"},
		{"cross self-signed by the new CA", func(q *ClusterPKI) { q.CrossCA = q.NextCA.Cert }, "not signed by ca"},
		{"cross not PEM", func(q *ClusterPKI) { q.CrossCA = []byte("junk") }, "cross_ca: certificate is not a PEM"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := *p
			c.edit(&q)
			err := q.Validate()
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("Validate: %v, want %q", err, c.want)
			}
		})
	}
}
