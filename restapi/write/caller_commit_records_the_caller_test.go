package write

import (
	"reflect"
	"testing"

	"github.com/openkeel/keel/gitstore"
)

// A change's commit is authored by the caller (by name, else by id) and
// carries the request id, project, user and operation as trailers.
func TestCallerCommitRecordsTheCaller(t *testing.T) {
	for _, tc := range []struct {
		name   string
		caller Caller
		author string
	}{
		{"named", Caller{UserID: "u1", UserName: "alice", ProjectID: "p1", RequestID: "req-1"}, "alice"},
		{"unnamed", Caller{UserID: "u1", ProjectID: "p1", RequestID: "req-1"}, "u1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm := tc.caller.Commit("cluster k: delete", "delete", nil)
			if cm.Author != (gitstore.Signature{Name: tc.author, Email: "u1@keel"}) {
				t.Errorf("author %+v", cm.Author)
			}
			want := []gitstore.Trailer{{Key: gitstore.TrailerRequestID, Value: "req-1"},
				{Key: gitstore.TrailerProject, Value: "p1"}, {Key: gitstore.TrailerUser, Value: "u1"},
				{Key: gitstore.TrailerOperation, Value: "delete"}}
			if !reflect.DeepEqual(cm.Trailers, want) {
				t.Errorf("trailers %+v, want %+v", cm.Trailers, want)
			}
		})
	}
}
