package secrets

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const plainSecret = `apiVersion: v1
data:
  tls.crt: Y2VydA==
  tls.key: c2VjcmV0LWtleS1tYXRlcmlhbA==
  empty: ""
kind: Secret
metadata:
  labels:
    cluster.x-k8s.io/cluster-name: kube-abcde
  name: kube-abcde-ca
  namespace: magnum-system
stringData:
  clouds.yaml: |
    clouds:
      default:
        auth:
          application_credential_secret: s3cr3t-value
  replicas: 3
  enabled: true
type: cluster.x-k8s.io/secret
`

// Encrypting hides every data/stringData value, keeps the rest readable,
// and decrypting gives the same document back.
func TestEncryptDecryptRoundTrip(t *testing.T) {
	k, enc := encryptedSecret(t)
	for _, secret := range []string{"c2VjcmV0LWtleS1tYXRlcmlhbA==", "s3cr3t-value", "Y2VydA=="} {
		if strings.Contains(string(enc), secret) {
			t.Errorf("ciphertext contains the plaintext %q:\n%s", secret, enc)
		}
	}
	for _, visible := range []string{"name: kube-abcde-ca", "kind: Secret", "cluster.x-k8s.io/cluster-name: kube-abcde", "type: cluster.x-k8s.io/secret", k.Current()} {
		if !strings.Contains(string(enc), visible) {
			t.Errorf("ciphertext lacks %q:\n%s", visible, enc)
		}
	}
	if !IsEncrypted(enc) || IsEncrypted([]byte(plainSecret)) {
		t.Error("IsEncrypted is wrong")
	}
	dec, err := k.Decrypt(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !SameContent(dec, []byte(plainSecret)) {
		t.Fatalf("round trip changed the document:\n%s", dec)
	}
	// Types survive: 3 stays an int, true a bool.
	var m map[string]any
	if err := yaml.Unmarshal(dec, &m); err != nil {
		t.Fatal(err)
	}
	sd := m["stringData"].(map[string]any)
	if sd["replicas"] != float64(3) || sd["enabled"] != true {
		t.Errorf("types lost: %#v", sd)
	}
}

// encryptedSecret is plainSecret encrypted with a new keyring.
func encryptedSecret(t *testing.T) (*Keyring, []byte) {
	t.Helper()
	k, _, err := GenerateKeyring()
	if err != nil {
		t.Fatal(err)
	}
	enc, err := k.Encrypt([]byte(plainSecret))
	if err != nil {
		t.Fatal(err)
	}
	return k, enc
}
