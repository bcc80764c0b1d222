package restapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"testing"
)

// Without a sort_key, cluster lists page in creation order, either way,
// from the marker on, in the caller's project only: the read model reads
// just the page, and the pages join into the whole list.
func TestClusterPagesInCreationOrder(t *testing.T) {
	a := newTestAPI(t)
	tm := a.template(member, "t1", nil)
	var made []string
	for _, name := range []string{"bravo", "alpha", "charlie"} {
		made = append(made, a.cluster(member, name, tm.UUID, 1))
	}
	a.cluster(member2, "other", a.template(member2, "t2", nil).UUID, 1)
	page := func(query string) (uuids []string, next string) {
		t.Helper()
		r := a.do(member, "1.10", "GET", "/v1/clusters/detail?"+query, nil)
		var out struct {
			Clusters []struct {
				UUID string `json:"uuid"`
			} `json:"clusters"`
			Next string `json:"next"`
		}
		if r.status != http.StatusOK || json.Unmarshal(r.body, &out) != nil {
			t.Fatalf("%s: %d %s", query, r.status, r.body)
		}
		for _, c := range out.Clusters {
			uuids = append(uuids, c.UUID)
		}
		return uuids, out.Next
	}
	first, next := page("limit=2")
	if !slices.Equal(first, made[:2]) || next == "" {
		t.Fatalf("first page %v (next %q), want %v", first, next, made[:2])
	}
	u, err := url.Parse(next)
	if err != nil || u.Query().Get("marker") != made[1] || u.Query().Get("sort_key") != "id" {
		t.Fatalf("next link %q", next)
	}
	if rest, next := page(u.RawQuery); !slices.Equal(rest, made[2:]) || next != "" {
		t.Errorf("second page %v (next %q), want %v", rest, next, made[2:])
	}
	if back, _ := page("sort_dir=desc&marker=" + made[2]); !slices.Equal(back, []string{made[1], made[0]}) {
		t.Errorf("descending after the last: %v", back)
	}
	if all, _ := page(""); !slices.Equal(all, made) {
		t.Errorf("no limit: %v, want %v", all, made)
	}
	expectError(t, a.do(member2, "1.10", "GET", "/v1/clusters?marker="+made[0], nil), http.StatusNotFound, "could not be found")
	expectError(t, a.do(member, "1.10", "GET", "/v1/clusters?marker=nope", nil), http.StatusBadRequest, "Expected a uuid")
	expectError(t, a.do(member, "1.10", "GET", "/v1/clusters?sort_dir=up", nil), http.StatusBadRequest, "Invalid sort direction")
}
