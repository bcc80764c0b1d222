package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openkeel/keel/gitstore"
)

// keel import refuses bad input with a message naming it, the password
// never shown, and the repository left as it was. (What a Magnum database
// holds is tested in magnumimport, on MariaDB, PostgreSQL and SQLite.)
func TestImportBadInput(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo.git")
	st, err := gitstore.Open(repo)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := st.Head()
	cloudsYAML := filepath.Join(t.TempDir(), "clouds.yaml")
	if err := os.WriteFile(cloudsYAML, []byte("clouds:\n  magnum:\n    auth:\n      auth_url: http://127.0.0.1:1/v3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OS_CLIENT_CONFIG_FILE", cloudsYAML)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no URL", []string{"--repo", repo}, `required flag(s) "magnum-db" not set`},
		{"not a database URL", []string{"--repo", repo, "--magnum-db", "magnum.example.com"}, "is not a database URL"},
		{"unknown database", []string{"--repo", repo, "--magnum-db", "oracle://magnum:topsecret@db/magnum"}, `database "oracle" is not one keel reads`},
		{"database that does not answer", []string{"--repo", repo, "--plan", "--magnum-db", "mysql+pymysql://magnum:topsecret@127.0.0.1:1/magnum"},
			"the Magnum database does not answer: mysql+pymysql://magnum@127.0.0.1:1/magnum"},
		{"--adopt without --kubeconfig", []string{"--repo", repo, "--adopt", "--magnum-db", "sqlite:////nonexistent.db"}, "--adopt needs --kubeconfig"},
		{"--kubeconfig without --adopt", []string{"--repo", repo, "--kubeconfig", "k", "--magnum-db", "sqlite:////nonexistent.db"}, "--kubeconfig and --adopt-changes are for --adopt"},
		{"unreadable kubeconfig", []string{"--repo", repo, "--adopt", "--kubeconfig", filepath.Join(t.TempDir(), "none"), "--magnum-db", "sqlite:////nonexistent.db"}, "--kubeconfig "},
		{"cloud not in clouds.yaml", []string{"--repo", repo, "--os-cloud", "nosuch", "--magnum-db", "sqlite:////nonexistent.db"},
			"--os-cloud nosuch: clouds.yaml"},
		{"missing repository", []string{"--repo", filepath.Join(t.TempDir(), "none.git"), "--magnum-db", "sqlite:////nonexistent.db"}, "--repo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := importCmd()
			var out bytes.Buffer
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			cmd.SetArgs(tc.args)
			err := cmd.Execute()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error()+out.String(), "topsecret") {
				t.Errorf("the password was shown: %v\n%s", err, out.String())
			}
			if after, _ := st.Head(); after != before {
				t.Error("the repository changed")
			}
		})
	}
}
