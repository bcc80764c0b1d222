package github

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/internal/testing/forgetest"
)

// TestOpenPullRequests: the listing asks for open pull requests, follows
// the Link header's next page, and stops at forge.MaxOpen however many
// pages GitHub offers (a recording of the "List pull requests" example,
// its one pull request repeated to fill pages).
func TestOpenPullRequests(t *testing.T) {
	const path = "/api/v3/repos/octocat/Hello-World/pulls"
	next := func(page int) http.Header {
		return http.Header{"Link": {fmt.Sprintf(`<https://api.github.com/repositories/1296269/pulls?page=%d>; rel="next"`, page)}}
	}
	full := forgetest.Repeat(t, "testdata/pulls-list.json", pageSize)
	var endless []forgetest.Exchange
	for page := 1; page <= forge.MaxOpen/pageSize; page++ {
		endless = append(endless, forgetest.Exchange{Method: http.MethodGet, Path: path,
			Query:  map[string]string{"state": "open", "page": strconv.Itoa(page), "per_page": strconv.Itoa(pageSize)},
			Header: next(page + 1), RecordingBody: full})
	}
	for _, tc := range []struct {
		name      string
		exchanges []forgetest.Exchange
		want      int
	}{
		{name: "two pages", want: pageSize + 1, exchanges: []forgetest.Exchange{
			{Method: http.MethodGet, Path: path, Query: map[string]string{"state": "open", "page": "1"},
				Header: next(2), RecordingBody: full},
			{Method: http.MethodGet, Path: path, Query: map[string]string{"state": "open", "page": "2"},
				Recording: "testdata/pulls-list.json"},
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
				t.Fatalf("%d pull requests, want %d", len(got), tc.want)
			}
			if got[0].Number != 1347 || got[0].State != forge.Open || got[0].Head != "new-topic" {
				t.Errorf("first: %+v", got[0])
			}
		})
	}
}
