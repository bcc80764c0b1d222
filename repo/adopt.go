package repo

import (
	"context"
	"fmt"
	"strings"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/status"
)

// RenderAdopted returns the changes that render the clusters of sn that
// `keel import --adopt` adopted and that have no rendered output yet (the
// import commits intent only: it renders nothing), with their CA Secrets
// encrypted by kr, and the folders it rendered.
func RenderAdopted(sn *gitstore.Snapshot, kr *secrets.Keyring) ([]gitstore.Change, []string, error) {
	dirs, err := intent.ClusterDirs(sn)
	if err != nil {
		return nil, nil, err
	}
	var changes []gitstore.Change
	var rendered []string
	for _, dir := range dirs {
		c, err := intent.ReadClusterDocument(sn, dir)
		if err != nil {
			return nil, nil, err
		}
		if !c.OnAdoptedClass() || sn.Exists(intent.RenderedPath(dir)) {
			continue
		}
		cs, err := renderAdopted(sn, dir, kr)
		if err != nil {
			return nil, nil, err
		}
		changes = append(changes, cs...)
		rendered = append(rendered, dir)
	}
	return changes, rendered, nil
}

func renderAdopted(sn *gitstore.Snapshot, dir string, kr *secrets.Keyring) ([]gitstore.Change, error) {
	d, err := intent.ReadDocuments(sn, dir)
	if err != nil {
		return nil, err
	}
	st, err := intent.ReadCluster(sn, dir)
	if err != nil {
		return nil, err
	}
	var opts []WriteOption
	if kr != nil {
		opts = append(opts, WithSecrets(&Secrets{Keyring: kr}))
	}
	changes, err := WriteCluster(sn, &d.Template, st, intent.Facts{}, opts...)
	if err != nil {
		return nil, err
	}
	// Only the rendered folder (and .sops.yaml) is new: the intent is the
	// import's, already committed.
	out := changes[:0]
	rendered := intent.RenderedPath(dir)
	for _, ch := range changes {
		if ch.Path == rendered || strings.HasPrefix(ch.Path, rendered+"/") || ch.Path == secrets.SOPSConfigPath {
			out = append(out, ch)
		}
	}
	return out, nil
}

// CommitAdopted renders the adopted clusters the import committed, in one
// commit of their Cluster API objects as found (plus their CA Secrets,
// encrypted): the import's commits hold intent only.
func CommitAdopted(ctx context.Context, store *gitstore.Store, kr *secrets.Keyring) ([]string, string, error) {
	var dirs []string
	h, err := store.Update(ctx, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		changes, rendered, err := RenderAdopted(sn, kr)
		if err != nil || len(changes) == 0 {
			return nil, err
		}
		dirs = rendered
		return &gitstore.Commit{
			Subject:  fmt.Sprintf("import: adopt %d clusters (their Cluster API objects as found)", len(rendered)),
			Body:     strings.Join(rendered, "\n"),
			Author:   gitstore.Signature{Name: "keel import", Email: "import@keel"},
			Trailers: []gitstore.Trailer{{Key: gitstore.TrailerOperation, Value: status.OpImport}, {Key: gitstore.TrailerImport, Value: "magnum"}},
			Changes:  changes,
		}, nil
	})
	if err != nil || len(dirs) == 0 {
		return nil, "", err
	}
	return dirs, h.String(), nil
}
