package readmodel

import "testing"

// Only a status that settles an operation in progress is notified, with
// the action Magnum's periodic sync gives it.
func TestSettledStatusNotifies(t *testing.T) {
	for _, c := range []struct{ prev, now, action, outcome string }{
		{"CREATE_IN_PROGRESS", "CREATE_COMPLETE", "create", "success"},
		{"", "CREATE_COMPLETE", "create", "success"},
		{"CREATE_IN_PROGRESS", "CREATE_FAILED", "create", "failure"},
		{"UPDATE_IN_PROGRESS", "UPDATE_COMPLETE", "update", "success"},
		{"UPDATE_IN_PROGRESS", "ROLLBACK_COMPLETE", "update", "success"},
		{"DELETE_IN_PROGRESS", "DELETE_FAILED", "delete", "failure"},
		{"DELETE_IN_PROGRESS", "DELETE_COMPLETE", "", ""}, // removeGone's
		{"CREATE_COMPLETE", "CREATE_COMPLETE", "", ""},
		{"CREATE_FAILED", "CREATE_COMPLETE", "", ""}, // not in progress: nothing new started
		{"CREATE_IN_PROGRESS", "UPDATE_IN_PROGRESS", "", ""},
		{"UPDATE_IN_PROGRESS", "CHECK_COMPLETE", "", ""},
	} {
		action, outcome, ok := settled(c.prev, c.now)
		if action != c.action || outcome != c.outcome || ok != (c.action != "") {
			t.Errorf("%q → %q: %q %q %v, want %q %q", c.prev, c.now, action, outcome, ok, c.action, c.outcome)
		}
	}
}
