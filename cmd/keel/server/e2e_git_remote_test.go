package server

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
)

// With --git-remote the Git server is the source of truth both ways: an API
// create is on the server's main by the time the API answers, and a commit
// merged on the server (removing a cluster's folder) reaches the read model
// and the reconciler through the periodic fetch.
func TestGitRemoteIsTheSourceOfTruth(t *testing.T) {
	remote := newGitServer(t)
	in, sc := startKeelRemote(t, remote, 300*time.Millisecond, "")
	ctx := context.Background()
	tmpl := createTemplate(t, sc, "k8s")
	masters, nodes := 1, 1
	id, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: "pr-a", ClusterTemplateID: tmpl.UUID, MasterCount: &masters, NodeCount: &nodes}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	head, err := in.Store.Head()
	if err != nil {
		t.Fatal(err)
	}
	if got := gitCLI(t, remote, "rev-parse", "main"); got != head.String() {
		t.Fatalf("the Git server's main is %s, keel's %s: the API answered before the server had the commit", got, head)
	}
	if subject := gitCLI(t, remote, "log", "-1", "--format=%s", "main"); !strings.Contains(subject, "cluster pr-a: create") {
		t.Fatalf("the server's last commit is %q, want the cluster's create", subject)
	}

	pushEdit(t, remote, "remove cluster pr-a", func(work string) {
		dirs, _ := filepath.Glob(filepath.Join(work, "projects", "*", "clusters", "pr-a-*"))
		if len(dirs) != 1 {
			t.Fatalf("cluster folders of pr-a on the server: %v", dirs)
		}
		if err := os.RemoveAll(dirs[0]); err != nil {
			t.Fatal(err)
		}
	})
	// Only the pushed removal can delete the cluster: its objects go, then
	// it leaves the API (as Magnum's DELETE_COMPLETE rows do), even when the
	// reconciler finishes before the read model projects the removal.
	waitFor(t, 90*time.Second, "the cluster removed on the Git server to leave the API", func() bool {
		_, err := clusters.Get(ctx, sc, id).Extract()
		return gophercloud.ResponseCodeIs(err, http.StatusNotFound)
	})

	// Without KEEL_GIT_WEBHOOK_SECRET there is no webhook.
	resp, err := http.Post(in.URL+"/hooks/git", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("POST /hooks/git without a secret: %d, want 404", resp.StatusCode)
	}
}
