package secrets

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"
)

// $KEEL_AGE_KEY (a Kubernetes Secret as an environment variable) replaces
// DATA-DIR/age.key: its first identity is the current one, even over an
// existing file; no file is created; a bad value is refused without being
// echoed.
func TestKeyringFromEnvironment(t *testing.T) {
	envID, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	fileID, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, env string
		file      bool // a DATA-DIR/age.key with fileID exists
		want      string
		wantErr   bool
	}{
		{name: "env only", env: "# comment\n" + envID.String() + "\n", want: envID.Recipient().String()},
		{name: "env wins over the file", env: envID.String(), file: true, want: envID.Recipient().String()},
		{name: "not an identity", env: "AGE-SECRET-KEY-1NOTAKEY", wantErr: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.file {
				if err := os.WriteFile(filepath.Join(dir, IdentityFile), []byte(fileID.String()+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv(IdentityEnv, c.env)
			k, err := LoadKeyring(dir)
			if c.wantErr {
				if err == nil || strings.Contains(err.Error(), c.env) {
					t.Fatalf("LoadKeyring: %v, want an error that does not echo the value", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if k.Current() != c.want {
				t.Errorf("current recipient %s, want %s", k.Current(), c.want)
			}
			if _, err := os.Stat(filepath.Join(dir, IdentityFile)); !c.file && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("age.key was created (stat: %v); the identity must stay in the environment", err)
			}
		})
	}
}
