package github

import (
	"context"
	"net/http"
	"testing"

	"github.com/openkeel/keel/internal/testing/forgetest"
)

// TestComment: a comment on a pull request is a comment on its issue (a
// recording of the "Create an issue comment" example).
func TestComment(t *testing.T) {
	f := replay(t, forgetest.Exchange{
		Method: http.MethodPost, Path: "/api/v3/repos/octocat/Hello-World/issues/1347/comments",
		Body: `{"body":"Me too"}`, Status: http.StatusCreated, Recording: "testdata/issue-comment.json",
	})
	if err := f.Comment(context.Background(), 1347, "Me too"); err != nil {
		t.Fatal(err)
	}
}
