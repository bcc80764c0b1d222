package conformance

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"golang.org/x/sync/errgroup"
)

// TestKeystoneAnswersConcurrentWrites checks the environment's Keystone,
// not keel: the suites create and delete projects side by side, and every
// write must get an answer. On two uwsgi processes over SQLite about one
// delete in seven ended without one (keystoneconf says why),
// and gophercloud's TestQuotasCRUD failed on the EOF.
func TestKeystoneAnswersConcurrentWrites(t *testing.T) {
	t.Parallel() // with the suites, on the same environment
	e := sharedEnv(t)
	ctx := context.Background()
	const writers, rounds = 4, 12
	var g errgroup.Group
	for w := range writers {
		g.Go(func() error {
			for i := range rounds {
				id, err := e.ks.create(ctx, "project", map[string]any{
					"name": fmt.Sprintf("concurrent-writes-%d-%d", w, i), "domain_id": "default"})
				if err != nil {
					return fmt.Errorf("creating a project: %w", err)
				}
				if err := e.ks.call(ctx, http.MethodDelete, "/projects/"+id, nil, nil); err != nil {
					return fmt.Errorf("deleting project %s: %w", id, err)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}
