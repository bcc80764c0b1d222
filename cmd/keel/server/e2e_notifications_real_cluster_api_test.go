package server

import (
	"context"
	"net/http"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/nodegroups"

	"github.com/openkeel/keel/internal/testing/rabbitmqtest"
)

// A cluster's and a nodegroup's operations on Cluster API's own
// controllers, made through the API and through Git, reach a real
// oslo.messaging listener as Magnum's notifications with their outcomes:
// pending at the change, success when the status settles (the observer's,
// not a poll's), the nodegroup's own notifications beside the cluster's
// (additions), and a change pushed to Git (a revert) initiated by its
// author with its commit attached.
func TestNotificationsFollowOperationsOnRealClusterAPI(t *testing.T) {
	t.Parallel() // mostly waiting for Cluster API
	ctx := context.Background()
	rmq := rabbitmqtest.Start(t)
	listener := startOsloListener(t, rmq)
	remote := newGitServer(t)
	project := "p-" + t.Name()
	_, sc := startRealKeelWith(t, "1.10", func(o *Options) {
		o.Notifications = &NotificationOptions{URL: rmq.URL(), Host: "keel-test"}
		o.GitRemote, o.GitRemoteInterval = remote, time.Second
	})
	tmpl := realTemplate(t, sc, "", "calico", nil)
	next := realTemplate(t, sc, "next", "calico", map[string]string{"calico_tag": "v3.30.2"})
	c := createRealCluster(t, sc, "notified", tmpl.UUID, 1, 1)
	worker := defaultWorker(t, ctx, sc, c.UUID)
	two := 2
	if _, err := clusters.Resize(ctx, sc, c.UUID, clusters.ResizeOpts{NodeCount: &two}).Extract(); err != nil {
		t.Fatal(err)
	}
	waitRealStatus(t, sc, c.UUID, "UPDATE_COMPLETE", realWait)
	// An operator rolls the resize back in Git.
	reverted := revertHead(t, remote)
	waitFor(t, realWait, "the revert's one worker, UPDATE_COMPLETE", func() bool {
		cl, err := clusters.Get(ctx, sc, c.UUID).Extract()
		return err == nil && cl.NodeCount == 1 && cl.Status == "UPDATE_COMPLETE"
	})
	// A new addon release: the cluster changes, its machines do not.
	if _, err := clusters.Upgrade(ctx, sc, c.UUID, clusters.UpgradeOpts{ClusterTemplate: next.UUID}).Extract(); err != nil {
		t.Fatal(err)
	}
	waitRealStatus(t, sc, c.UUID, "UPDATE_COMPLETE", realWait)
	one := 1
	ng, err := nodegroups.Create(ctx, sc, c.UUID, nodegroups.CreateOpts{Name: "extra", NodeCount: &one}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	waitNodeGroupStatus(t, sc, c.UUID, "extra", "CREATE_COMPLETE", realWait)
	waitRealStatus(t, sc, c.UUID, "UPDATE_COMPLETE", realWait)
	if err := nodegroups.Delete(ctx, sc, c.UUID, "extra").ExtractErr(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, realWait, "nodegroup extra gone", func() bool {
		_, err := nodegroups.Get(ctx, sc, c.UUID, "extra").Extract()
		return gophercloud.ResponseCodeIs(err, http.StatusNotFound)
	})
	waitRealStatus(t, sc, c.UUID, "UPDATE_COMPLETE", realWait)
	if err := clusters.Delete(ctx, sc, c.UUID).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, realWait, "cluster gone", func() bool {
		_, err := clusters.Get(ctx, sc, c.UUID).Extract()
		return gophercloud.ResponseCodeIs(err, http.StatusNotFound)
	})

	// The cluster: its create, resize, the revert, upgrade, a nodegroup's
	// create and delete, its delete; the nodegroups their own.
	pair := func(op string) []string { return []string{op + " pending", op + " success"} }
	want := map[string][]string{
		c.UUID: slices.Concat(pair("create"), pair("update"), []string{"update pending git", "update success git"},
			pair("update"), pair("update"), pair("update"), pair("delete")),
		worker:  slices.Concat(pair("update"), []string{"update pending git", "update success git"}),
		ng.UUID: slices.Concat(pair("create"), pair("delete")),
	}
	got := listener.waitFor(t, "every operation's notifications", func(r []received) bool {
		for id, w := range want {
			if len(operations(r, id, reverted)) < len(w) {
				return false
			}
		}
		return true
	})
	for id, w := range want {
		if ops := operations(got, id, reverted); !reflect.DeepEqual(ops[:min(len(ops), len(w))], w) || (id != worker && len(ops) != len(w)) {
			t.Errorf("%s: %q, want %q", id, ops, w)
		}
	}
	checkInitiators(t, got, project)
	t.Logf("received (deduplicated): %q", summary(got))
	logSettledDelays(t, got)
}

