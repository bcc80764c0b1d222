package readmodel

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/jmoiron/sqlx"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/notify/oslo"
	"github.com/openkeel/keel/status"
)

const metaProjected = "projected_revision"

// Sync projects the commits between the last projected revision and HEAD.
// The API calls it after each commit, before it answers, so that a read
// right after a write sees it; a poller calls it for commits from outside.
//
// Replicas sharing one PostgreSQL read model each have their own mirror of
// the Git server, so the projected revision may be a commit this replica
// has not fetched yet (another replica wrote it). Projecting the local HEAD
// then would roll the read model back; instead the store fetches the remote
// first, which also brings the other replica's commit to this replica's
// reconciler within the poller's second.
//
// Only a fetch that began after the projected revision was read proves
// that revision gone from the Git server (history rewritten): the other
// replica pushes before it projects, so a newer revision projected while
// this replica fetched means "fetch again", never "project everything"
// (which would show the older HEAD and notify its changes again).
func (d *DB) Sync(ctx context.Context, store *gitstore.Store) error {
	d.projectMu.Lock()
	defer d.projectMu.Unlock()
	fetchedFor := ""
	for attempt := 0; ; attempt++ {
		err := d.sync(ctx, store, fetchedFor)
		var ahead *behindError
		if !errors.As(err, &ahead) {
			return err
		}
		if attempt == maxFetches {
			return fmt.Errorf("the read model moved on during each of %d fetches: %w", maxFetches, err)
		}
		if err := store.Sync(ctx); err != nil {
			return fmt.Errorf("the read model is ahead of this replica's repository, and fetching it failed: %w", err)
		}
		fetchedFor = ahead.projected
	}
}

// maxFetches bounds Sync's fetches when other replicas keep projecting
// newer commits while this one fetches.
const maxFetches = 8

// behindError: the projected revision is not in (or is ahead of) the local
// repository, which has a remote to fetch it from.
type behindError struct{ projected string }

func (e *behindError) Error() string {
	return "the local repository is behind the projected revision " + e.projected
}

// projectLock is the PostgreSQL advisory lock that serialises projections
// across replicas (an arbitrary constant: "keel" in ASCII).
const projectLock = 0x6b65656c

// sync projects HEAD onto the projected revision. fetchedFor is the
// projected revision the store last fetched for ("" before any fetch):
// only then is a revision the repository lacks, or a HEAD behind it, a
// history rewritten on the Git server rather than a fetch to do.
func (d *DB) sync(ctx context.Context, store *gitstore.Store, fetchedFor string) error {
	tx, err := d.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // no-op after commit
	if d.postgres {
		// Two replicas projecting at once would each write their own
		// diff and revision, the later one possibly the older revision.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, projectLock); err != nil {
			return err
		}
	}
	// Read under the lock, and HEAD after it: a revision projected by
	// another process was on its branch (and on the remote) before.
	last, err := projectedRevision(ctx, tx, d.q)
	if err != nil {
		return err
	}
	head, err := store.SnapshotHead()
	if err != nil {
		return err
	}
	if last == head.Commit().String() {
		return nil
	}
	var old *gitstore.Snapshot
	if last != "" {
		lastHash := plumbing.NewHash(last)
		mayFetch := store.HasRemote() && last != fetchedFor
		if old, err = store.SnapshotAt(lastHash); err != nil {
			old = nil
			if mayFetch {
				return &behindError{projected: last}
			}
			// Still unknown after a fetch for it (or without a remote):
			// history was rewritten, project everything.
		} else if mayFetch && behind(store, head.Commit(), lastHash) {
			return &behindError{projected: last}
		}
	}
	info, err := store.Info(head.Commit())
	if err != nil {
		return err
	}
	commitTime, err := commitTime(store, head.Commit())
	if err != nil {
		return err
	}
	changed, err := gitstore.ChangedPaths(old, head)
	if err != nil {
		return err
	}
	p := &projector{d: d, tx: tx, sn: head, old: old, op: info.Trailers[gitstore.TrailerOperation], at: commitTime, rev: head.Commit().String(), info: info}
	if old == nil {
		if err := p.full(ctx); err != nil {
			return err
		}
	} else if err := p.changes(ctx, changed); err != nil {
		return err
	}
	if err := setMeta(ctx, d, tx, metaProjected, head.Commit().String()); err != nil {
		return err
	}
	return tx.Commit()
}

