package restapi

import (
	"context"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/schemas"
)

// commitSite commits a site.cue to the repository as an operator's push
// would: straight to Git, not through the API.
func (a *testAPI) commitSite(src string) {
	a.t.Helper()
	_, err := a.store.Update(context.Background(), func(*gitstore.Snapshot) (*gitstore.Commit, error) {
		return &gitstore.Commit{
			Subject: "site: narrow the schema",
			Author:  gitstore.Signature{Name: "operator", Email: "ops@example.com"},
			Changes: []gitstore.Change{{Path: schemas.SiteFile, Data: []byte(src)}},
		}, nil
	})
	if err != nil {
		a.t.Fatal(err)
	}
}
