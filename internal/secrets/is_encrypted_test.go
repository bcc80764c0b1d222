package secrets

import (
	"testing"
)

// IsEncrypted tells a document with a sops block from the rest, whether
// or not the word appears elsewhere.
func TestIsEncryptedTellsSopsBlocks(t *testing.T) {
	_, enc := encryptedSecret(t)
	for _, tc := range []struct {
		name string
		doc  string
		want bool
	}{
		{"encrypted", string(enc), true},
		{"plain Secret", plainSecret, false},
		{"the word in a value", "kind: ConfigMap\ndata:\n  tool: sops\n", false},
		{"a sops key that is no block", "kind: ConfigMap\nsops: yes\n", false},
		{"not YAML", "sops: [\n", false},
		{"empty", "", false},
	} {
		if got := IsEncrypted([]byte(tc.doc)); got != tc.want {
			t.Errorf("%s: IsEncrypted = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// BenchmarkIsEncryptedPlain is the reconciler's question of each rendered
// file with no Secret, on every apply:
//
//	go test -run '^$' -bench IsEncryptedPlain ./internal/secrets
func BenchmarkIsEncryptedPlain(b *testing.B) {
	doc := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-abcde-calico\n  namespace: magnum-system\ndata:\n" +
		"  calico.yaml: |\n" + plainSecret)
	b.ReportAllocs()
	for b.Loop() {
		IsEncrypted(doc)
	}
}
