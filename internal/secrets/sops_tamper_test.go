package secrets

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// A tampered value, a moved value and a foreign key are all refused.
func TestDecryptRefusesTamperingAndForeignKeys(t *testing.T) {
	k, _, _ := GenerateKeyring()
	enc, err := k.Encrypt([]byte(plainSecret))
	if err != nil {
		t.Fatal(err)
	}
	// Unencrypted values are covered by the MAC too.
	tampered := strings.Replace(string(enc), "name: kube-abcde-ca", "name: kube-evil-ca", 1)
	if _, err := k.Decrypt([]byte(tampered)); err == nil || !strings.Contains(err.Error(), "MAC mismatch") {
		t.Errorf("tampered metadata: err = %v", err)
	}
	// Swapping two ciphertexts breaks their additional data (the path).
	var doc map[string]any
	_ = yaml.Unmarshal(enc, &doc)
	data := doc["data"].(map[string]any)
	swapped := strings.Replace(string(enc), data["tls.crt"].(string), "@SWAP@", 1)
	swapped = strings.Replace(swapped, data["tls.key"].(string), data["tls.crt"].(string), 1)
	swapped = strings.Replace(swapped, "@SWAP@", data["tls.key"].(string), 1)
	if _, err := k.Decrypt([]byte(swapped)); err == nil {
		t.Error("swapped ciphertexts decrypted")
	}
	other, _, _ := GenerateKeyring()
	if _, err := other.Decrypt(enc); err == nil || !strings.Contains(err.Error(), "none of keel's age identities") {
		t.Errorf("foreign keyring: err = %v", err)
	}
}