// behind reports whether head is a strict ancestor of last. The common
// case (last an ancestor of head: commits arrived) is checked first, as it
// walks only the few commits since last.
func behind(store *gitstore.Store, head, last plumbing.Hash) bool {
	return !store.Reaches(head, last) && store.Reaches(last, head)
}

// Rebuild drops the Git projection and projects HEAD again. Observations
// from the management cluster are kept: the watchers refresh them anyway.
func (d *DB) Rebuild(ctx context.Context, store *gitstore.Store) error {
	d.projectMu.Lock()
	for _, t := range []string{"templates", "clusters", "nodegroups", "quotas"} {
		if _, err := d.db.ExecContext(ctx, "DELETE FROM "+t); err != nil {
			d.projectMu.Unlock()
			return err
		}
	}
	_, err := d.db.ExecContext(ctx, d.q(`DELETE FROM meta WHERE key = ?`), metaProjected)
	d.projectMu.Unlock()
	if err != nil {
		return err
	}
	return d.Sync(ctx, store)
}

func commitTime(store *gitstore.Store, h plumbing.Hash) (time.Time, error) {
	c, err := store.Repo().CommitObject(h)
	if err != nil {
		return time.Time{}, err
	}
	return c.Author.When.UTC(), nil
}

type projector struct {
	d   *DB
	tx  *sqlx.Tx
	sn  *gitstore.Snapshot
	old *gitstore.Snapshot // the previously projected revision, nil on a full projection
	op  string             // Keel-Operation trailer of HEAD, if any
	at  time.Time
	rev string
	// info is HEAD's commit: who made the change, for the notifications.
	info *gitstore.CommitInfo
}

func (p *projector) full(ctx context.Context) error {
	for _, t := range []string{"templates", "clusters", "nodegroups", "quotas"} {
		if _, err := p.tx.ExecContext(ctx, "DELETE FROM "+t); err != nil {
			return err
		}
	}
	return p.sn.Walk("", func(fp string, _ []byte) error {
		switch {
		case intent.IsTemplateFile(fp):
			return p.template(ctx, fp)
		case intent.IsQuotaFile(fp):
			return p.quota(ctx, fp)
		}
		if _, ok := intent.IsClusterFile(fp); ok {
			return p.cluster(ctx, path.Dir(fp), true, false)
		}
		return nil
	})
}

func (p *projector) changes(ctx context.Context, changed []string) error {
	clusters := map[string]bool{}
	healthOnly := map[string]bool{} // every change of the folder was to health fields
	for _, fp := range changed {
		if dir, ok := intent.ClusterDirOfPath(fp); ok {
			// A change under rendered/ alone (a re-render), or of the
			// API-set health fields alone, is not an operation.
			health := p.healthOnly(dir, fp)
			clusters[dir] = clusters[dir] || (!isRendered(dir, fp) && !health)
			if _, seen := healthOnly[dir]; !seen {
				healthOnly[dir] = true
			}
			healthOnly[dir] = healthOnly[dir] && health
			continue
		}
		var err error
		switch {
		case intent.IsTemplateFile(fp):
			err = p.template(ctx, fp)
		case intent.IsQuotaFile(fp):
			err = p.quota(ctx, fp)
		}
		if err != nil {
			return err
		}
	}
	for dir, intentChanged := range clusters {
		if err := p.cluster(ctx, dir, intentChanged, healthOnly[dir]); err != nil {
			return err
		}
	}
	return nil
}

func isRendered(dir, fp string) bool {
	rd := intent.RenderedPath(dir) + "/"
	return len(fp) > len(rd) && fp[:len(rd)] == rd
}

func trimYAML(s string) string { return s[:len(s)-len(".yaml")] }

// template projects the template document at fp, or its removal.
func (p *projector) template(ctx context.Context, fp string) error {
	t, err := intent.ReadTemplate(p.sn, fp)
	if errors.Is(err, fs.ErrNotExist) {
		_, err = p.tx.ExecContext(ctx, p.d.q(`DELETE FROM templates WHERE path = ?`), fp)
		return err
	}
	if err != nil {
		return err
	}
	doc, _ := json.Marshal(t)
	_, err = p.tx.ExecContext(ctx, p.d.q(`INSERT INTO templates (uuid, id, project_id, name, public, hidden, path, doc)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (uuid) DO UPDATE SET id = excluded.id, project_id = excluded.project_id, name = excluded.name,
		public = excluded.public, hidden = excluded.hidden, path = excluded.path, doc = excluded.doc`),
		t.UUID, t.ID, t.ProjectID, t.Name, b2i(t.Public), b2i(t.Hidden), fp, string(doc))
	return err
}

