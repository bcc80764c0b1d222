package gitlab

import (
	"context"
	"net/http"
	"testing"

	"github.com/openkeel/keel/internal/testing/forgetest"
)

// TestComment: a comment is a note on the merge request, addressed by its
// iid (a recording of the "Create new merge request note" example).
func TestComment(t *testing.T) {
	f := replay(t, forgetest.Exchange{
		Method: http.MethodPost, Path: project + "/merge_requests/2/notes",
		Body: `{"body":"Comment for MR"}`, Status: http.StatusCreated, Recording: "testdata/note.json",
	})
	if err := f.Comment(context.Background(), 2, "Comment for MR"); err != nil {
		t.Fatal(err)
	}
}
