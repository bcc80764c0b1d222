package gitlab

import (
	"context"
	"net/http"
	"testing"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/internal/testing/forgetest"
)

// TestOpenPullRequest: opening a pull request creates a merge request of
// the head branch into the base, titled, with the body as its description;
// its number is the merge request's iid (a recording of the "Create MR"
// example).
func TestOpenPullRequest(t *testing.T) {
	f := replay(t, forgetest.Exchange{
		Method: http.MethodPost, Path: project + "/merge_requests",
		Body: `{"source_branch":"test1","target_branch":"master","title":"test1",
			"description":"fixed login page css paddings"}`,
		Status: http.StatusCreated, Recording: "testdata/mr-create.json",
	})
	got, err := f.OpenPullRequest(context.Background(), forge.NewPullRequest{
		Head: "test1", Base: "master", Title: "test1", Body: "fixed login page css paddings",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := forge.PullRequest{Number: 1, URL: "http://gitlab.example.com/my-group/my-project/merge_requests/1",
		State: forge.Open, Head: "test1", Body: "fixed login page css paddings"}
	if *got != want {
		t.Errorf("got %+v, want %+v", *got, want)
	}
}
