package restapi

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/openkeel/keel/forge/gitea"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/internal/giteatest"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/restapi/auth"
	"github.com/openkeel/keel/review"
)

// reviewAPI is an API in review mode on a real Gitea: keel's repository
// follows Gitea's "clusters" repository, whose pull requests it opens.
type reviewAPI struct {
	srv    *giteatest.Server
	clone  string
	forge  *gitea.Forge
	review *review.Mode
	a      *testAPI
}

func newReviewAPI(t *testing.T) *reviewAPI {
	t.Helper()
	srv := giteatest.Start(t)
	t.Logf("gitea %s set up and answering in %s", giteatest.Version, srv.StartTime)
	clone := srv.CreateRepo(t, "clusters")
	f, err := gitea.FromRepoURL(clone, srv.Token)
	if err != nil {
		t.Fatal(err)
	}
	rv := &reviewAPI{srv: srv, clone: clone, forge: f}
	rv.a, rv.review = rv.start(t)
	return rv
}

// start runs one keel API process on its own data folder: a second call
// is another replica, or the same one after a restart.
func (rv *reviewAPI) start(t *testing.T) (*testAPI, *review.Mode) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	store, err := gitstore.OpenRemote(ctx, filepath.Join(dir, "repo.git"), &gitstore.Remote{
		URL: rv.clone, Auth: &githttp.BasicAuth{Username: giteatest.User, Password: rv.srv.Token}})
	if err != nil {
		t.Fatal(err)
	}
	db, err := readmodel.Open(ctx, filepath.Join(dir, "keel.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	mode := review.New(rv.forge, store, nil)
	api := New(Config{Store: store, DB: db, Auth: auth.NoAuth{DefaultProject: "p1"}, ClusterClass: "magnum-v0.1.0", Review: mode})
	hs := httptest.NewServer(api)
	t.Cleanup(hs.Close)
	if err := db.Sync(ctx, store); err != nil {
		t.Fatal(err)
	}
	return &testAPI{t: t, srv: hs, store: store, db: db, api: api}, mode
}
