package readmodel

import (
	"context"
	"log/slog"
)

// Present implements reconciler.Sink. A cluster whose removal was
// projected (in_git = 0) waits for the reconciler's Gone; but a cluster
// removed before anything of it was applied, while no reconciler pass was
// looking, has nothing to tear down and no Gone comes. After a complete
// listing it is gone when its folder is not listed, no objects of it are,
// and the listing's commit reached its removal (desired_revision, the
// commit that projected it): a listing older than the removal says nothing
// of it.
func (d *DB) Present(ctx context.Context, folders, applied map[string]bool, reached func(commit string) bool) {
	var leaving []struct {
		UUID string `db:"uuid"`
		Dir  string `db:"dir"`
		Rev  string `db:"desired_revision"`
	}
	if err := d.db.SelectContext(ctx, &leaving, `SELECT uuid, dir, desired_revision FROM clusters WHERE in_git = 0`); err != nil {
		slog.Error("read model: listing deleted clusters", "err", err)
		return
	}
	for _, c := range leaving {
		if !folders[c.Dir] && !applied[c.UUID] && reached(c.Rev) {
			d.Gone(ctx, c.UUID)
		}
	}
}