// quota projects the quota document at fp, or its removal.
func (p *projector) quota(ctx context.Context, fp string) error {
	q, err := intent.ReadQuota(p.sn, fp)
	if errors.Is(err, fs.ErrNotExist) {
		_, err = p.tx.ExecContext(ctx, p.d.q(`DELETE FROM quotas WHERE project_id = ?`), trimYAML(path.Base(fp)))
		return err
	}
	if err != nil {
		return err
	}
	doc, _ := json.Marshal(q)
	_, err = p.tx.ExecContext(ctx, p.d.q(`INSERT INTO quotas (project_id, id, doc) VALUES (?, ?, ?)
		ON CONFLICT (project_id) DO UPDATE SET id = excluded.id, doc = excluded.doc`), q.ProjectID, q.ID, string(doc))
	return err
}

// cluster projects one cluster folder. A folder that left Git stays as a
// row with in_git = 0 (DELETE_IN_PROGRESS) until the reconciler reports its
// objects gone; but a read-only record (keel import) had nothing applied,
// so nothing will be reported gone, and its row goes with its folder.
func (p *projector) cluster(ctx context.Context, dir string, intentChanged, healthOnly bool) error {
	st, err := intent.ReadCluster(p.sn, dir)
	if errors.Is(err, fs.ErrNotExist) && p.wasReadOnly(dir) {
		return p.dropRecord(ctx, dir)
	}
	if errors.Is(err, fs.ErrNotExist) {
		var uuids []string
		if err := p.tx.SelectContext(ctx, &uuids, p.d.q(`SELECT uuid FROM clusters WHERE dir = ? AND in_git = 1`), dir); err != nil {
			return err
		}
		for _, uuid := range uuids {
			if _, err := p.tx.ExecContext(ctx, p.d.q(`UPDATE clusters SET in_git = 0, operation = ?, desired_revision = ?, operation_started = ? WHERE uuid = ?`),
				status.OpDelete, p.rev, p.at.Format(time.RFC3339Nano), uuid); err != nil {
				return err
			}
			if err := p.started(ctx, uuid, oslo.ActionDelete, status.DeleteInProgress); err != nil {
				return err
			}
			// The reconciler may already have deleted its objects.
			if err := removeGone(ctx, p.tx, p.d.q, uuid); err != nil {
				return err
			}
		}
		return nil
	}
	if err != nil {
		return err
	}
	c := &st.Cluster
	// The desired revision is the tree hash of the cluster's folder: it
	// changes exactly when what must be applied changes, whichever commit
	// (or resync, or rebuild) brought it.
	tree, err := p.sn.Hash(dir)
	if err != nil {
		return err
	}
	var prevOp, prevStarted, prevRev, prevDoc string
	row := p.tx.QueryRowxContext(ctx, p.d.q(`SELECT operation, operation_started, desired_revision, doc FROM clusters WHERE uuid = ?`), c.UUID)
	existed := true
	if err := row.Scan(&prevOp, &prevStarted, &prevRev, &prevDoc); errors.Is(err, sql.ErrNoRows) {
		existed = false
	} else if err != nil {
		return err
	}
	op, started := prevOp, prevStarted
	switch {
	case !existed:
		op, started = status.OpCreate, p.at.Format(time.RFC3339Nano)
	case intentChanged:
		// A change of the intent is an update, whatever the trailer says
		// (a revert of a resize is an update too).
		op, started = status.OpUpdate, p.at.Format(time.RFC3339Nano)
		if caRotationMoved(prevDoc, c) {
			op = status.OpRotateCA
		}
	}
	rev := tree.String()
	doc, _ := json.Marshal(c)
	if _, err := p.tx.ExecContext(ctx, p.d.q(`INSERT INTO clusters (uuid, id, project_id, name, stack_id, template_uuid, dir, doc, in_git, operation, desired_revision, operation_started)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
		ON CONFLICT (uuid) DO UPDATE SET id = excluded.id, project_id = excluded.project_id, name = excluded.name,
		stack_id = excluded.stack_id, template_uuid = excluded.template_uuid, dir = excluded.dir, doc = excluded.doc,
		in_git = 1, operation = excluded.operation, desired_revision = excluded.desired_revision,
		operation_started = excluded.operation_started`),
		c.UUID, c.ID, c.ProjectID, c.Name, c.StackID, c.ClusterTemplateID, dir, string(doc), op, rev, started); err != nil {
		return err
	}
	// Back in Git (a revert of its deletion): the reconciler applies it
	// again, so an earlier teardown no longer counts.
	if _, err := p.tx.ExecContext(ctx, p.d.q(`UPDATE observed SET gone = 0 WHERE uuid = ? AND gone = 1`), c.UUID); err != nil {
		return err
	}
	if healthOnly {
		// The folder's tree changed but no Cluster API object did: a
		// completed cluster stays complete.
		if _, err := p.tx.ExecContext(ctx, p.d.q(`UPDATE observed SET completed_revision = ? WHERE uuid = ? AND completed_revision = ?`),
			rev, c.UUID, prevRev); err != nil {
			return err
		}
	}
	if existed && rev != prevRev {
		if err := p.carryCreating(ctx, c.UUID, prevRev, rev, intentChanged); err != nil {
			return err
		}
	}
	// What the nodegroups were, for the notifications of an update.
	var prior map[string]priorNodeGroup
	if existed && intentChanged {
		if prior, err = p.priorNodeGroups(ctx, c.UUID); err != nil {
			return err
		}
	}
	// A nodegroup that left Git stays (in_git = 0) until Cluster API shows
	// its machines gone: it leaves the topology first and the API last.
	if _, err := p.tx.ExecContext(ctx, p.d.q(`UPDATE nodegroups SET in_git = 0 WHERE cluster_uuid = ?`), c.UUID); err != nil {
		return err
	}
	for _, ng := range st.NodeGroups {
		doc, _ := json.Marshal(ng)
		// created_revision is set once, by the projection that first saw
		// the nodegroup.
		if _, err := p.tx.ExecContext(ctx, p.d.q(`INSERT INTO nodegroups (uuid, id, cluster_uuid, project_id, name, role, is_default, doc, in_git, created_revision)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?)
			ON CONFLICT (uuid) DO UPDATE SET id = excluded.id, cluster_uuid = excluded.cluster_uuid, project_id = excluded.project_id,
			name = excluded.name, role = excluded.role, is_default = excluded.is_default, doc = excluded.doc, in_git = 1`),
			ng.UUID, ng.ID, c.UUID, ng.ProjectID, ng.Name, ng.Role, b2i(ng.IsDefault), string(doc), rev); err != nil {
			return err
		}
	}
	if !existed || intentChanged {
		if err := p.started(ctx, c.UUID, opAction(existed), opStatus(existed)); err != nil {
			return err
		}
	}
	if existed && intentChanged {
		return p.nodeGroupsStarted(ctx, c, prior, st.NodeGroups)
	}
	return nil
}

