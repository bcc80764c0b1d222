package gitlab

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/internal/testing/forgetest"
)

// TestOpenPullRequests: the listing asks for opened merge requests,
// follows X-Next-Page, and stops at forge.MaxOpen however many pages GitLab
// offers (a recording of the "List project merge requests" example, its
// one merge request repeated to fill pages).
func TestOpenPullRequests(t *testing.T) {
	const path = project + "/merge_requests"
	next := func(page int) http.Header { return http.Header{"X-Next-Page": {strconv.Itoa(page)}} }
	full := forgetest.Repeat(t, "testdata/mrs-list.json", pageSize)
	var endless []forgetest.Exchange
	for page := 1; page <= forge.MaxOpen/pageSize; page++ {
		endless = append(endless, forgetest.Exchange{Method: http.MethodGet, Path: path,
			Query:  map[string]string{"state": "opened", "page": strconv.Itoa(page), "per_page": strconv.Itoa(pageSize)},
			Header: next(page + 1), RecordingBody: full})
	}
	for _, tc := range []struct {
		name      string
		exchanges []forgetest.Exchange
		want      int
	}{
		{name: "two pages", want: pageSize + 1, exchanges: []forgetest.Exchange{
			{Method: http.MethodGet, Path: path, Query: map[string]string{"state": "opened", "page": "1"},
				Header: next(2), RecordingBody: full},
			{Method: http.MethodGet, Path: path, Query: map[string]string{"state": "opened", "page": "2"},
				Recording: "testdata/mrs-list.json"},
		}},
		// Each page promises another: the replay fails on a request past
		// MaxOpen.
		{name: "bounded", want: forge.MaxOpen, exchanges: endless},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := replay(t, tc.exchanges...).OpenPullRequests(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want {
				t.Fatalf("%d merge requests, want %d", len(got), tc.want)
			}
			if got[0].Number != 1 || got[0].State != forge.Open || got[0].Head != "test1" {
				t.Errorf("first: %+v", got[0])
			}
		})
	}
}
