package reconciler

import (
	"slices"
	"testing"

	"github.com/openkeel/keel/intent"
)

// What the reconciler remembers of the retired credentials it deleted is
// per cluster and only what the cloud-config Secret still lists: a later
// rotation's shorter list, or the cluster's teardown, forgets the rest.
func TestRetiredRecordForgetsUnlistedCredentials(t *testing.T) {
	r := &Reconciler{retired: newLockedMap[string, []string]()}
	refs := func(ids ...string) []intent.CredentialRef {
		var out []intent.CredentialRef
		for _, id := range ids {
			out = append(out, intent.CredentialRef{ID: id})
		}
		return out
	}
	ids := func(rs []intent.CredentialRef) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	r.retired.set("kube-a", []string{"old-1", "old-2"})
	r.retired.set("kube-b", []string{"old-9"})
	for _, tc := range []struct {
		name     string
		listed   []string
		left     []string
		remember []string
	}{
		{"both still listed, both deleted", []string{"old-1", "old-2"}, nil, []string{"old-1", "old-2"}},
		{"a new rotation dropped old-1 and retired cur-1", []string{"old-2", "cur-1"}, []string{"cur-1"}, []string{"old-2"}},
		{"nothing listed any more", nil, nil, nil},
	} {
		left := r.notRetired("kube-a", refs(tc.listed...))
		if got := ids(left); !slices.Equal(got, tc.left) {
			t.Errorf("%s: left %v, want %v", tc.name, got, tc.left)
		}
		if got := r.retired.get("kube-a"); !slices.Equal(got, tc.remember) {
			t.Errorf("%s: remembered %v, want %v", tc.name, got, tc.remember)
		}
	}
	if got := r.retired.get("kube-b"); !slices.Equal(got, []string{"old-9"}) {
		t.Errorf("another cluster's record changed: %v", got)
	}
}
