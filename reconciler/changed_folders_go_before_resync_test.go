package reconciler

import (
	"slices"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// A pass applies ClusterClasses first, then the folders that changed (the
// oldest change first), then a resync's unchanged folders; and it yields
// before an unchanged folder when a new commit waits, never before a
// changed one.
func TestChangedFoldersGoBeforeResync(t *testing.T) {
	t0 := time.Now()
	r := &Reconciler{pending: map[string]*retry{
		"clusters/p/a":             {},
		"clusters/p/b":             {changed: t0.Add(time.Second)},
		"clusters/p/c":             {},
		"clusters/p/d":             {changed: t0},
		"clusterclasses/keel-v1":   {},
		"clusters/p/e":             {backoff: time.Second},
		"clusterclasses/keel-v0-1": {changed: t0},
	}}
	units := []string{"clusters/p/a", "clusters/p/b", "clusters/p/c", "clusters/p/d", "clusterclasses/keel-v1", "clusters/p/e", "clusterclasses/keel-v0-1"}
	r.order(units)
	want := []string{"clusterclasses/keel-v0-1", "clusterclasses/keel-v1", "clusters/p/d", "clusters/p/b", "clusters/p/a", "clusters/p/c", "clusters/p/e"}
	if !slices.Equal(units, want) {
		t.Fatalf("order = %v\nwant    %v", units, want)
	}

	news := make(chan plumbing.Hash, 1)
	r.notify = news
	for _, tc := range []struct {
		unit   string
		commit bool
		yields bool
	}{
		{"clusters/p/a", false, false},
		{"clusters/p/a", true, true},
		{"clusters/p/b", true, false},
		{"clusters/p/e", true, true},
	} {
		for len(news) > 0 {
			<-news
		}
		if tc.commit {
			news <- plumbing.ZeroHash
		}
		if got := r.yields(tc.unit); got != tc.yields {
			t.Errorf("yields(%s) with a commit waiting %v = %v, want %v", tc.unit, tc.commit, got, tc.yields)
		}
	}
}
