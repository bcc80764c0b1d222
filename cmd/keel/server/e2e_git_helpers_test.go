package server

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"

	"github.com/openkeel/keel/restapi/auth"
)

// newGitServer creates the empty bare repository a Git server would hold,
// with the git CLI.
func newGitServer(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clusters.git")
	gitCLI(t, ".", "init", "-q", "--bare", "-b", "main", dir)
	return dir
}

func gitCLI(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=reviewer", "GIT_AUTHOR_EMAIL=reviewer@example.org",
		"GIT_COMMITTER_NAME=reviewer", "GIT_COMMITTER_EMAIL=reviewer@example.org")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// startKeelRemote starts keel following the Git server at remote.
func startKeelRemote(t *testing.T, remote string, interval time.Duration, secret string) (*Instance, *gophercloud.ServiceClient) {
	t.Helper()
	return startKeelWith(t, "1.10", func(o *Options) {
		o.Auth = auth.NoAuth{DefaultProject: "p-" + t.Name(), Admin: true}
		o.GitRemote, o.GitRemoteInterval, o.GitWebhookSecret = remote, interval, secret
	})
}

func createTemplate(t *testing.T, sc *gophercloud.ServiceClient, name string) *clustertemplates.ClusterTemplate {
	t.Helper()
	tmpl, err := createTemplateErr(sc, name)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

func createTemplateErr(sc *gophercloud.ServiceClient, name string) (*clustertemplates.ClusterTemplate, error) {
	return clustertemplates.Create(context.Background(), sc, clustertemplates.CreateOpts{
		Name: name, COE: "kubernetes", ImageID: "ubuntu-2204-kube-v1.33", FlavorID: "m1.medium",
		MasterFlavorID: "m1.large", ExternalNetworkID: "public", Labels: map[string]string{"kube_tag": "v1.33.4"},
	}).Extract()
}

// pushEdit clones the Git server, lets edit change the work tree, and
// pushes the result to main, as a merged pull request would land.
func pushEdit(t *testing.T, remote, message string, edit func(work string)) string {
	t.Helper()
	work := filepath.Join(t.TempDir(), "work")
	gitCLI(t, ".", "clone", "-q", remote, work)
	edit(work)
	gitCLI(t, work, "add", "-A")
	gitCLI(t, work, "commit", "-q", "-m", message)
	gitCLI(t, work, "push", "-q", "origin", "HEAD:main")
	return gitCLI(t, work, "rev-parse", "HEAD")
}

// renameTemplateInGit rewrites the name in a template's YAML.
func renameTemplateInGit(t *testing.T, work, project, uuid, from, to string) {
	t.Helper()
	p := filepath.Join(work, "projects", project, "clustertemplates", uuid+".yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "name: "+from+"\n", "name: "+to+"\n", 1)
	if s == string(b) {
		t.Fatalf("no `name: %s` line in %s:\n%s", from, p, b)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
