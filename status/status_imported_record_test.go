package status

import (
	"testing"

	"github.com/openkeel/keel/intent"
)

// An imported read-only record shows the status Magnum had, whatever the
// commit's operation: an import never looks like a create in progress.
// Once its folder leaves Git it is deleted like any other cluster.
func TestImportedRecordKeepsMagnumStatus(t *testing.T) {
	im := &intent.Imported{From: "magnum", Status: "CREATE_COMPLETE", Reason: "Imported from Magnum as a read-only record: …"}
	for _, tc := range []struct {
		name string
		in   Input
		want Result
	}{
		{"first projection (operation create)", Input{Operation: OpCreate, InGit: true, DesiredRevision: "r1", Imported: im},
			Result{Status: CreateComplete, StatusReason: im.Reason}},
		{"a later import (operation update)", Input{Operation: OpUpdate, InGit: true, DesiredRevision: "r2", Imported: im},
			Result{Status: CreateComplete, StatusReason: im.Reason}},
		{"Magnum's failed status kept", Input{Operation: OpCreate, InGit: true, Imported: &intent.Imported{Status: CreateFailed, Reason: "x"}},
			Result{Status: CreateFailed, StatusReason: "x"}},
		{"folder left Git", Input{Operation: OpDelete, InGit: false, Imported: im}, Result{Status: DeleteComplete, StatusReason: ""}},
		{"not imported: a create waits", Input{Operation: OpCreate, InGit: true, DesiredRevision: "r1"},
			Result{Status: CreateInProgress, StatusReason: "Applying revision r1 to the management cluster"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Derive(tc.in); got != tc.want {
				t.Errorf("Derive = %+v, want %+v", got, tc.want)
			}
		})
	}
}
