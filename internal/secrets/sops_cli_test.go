package secrets

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"
)

// sopsBinary finds the sops CLI (PATH, then GOPATH/bin where
// `go install github.com/getsops/sops/v3/cmd/sops@v3.13.3` puts it). The
// test is skipped without it, unless KEEL_REQUIRE_SOPS=1.
func sopsBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("sops"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "sops")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("KEEL_REQUIRE_SOPS") == "1" {
		t.Fatal("sops is not installed and KEEL_REQUIRE_SOPS=1")
	}
	t.Skip("sops not installed (go install github.com/getsops/sops/v3/cmd/sops@v3.13.3)")
	return ""
}

// The real sops CLI decrypts what keel encrypts, and keel decrypts what
// sops encrypts with the .sops.yaml keel writes: the format is SOPS', so
// Flux and operators can use the files.
func TestSOPSCLIInterop(t *testing.T) {
	sops := sopsBinary(t)
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewKeyring([]*age.X25519Identity{id})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "age.key")
	if err := os.WriteFile(keyFile, []byte(id.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(stdin []byte, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(sops, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SOPS_AGE_KEY_FILE="+keyFile, "SOPS_DISABLE_VERSION_CHECK=1")
		cmd.Stdin = bytes.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("sops %v: %v\n%s", args, err, stderr.String())
		}
		return out
	}

	// keel → sops -d
	enc, err := k.Encrypt([]byte(plainSecret))
	if err != nil {
		t.Fatal(err)
	}
	plain := run(enc, "--decrypt", "--input-type", "yaml", "--output-type", "yaml", "/dev/stdin")
	if !SameContent(plain, []byte(plainSecret)) {
		t.Fatalf("sops -d gave:\n%s", plain)
	}

	// sops -e (configured by keel's .sops.yaml) → keel
	if err := os.WriteFile(filepath.Join(dir, ".sops.yaml"), k.SOPSConfig(), 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "secret.yaml")
	if err := os.WriteFile(src, []byte(plainSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	sopsEnc := run(nil, "--encrypt", src)
	if strings.Contains(string(sopsEnc), "s3cr3t-value") || !strings.Contains(string(sopsEnc), "name: kube-abcde-ca") {
		t.Fatalf("sops did not apply keel's creation rule:\n%s", sopsEnc)
	}
	dec, err := k.Decrypt(sopsEnc)
	if err != nil {
		t.Fatalf("keel cannot decrypt a sops-encrypted file: %v\n%s", err, sopsEnc)
	}
	if !SameContent(dec, []byte(plainSecret)) {
		t.Fatalf("keel decrypted:\n%s", dec)
	}
}