// logSettledDelays logs, for the notifications of a settled status, the
// delay from the status change to the listener (the figure
// docs/notifications.md gives).
func logSettledDelays(t *testing.T, rs []received) {
	t.Helper()
	var ds []time.Duration
	for _, r := range rs {
		if r.outcome() == "success" || r.outcome() == "failure" {
			d, err := r.delay()
			if err != nil {
				t.Fatal(err)
			}
			ds = append(ds, d)
		}
	}
	slices.Sort(ds)
	if len(ds) > 0 {
		t.Logf("status change to listener, %d settled notifications: median %s, max %s", len(ds), ds[len(ds)/2], ds[len(ds)-1])
	}
}

// defaultWorker is the uuid of the cluster's default-worker nodegroup.
func defaultWorker(t *testing.T, ctx context.Context, sc *gophercloud.ServiceClient, cluster string) string {
	t.Helper()
	g, err := nodegroups.Get(ctx, sc, cluster, "default-worker").Extract()
	if err != nil {
		t.Fatal(err)
	}
	return g.UUID
}

// revertHead reverts the Git server's last commit, as an operator rolling
// back would, and returns the revert's hash.
func revertHead(t *testing.T, remote string) string {
	t.Helper()
	work := filepath.Join(t.TempDir(), "work")
	gitCLI(t, ".", "clone", "-q", remote, work)
	gitCLI(t, work, "revert", "--no-edit", "HEAD")
	gitCLI(t, work, "push", "-q", "origin", "HEAD:main")
	return gitCLI(t, work, "rev-parse", "HEAD")
}

// operations are the "action outcome [git]" of the notifications whose
// target is id (health changes aside), in arrival order; "git" marks those
// that carry the commit want.
func operations(rs []received, id, commit string) []string {
	var out []string
	for _, r := range rs {
		if r.target()["id"] != id || r.EventType == "magnum.cluster.health" {
			continue
		}
		op := r.Payload["action"].(string) + " " + r.outcome()
		if attachment(&r, "commit")["id"] == commit {
			op += " git"
		}
		out = append(out, op)
	}
	return out
}

// checkInitiators: a change through the API names the caller's project; a
// change pushed to Git names the commit's author; the event type names
// what the target is.
func checkInitiators(t *testing.T, rs []received, project string) {
	t.Helper()
	for _, r := range rs {
		initiator, _ := r.Payload["initiator"].(map[string]any)
		kind := strings.TrimPrefix(strOf(r.target()["typeURI"]), "service/magnum/")
		switch {
		case !strings.HasPrefix(r.EventType, "magnum."+kind+"."):
			t.Errorf("%s about a %s", r.EventType, kind)
		case r.EventType == "magnum.cluster.health":
		case attachment(&r, "commit") != nil:
			if initiator["name"] != "reviewer" {
				t.Errorf("%s %s from Git: initiator %v, want the commit's author", r.EventType, r.outcome(), initiator)
			}
		case initiator["project_id"] != project:
			t.Errorf("%s %s: initiator %v, want project %s", r.EventType, r.outcome(), initiator, project)
		}
	}
}

// attachment is the content of the payload's target attachment name.
func attachment(r *received, name string) map[string]any {
	as, _ := r.target()["attachments"].([]any)
	for _, a := range as {
		if m, _ := a.(map[string]any); m["name"] == name {
			content, _ := m["content"].(map[string]any)
			return content
		}
	}
	return nil
}