// carryCreating keeps the nodegroups the cluster's operation is creating
// marked as such (created_revision, compared with the desired revision)
// when the folder moves from prev to rev within that operation: a second
// nodegroup created before the first one completed (Terraform creates them
// in parallel), or a change of the API-set health fields. Without it the
// first one would show UPDATE_* and its client, waiting for
// CREATE_COMPLETE, would wait for ever. A change of the intent after the
// operation completed starts a new operation, which creates nothing yet.
func (p *projector) carryCreating(ctx context.Context, uuid, prev, rev string, intentChanged bool) error {
	if intentChanged {
		var completed string
		err := p.tx.QueryRowxContext(ctx, p.d.q(`SELECT completed_revision FROM observed WHERE uuid = ?`), uuid).Scan(&completed)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if completed == prev {
			return nil
		}
	}
	_, err := p.tx.ExecContext(ctx, p.d.q(`UPDATE nodegroups SET created_revision = ? WHERE cluster_uuid = ? AND created_revision = ?`), rev, uuid, prev)
	return err
}

// opAction and opStatus: a cluster new to the read model is being
// created, one already there updated.
func opAction(existed bool) string {
	if existed {
		return oslo.ActionUpdate
	}
	return oslo.ActionCreate
}

func opStatus(existed bool) string {
	if existed {
		return status.UpdateInProgress
	}
	return status.CreateInProgress
}

