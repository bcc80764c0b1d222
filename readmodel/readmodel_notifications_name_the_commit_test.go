package readmodel_test

import (
	"context"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel/rmtest"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/status"
)

// A change that came from outside the API (a push, a merged pull request,
// a revert) is notified with the commit it came with, both when it is
// pending and when it settles; one made through the API (its trailers
// name the user) carries no commit, exactly as Magnum's payload.
func TestNotificationsNameTheCommitOfAGitChange(t *testing.T) {
	ctx := context.Background()
	f := newNotifyingFixture(t, rmtest.DSNs(t)["sqlite"], [2]string{"default-master", "master"}, [2]string{"default-worker", "worker"})
	settle := func(workers int64) { f.settle(workers, nil) }
	// Through the API: its trailers name who asked.
	h, err := f.store.Update(ctx, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		ch, err := repo.WriteCluster(sn, &f.tmpl, f.st, intent.Facts{})
		tp, _ := repo.Document(intent.TemplatePath("p", f.tmpl.UUID), f.tmpl)
		return &gitstore.Commit{Subject: "create c1", Author: gitstore.Signature{Name: "keel", Email: "keel@localhost"},
			Trailers: []gitstore.Trailer{{Key: gitstore.TrailerOperation, Value: status.OpCreate},
				{Key: gitstore.TrailerUser, Value: "u1"}, {Key: gitstore.TrailerProject, Value: "p"}},
			Changes: append(ch, tp)}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	f.sync()
	settle(1)
	// From outside: a commit by "t" (the fixture's author), no trailers
	// naming a user.
	f.st.NodeGroups[1].NodeCount = 2
	f.write("resize")
	settle(2)
	head, err := f.store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}

	ns, err := f.db.Notifications(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 6 {
		t.Fatalf("%d notifications, want 6 (create pending, success; the cluster's and its nodegroup's update pending, success)", len(ns))
	}
	for _, n := range ns[:2] {
		if n.Event.Commit != nil || n.Event.Initiator.UserID != "u1" {
			t.Errorf("%s %s through the API (commit %s): initiator %+v, commit %+v; want u1 and no commit", n.Event.Action, n.Event.Outcome, h, n.Event.Initiator, n.Event.Commit)
		}
	}
	for _, n := range ns[2:] {
		cm := n.Event.Commit
		if cm == nil || cm.ID != head.Commit().String() || cm.Subject != "resize" || cm.Author != "t" || n.Event.Initiator.Name != "t" {
			t.Errorf("%s %s from Git: commit %+v, initiator %+v; want the commit %s (resize, by t)", n.Event.Action, n.Event.Outcome, cm, n.Event.Initiator, head.Commit())
		}
	}
}
