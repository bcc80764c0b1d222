package secrets

import (
	"bytes"
	"strings"
	"testing"

	"filippo.io/age"
)

// Resealing unchanged content keeps the old bytes; changed content or a
// changed recipient set gives new ciphertext.
func TestResealKeepsCiphertextOfUnchangedContent(t *testing.T) {
	id, _ := age.GenerateX25519Identity()
	k, _ := NewKeyring([]*age.X25519Identity{id})
	old, err := k.Encrypt([]byte(plainSecret))
	if err != nil {
		t.Fatal(err)
	}
	// Same data, other key order and formatting.
	reordered := "kind: Secret\n" + strings.Replace(plainSecret, "kind: Secret\n", "", 1)
	again, err := k.Reseal(old, []byte(reordered))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, old) {
		t.Error("unchanged content was re-encrypted")
	}
	changed, err := k.Reseal(old, []byte(strings.Replace(plainSecret, "Y2VydA==", "bmV3", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(changed, old) {
		t.Error("changed content kept the old ciphertext")
	}
	// Rotation: a new current identity (the old one kept for decryption).
	newID, _ := age.GenerateX25519Identity()
	rotated, _ := NewKeyring([]*age.X25519Identity{newID, id})
	re, err := rotated.Reseal(old, []byte(plainSecret))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(re, old) {
		t.Fatal("a recipient change kept the old ciphertext")
	}
	if rs, _ := RecipientsOf(re); len(rs) != 1 || rs[0] != newID.Recipient().String() {
		t.Errorf("re-encrypted for %v", rs)
	}
}
