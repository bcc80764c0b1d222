package repo

import (
	"bytes"
	"path"
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/internal/secrets"
)

// After an age key rotation (a new current identity, the old one kept to
// decrypt), the next write of a cluster re-encrypts its key document and
// Secrets for the new recipient only, and records it in .sops.yaml.
func TestKeyRotationReencryptsOnNextWrite(t *testing.T) {
	store, err := gitstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	oldKR, oldID, err := secrets.GenerateKeyring()
	if err != nil {
		t.Fatal(err)
	}
	tmpl, st := testCluster()
	if err := write(t, store, tmpl, st, WithSecrets(&Secrets{Keyring: oldKR})); err != nil {
		t.Fatal(err)
	}
	newID, _ := age.GenerateX25519Identity()
	newKR, err := secrets.NewKeyring([]*age.X25519Identity{newID, oldID})
	if err != nil {
		t.Fatal(err)
	}
	if err := write(t, store, tmpl, st, WithSecrets(&Secrets{Keyring: newKR})); err != nil {
		t.Fatal(err)
	}
	encrypted, secretFiles := 0, 0
	for p, data := range readAll(t, store, st.Dir) {
		if strings.HasPrefix(path.Base(p), compiler.SecretFilePrefix) {
			secretFiles++
		}
		if !secrets.IsEncrypted(data) {
			continue
		}
		encrypted++
		rs, err := secrets.RecipientsOf(data)
		if err != nil || len(rs) != 1 || rs[0] != newID.Recipient().String() {
			t.Errorf("%s: recipients %v (%v)", p, rs, err)
		}
	}
	// pki.sops.yaml and every rendered Secret (CAs, CAPO's cloud
	// credential, the addons' payload Secrets).
	if secretFiles < 6 || encrypted != secretFiles+1 {
		t.Errorf("%d encrypted documents, want %d (pki.sops.yaml and %d rendered Secrets)", encrypted, secretFiles+1, secretFiles)
	}
	onlyNew, _ := secrets.NewKeyring([]*age.X25519Identity{newID})
	sn, _ := store.SnapshotHead()
	if _, err := LoadPKI(sn, st.Dir, onlyNew); err != nil {
		t.Errorf("the new identity alone cannot read the key document: %v", err)
	}
	cfg, _ := sn.ReadFile(secrets.SOPSConfigPath)
	if !bytes.Contains(cfg, []byte(newID.Recipient().String())) || bytes.Contains(cfg, []byte(oldID.Recipient().String())) {
		t.Errorf(".sops.yaml after rotation:\n%s", cfg)
	}
}