// started records who started the cluster's operation and, for a commit
// projected after the last (not on a full projection, which would repeat
// every cluster's create), the notification that it is pending. The new
// caller projects the nodegroups first: the attachment counts them.
func (p *projector) started(ctx context.Context, uuid, action, st string) error {
	from, requestID := originOf(p.info)
	who, _ := json.Marshal(from)
	if _, err := p.tx.ExecContext(ctx, p.d.q(`UPDATE clusters SET operation_initiator = ? WHERE uuid = ?`), string(who), uuid); err != nil {
		return err
	}
	if p.old == nil {
		return nil
	}
	// The status is in progress from this commit on, whether or not an
	// observation comes before the operation settles (an update Cluster
	// API applies without a new generation can settle at the first one):
	// the settled status is then a change, notified.
	if _, err := p.tx.ExecContext(ctx, p.d.q(`UPDATE observed SET last_status = ?, status_changed_at = ? WHERE uuid = ? AND last_status <> ?`),
		st, p.at.Format(time.RFC3339Nano), uuid, st); err != nil {
		return err
	}
	src := eventSource{action: action, outcome: oslo.OutcomePending, origin: from, requestID: requestID, at: p.at}
	return notify(ctx, p.tx, p.d.q, uuid, status.Result{Status: st}, src)
}

func setMeta(ctx context.Context, d *DB, tx *sqlx.Tx, key, value string) error {
	_, err := tx.ExecContext(ctx, d.q(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`), key, value)
	return err
}

// healthOnly reports whether fp is the cluster document and differs from the
// previous revision only in health_status, health_status_reason and
// updated_at (the auto-healer's PATCH): that changes no Cluster API object.
func (p *projector) healthOnly(dir, fp string) bool {
	if p.old == nil || fp != path.Join(dir, intent.ClusterFile) {
		return false
	}
	x, err1 := intent.ReadClusterDocument(p.old, dir)
	y, err2 := intent.ReadClusterDocument(p.sn, dir)
	if err1 != nil || err2 != nil {
		return false
	}
	for _, c := range []*intent.Cluster{x, y} {
		c.HealthStatus, c.HealthStatusReason, c.UpdatedAt = nil, nil, nil
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// ProjectedRevision is the commit the read model shows ("" before the
// first projection).
func (d *DB) ProjectedRevision(ctx context.Context) (string, error) {
	return projectedRevision(ctx, d.db, d.q)
}

func projectedRevision(ctx context.Context, q sqlx.QueryerContext, rebind func(string) string) (string, error) {
	var rev string
	err := sqlx.GetContext(ctx, q, &rev, rebind(`SELECT value FROM meta WHERE key = ?`), metaProjected)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return rev, err
}

// wasReadOnly reports whether dir held a read-only record (keel import)
// on the previously projected revision.
func (p *projector) wasReadOnly(dir string) bool {
	if p.old == nil {
		return false
	}
	c, err := intent.ReadClusterDocument(p.old, dir)
	return err == nil && c.ReadOnly()
}

// dropRecord removes the rows of the read-only record in dir: removing it
// from Git (a revert of the import) deletes nothing in the cloud, and is
// not a cluster deletion to notify.
func (p *projector) dropRecord(ctx context.Context, dir string) error {
	for _, s := range []string{
		`DELETE FROM nodegroups WHERE cluster_uuid IN (SELECT uuid FROM clusters WHERE dir = ?)`,
		`DELETE FROM observed WHERE uuid IN (SELECT uuid FROM clusters WHERE dir = ?)`,
		`DELETE FROM clusters WHERE dir = ?`,
	} {
		if _, err := p.tx.ExecContext(ctx, p.d.q(s), dir); err != nil {
			return err
		}
	}
	return nil
}

// caRotationMoved reports whether a change of the cluster moved its CA
// rotation (a phase committed, or reverted): that operation is the
// rotation's, whose status names the phase (status.OpRotateCA).
func caRotationMoved(prevDoc string, c *intent.Cluster) bool {
	var prev intent.Cluster
	if err := json.Unmarshal([]byte(prevDoc), &prev); err != nil {
		return c.CARotation != nil
	}
	return !intent.SameCARotation(prev.CARotation, c.CARotation)
}
