package gitlab

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/internal/testing/forgetest"
)

// TestNotFound: GitLab's 404 is forge.ErrNotFound for a merge request read
// or commented on; another failure is not, and is not retried (a recording
// of GitLab's documented 404 body).
func TestNotFound(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ex       forgetest.Exchange
		call     func(*Forge) error
		notFound bool
	}{
		{name: "get", notFound: true,
			ex: forgetest.Exchange{Method: http.MethodGet, Path: project + "/merge_requests/7",
				Status: http.StatusNotFound, Recording: "testdata/not-found.json"},
			call: func(f *Forge) error { _, err := f.PullRequest(context.Background(), 7); return err }},
		{name: "note", notFound: true,
			ex: forgetest.Exchange{Method: http.MethodPost, Path: project + "/merge_requests/7/notes",
				Body: `{"body":"hi"}`, Status: http.StatusNotFound, Recording: "testdata/not-found.json"},
			call: func(f *Forge) error { return f.Comment(context.Background(), 7, "hi") }},
		// One exchange: a retry would be a request the replay refuses.
		{name: "server error",
			ex: forgetest.Exchange{Method: http.MethodGet, Path: project + "/merge_requests/7",
				Status: http.StatusBadGateway, RecordingBody: []byte(`{"message":"502 Bad Gateway"}`)},
			call: func(f *Forge) error { _, err := f.PullRequest(context.Background(), 7); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call(replay(t, tc.ex))
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, forge.ErrNotFound) != tc.notFound {
				t.Errorf("%v: is ErrNotFound %v, want %v", err, !tc.notFound, tc.notFound)
			}
		})
	}
}
