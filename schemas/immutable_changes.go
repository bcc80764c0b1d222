package schemas

import (
	"errors"
	"io/fs"

	"github.com/openkeel/keel/intent"
)

// ReadFunc reads one revision of a repository path; an error wrapping
// fs.ErrNotExist means the revision lacks it.
type ReadFunc func(p string) ([]byte, error)

// ImmutableChanges is `keel vet --base`, shared by the command and the
// pull-request checks: each intent document among paths that both
// revisions hold must keep its immutable fields and labels. A document
// that does not parse is a violation naming it (vet says why).
func ImmutableChanges(paths []string, old, cur ReadFunc) ([]Violation, error) {
	cat := Default()
	var out []Violation
	for _, p := range paths {
		kind := intent.KindOf(p)
		if kind == "" {
			continue
		}
		was, err := old(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // new: nothing to compare with
		}
		if err != nil {
			return nil, err
		}
		now, err := cur(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted
		}
		if err != nil {
			return nil, err
		}
		vs, err := cat.ImmutableDocumentChanges(kind, was, now)
		if err != nil {
			out = append(out, Violation{Field: p, Message: err.Error()})
			continue
		}
		out = append(out, prefixed(p, vs)...)
	}
	return out, nil
}
