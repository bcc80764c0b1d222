package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"
)

// The identity is created once, mode 0600, and reused; a key file others
// can read is refused; extra recipients from age.recipients are added.
func TestLoadKeyringCreatesAndReusesIdentity(t *testing.T) {
	dir := t.TempDir()
	k1, err := LoadKeyring(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, IdentityFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("age.key mode %o, want 600", st.Mode().Perm())
	}
	k2, err := LoadKeyring(dir)
	if err != nil {
		t.Fatal(err)
	}
	if k1.Current() != k2.Current() || !strings.HasPrefix(k1.Current(), "age1") {
		t.Fatalf("identity changed across loads: %s vs %s", k1.Current(), k2.Current())
	}
	enc, err := k1.Encrypt([]byte(plainSecret))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k2.Decrypt(enc); err != nil {
		t.Fatal(err)
	}

	extra, _ := age.GenerateX25519Identity()
	if err := os.WriteFile(filepath.Join(dir, RecipientsFile), []byte("# break-glass\n"+extra.Recipient().String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k3, err := LoadKeyring(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(k3.Recipients()) != 2 {
		t.Fatalf("recipients %v", k3.Recipients())
	}
	enc, _ = k3.Encrypt([]byte(plainSecret))
	breakGlass, _ := NewKeyring([]*age.X25519Identity{extra})
	if _, err := breakGlass.Decrypt(enc); err != nil {
		t.Errorf("the extra recipient cannot decrypt: %v", err)
	}

	if err := os.Chmod(filepath.Join(dir, IdentityFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKeyring(dir); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("world-readable key accepted: %v", err)
	}
}
