package github

import (
	"context"
	"net/http"
	"testing"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/internal/testing/forgetest"
)

// TestOpenPullRequest: opening a pull request posts head, base, title and
// body, and reads the new pull request's number, web page and head from
// GitHub's answer (a recording of the "Create a pull request" example).
func TestOpenPullRequest(t *testing.T) {
	f := replay(t, forgetest.Exchange{
		Method: http.MethodPost, Path: "/api/v3/repos/octocat/Hello-World/pulls",
		Body: `{"title":"Amazing new feature","body":"Please pull these awesome changes in!",
			"head":"new-topic","base":"master"}`,
		Status: http.StatusCreated, Recording: "testdata/pull-create.json",
	})
	got, err := f.OpenPullRequest(context.Background(), forge.NewPullRequest{
		Head: "new-topic", Base: "master", Title: "Amazing new feature", Body: "Please pull these awesome changes in!",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := forge.PullRequest{Number: 1347, URL: "https://github.com/octocat/Hello-World/pull/1347",
		State: forge.Open, Head: "new-topic", Body: "Please pull these awesome changes in!"}
	if *got != want {
		t.Errorf("got %+v, want %+v", *got, want)
	}
}
