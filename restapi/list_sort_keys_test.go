package restapi

import (
	"encoding/json"
	"net/http"
	"testing"
)

// sort_key names a field of the listed view: scalar fields (pointers
// included) sort, in either direction; a map or list, or a field the view
// leaves out at that microversion, is a 400; the marker pages on.
func TestListSortKeys(t *testing.T) {
	a := newTestAPI(t)
	tm := a.template(member, "t1", nil)
	for _, name := range []string{"bravo", "alpha", "charlie"} {
		a.cluster(member, name, tm.UUID, 1)
	}
	names := func(mv, query string) []string {
		t.Helper()
		r := a.do(member, mv, "GET", "/v1/clusters?"+query, nil)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", query, r.status, r.body)
		}
		var out struct {
			Clusters []struct {
				Name string `json:"name"`
			} `json:"clusters"`
		}
		if err := json.Unmarshal(r.body, &out); err != nil {
			t.Fatal(err)
		}
		var ns []string
		for _, c := range out.Clusters {
			ns = append(ns, c.Name)
		}
		return ns
	}
	if got := names("1.13", "sort_key=name"); len(got) != 3 || got[0] != "alpha" || got[2] != "charlie" {
		t.Errorf("sort_key=name: %v", got)
	}
	if got := names("1.13", "sort_key=name&sort_dir=desc&limit=2"); len(got) != 2 || got[0] != "charlie" || got[1] != "bravo" {
		t.Errorf("desc, limit 2: %v", got)
	}
	if got := names("1.13", "sort_key=keypair"); len(got) != 3 { // a null *string sorts
		t.Errorf("sort_key=keypair: %v", got)
	}
	if got := names("1.12", "sort_key=stack_id"); len(got) != 3 {
		t.Errorf("sort_key=stack_id at 1.12: %v", got)
	}
	for _, tc := range []struct{ mv, query string }{
		{"1.13", "sort_key=labels"}, {"1.13", "sort_key=links"}, {"1.13", "sort_key=stack_id"}, {"1.13", "sort_key=nope"},
	} {
		expectError(t, a.do(member, tc.mv, "GET", "/v1/clusters?"+tc.query, nil), http.StatusBadRequest, "is an invalid field for sorting")
	}
	r := a.do(member, "1.13", "GET", "/v1/clusters?sort_key=name&limit=1", nil)
	var page struct {
		Clusters []struct {
			UUID string `json:"uuid"`
		} `json:"clusters"`
		Next string `json:"next"`
	}
	if err := json.Unmarshal(r.body, &page); err != nil || len(page.Clusters) != 1 || page.Next == "" {
		t.Fatalf("first page: %v %s", err, r.body)
	}
	if got := names("1.13", "sort_key=name&marker="+page.Clusters[0].UUID); len(got) != 2 || got[0] != "bravo" {
		t.Errorf("after the marker: %v", got)
	}
}
