package magnumimport

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/schemas"
	"github.com/openkeel/keel/status"
)

// Trailers of an import's commits, beside Keel-Operation: import and
// Keel-Project.
const (
	TrailerImport       = gitstore.TrailerImport
	TrailerImportSource = "Keel-Import-Source"
	TrailerImportSchema = "Keel-Import-Schema"
)

// ErrRefused: the plan holds objects keel cannot import; nothing was
// written.
var ErrRefused = errors.New("the import was refused, nothing was written")

// PlanOn plans the import of m on the repository's HEAD.
func PlanOn(store *gitstore.Store, m *Magnum) (*Plan, error) {
	sn, err := store.SnapshotHead()
	if err != nil {
		return nil, err
	}
	cat, err := schemas.SiteCatalogue(sn)
	if err != nil {
		return nil, err
	}
	return Build(m, sn, cat, "")
}

// Apply writes the import as one commit per project. The whole plan is
// checked first: any refused object refuses the import (ErrRefused) and
// nothing is written. Each project's commit is recomputed on the HEAD it
// is made on, so a write keel serve makes meanwhile is neither lost nor
// duplicated; a project whose objects the repository already holds as
// Magnum has them makes no commit. It returns the commits made.
func Apply(ctx context.Context, store *gitstore.Store, m *Magnum) ([]string, error) {
	p, err := PlanOn(store, m)
	if err != nil {
		return nil, err
	}
	if len(p.Refused) > 0 {
		return nil, fmt.Errorf("%w:\n  %s", ErrRefused, strings.Join(p.Refused, "\n  "))
	}
	for _, u := range p.Units {
		if u.sealed && m.Keyring == nil {
			return nil, ErrNoKeyring
		}
	}
	var made []string
	for _, u := range p.Units {
		if !u.Writes() {
			continue
		}
		h, err := store.Update(ctx, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
			return commitOn(sn, m, u.Project)
		})
		if err != nil {
			return made, fmt.Errorf("project %s: %w (projects before it are committed; run the import again to go on)", u.Project, err)
		}
		made = append(made, h.String())
	}
	return made, nil
}

func commitOn(sn *gitstore.Snapshot, m *Magnum, project string) (*gitstore.Commit, error) {
	cat, err := schemas.SiteCatalogue(sn)
	if err != nil {
		return nil, err
	}
	p, err := Build(m, sn, cat, project)
	if err != nil {
		return nil, err
	}
	if len(p.Refused) > 0 {
		return nil, fmt.Errorf("%w:\n  %s", ErrRefused, strings.Join(p.Refused, "\n  "))
	}
	if len(p.Units) == 0 || !p.Units[0].Writes() {
		return nil, nil
	}
	u := p.Units[0]
	return &gitstore.Commit{
		Subject: fmt.Sprintf("import: project %s from Magnum (%s)", project, u.summary()),
		Body:    strings.Join(u.Lines, "\n"),
		Author:  gitstore.Signature{Name: "keel import", Email: "import@keel"},
		Trailers: []gitstore.Trailer{
			{Key: gitstore.TrailerProject, Value: project},
			{Key: gitstore.TrailerOperation, Value: status.OpImport},
			{Key: TrailerImport, Value: "magnum"},
			{Key: TrailerImportSource, Value: m.Source.Display},
			{Key: TrailerImportSchema, Value: m.Version},
		},
		Changes: u.Changes,
	}, nil
}

// summary counts what a unit creates and updates.
func (u *Unit) summary() string {
	var parts []string
	for _, k := range []string{"templates", "clusters", "quotas"} {
		if n := u.created[k]; n > 0 {
			parts = append(parts, count(n, k)+" created")
		}
		if n := u.updated[k]; n > 0 {
			parts = append(parts, count(n, k)+" updated")
		}
	}
	if len(parts) == 0 {
		return "no change"
	}
	return strings.Join(parts, ", ")
}

// count is "1 template", "2 templates".
func count(n int, plural string) string {
	if n == 1 {
		return "1 " + strings.TrimSuffix(plural, "s")
	}
	return fmt.Sprintf("%d %s", n, plural)
}
