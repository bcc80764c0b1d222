// Package reconciler follows keel's Git repository and makes the management
// cluster match it, the way Flux's kustomize-controller does: a kustomize
// build per folder, server-side apply under the `keel` field manager
// (fluxcd/pkg/ssa), an inventory per folder kept in the management cluster,
// pruning of what left Git, and drift correction on an interval. Unlike a
// plain prune it tears clusters down in order: the CAPI Cluster first, and
// its credentials and CA Secrets only once the Cluster is gone.
package reconciler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling"
	"github.com/fluxcd/pkg/ssa"
	"github.com/go-git/go-git/v5/plumbing"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/status"
)

// Sink receives what the reconciler did, for the read model.
type Sink interface {
	// Applied reports the outcome of applying a cluster at a revision
	// (err nil on success); revision is the tree hash of the cluster folder,
	// generation the CAPI Cluster's metadata.generation after the apply (0
	// when unknown), so that an observation older than the apply is told
	// from a newer one.
	Applied(ctx context.Context, clusterUUID string, revision string, generation int64, err error)
	// Deleting reports that a cluster left Git and its teardown is under way
	// (reason says which step waits).
	Deleting(ctx context.Context, clusterUUID string, reason string)
	// DeleteFailed reports that a teardown step gave up (reason says
	// which, for the API's DELETE_FAILED); the teardown retries it, and
	// its next Deleting or Gone ends the failure.
	DeleteFailed(ctx context.Context, clusterUUID string, reason string)
	// Retiring reports what a credential rotation of a live cluster still
	// waits for ("" once nothing): the operation is not complete before.
	// It comes before the Applied of the same pass.
	Retiring(ctx context.Context, clusterUUID string, reason string)
	// Gone reports that everything of a cluster was removed.
	Gone(ctx context.Context, clusterUUID string)
	// Present reports what a complete listing found: the folders in Git
	// at a commit or with objects applied, and the clusters with objects
	// applied. reached tells whether a commit is that one or an ancestor.
	// A cluster that left Git at a reached commit and is in neither has
	// nothing left: it is gone, though no Gone will say so.
	Present(ctx context.Context, folders, applied map[string]bool, reached func(commit string) bool)
}

// Options tune the reconciler.
type Options struct {
	// Poll is how often HEAD is compared with the last synced commit, to
	// notice commits from outside (a push, a merged pull request). With a
	// Git server, gitstore.Store.Sync brings its commits to HEAD and
	// notifies, so they need no poll.
	Poll time.Duration
	// Resync re-applies every folder to correct drift.
	Resync time.Duration
	// RetryMin and RetryMax bound the backoff of failed folders.
	RetryMin, RetryMax time.Duration
	Log                *slog.Logger
	// Recorder, when set, receives a Kubernetes Event on the CAPI Cluster
	// for each outcome.
	Recorder Recorder
	// Keyring decrypts the SOPS-encrypted Secrets of rendered folders
	// (keel's age identity, from its data folder).
	Keyring *secrets.Keyring
	// Credentials, when set, deletes the clusters' own application
	// credentials in Keystone once their CAPI Cluster is gone, just before
	// their cloud-config Secret (credential.go); nil leaves them.
	Credentials CredentialDeleter
	// ServerGroups, when set, deletes the clusters' Nova server groups
	// once their CAPI Cluster is gone, just before their cloud-config
	// Secret (servergroups.go); nil leaves them.
	ServerGroups ServerGroupDeleter
	// LoadBalancers, when set, deletes the Octavia load balancers the
	// clusters' cloud controllers made, before their CAPI Cluster is
	// deleted (loadbalancers.go); nil leaves them.
	LoadBalancers LoadBalancerDeleter
	// LoadBalancerTimeout bounds one round of waiting for Octavia to
	// delete a cluster's load balancers (default 5 minutes); then the
	// cluster is DELETE_FAILED and a new round starts after RetryMax.
	LoadBalancerTimeout time.Duration
	// CredentialAttempts bounds the attempts to delete one credential (or
	// server group) while Keystone (Nova) fails (default 5), each after
	// the folder's backoff.
	CredentialAttempts int
	// Workers is how many folders are applied at once (default 4, as
	// Flux's --concurrent): one slow apply (an API server's webhook, a
	// large folder) no longer holds up every change behind it (issue 30).
	Workers int
	// Consumers tells whether a workload cluster's cloud controller
	// manager and CSI drivers use a rotated credential, before the
	// credentials it replaced are deleted (retire.go); default: asking the
	// workload cluster (WorkloadConsumers). Used only with Credentials.
	Consumers CredentialConsumers
	// ClusterInfo publishes a rotated CA bundle in workload clusters
	// (default: WorkloadConsumers, as Consumers).
	ClusterInfo ClusterInfo
}

func (o *Options) defaults() {
	if o.Poll == 0 {
		o.Poll = 2 * time.Second
	}
	if o.Resync == 0 {
		o.Resync = 5 * time.Minute
	}
	if o.RetryMin == 0 {
		o.RetryMin = time.Second
	}
	if o.RetryMax == 0 {
		o.RetryMax = 2 * time.Minute
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Workers <= 0 {
		o.Workers = defaultWorkers
	}
	if o.CredentialAttempts <= 0 {
		o.CredentialAttempts = defaultCredentialAttempts
	}
	if o.LoadBalancerTimeout <= 0 {
		o.LoadBalancerTimeout = defaultLoadBalancerTimeout
	}
}

// Reconciler applies the repository to the management cluster.
type Reconciler struct {
	store  *gitstore.Store
	client client.Client
	rm     *ssa.ResourceManager
	sink   Sink
	o      Options
	repoID string

	mu      sync.Mutex
	synced  plumbing.Hash // last commit whose changes were all handled
	pending map[string]*retry
	// notify is Run's subscription to new commits: a pass over unchanged
	// folders yields to it (yields).
	notify <-chan plumbing.Hash
	// kick asks Run for another pass at once: a pass over clusters that
	// met a changed ClusterClass stopped for it (takeCommits).
	kick chan struct{}
	// changesApplied counts the changes keel_change_applied_seconds timed.
	changesApplied int
	lastFull       time.Time
	// drift are the folders of the periodic full resync not applied yet,
	// in order: Run applies them Workers at a time (driftStep).
	drift []string
	// credAttempts counts failed deletions per application credential ID
	// (and per "server-group/" + server group ID).
	// These four are shared by process's workers (lockedMap).
	credAttempts *lockedMap[string, int]
	// retired are, by inventory id, the retired credentials this process
	// deleted (or gave up on) that the cloud-config Secret still lists
	// (until the next rotation).
	retired *lockedMap[string, []string]
	// caFollowed is, by inventory id, the CA rotation marker whose
	// follow-up (followCARotation) this process completed: later applies
	// of the cluster skip it.
	caFollowed *lockedMap[string, string]
	// lbs is the load balancer step of the teardowns under way, by
	// inventory id; lbCleared the teardowns past it.
	lbs       *lockedMap[string, *lbTeardown]
	lbCleared *lockedMap[string, bool]
	// applied is, by inventory id, what this process last applied of each
	// folder (unchanged.go): a change applies only what differs.
	applied *lockedMap[string, appliedSet]
	// left is, by inventory id, the UUID of a cluster whose folder left
	// Git (changedSince): teardown reports it gone even when nothing of
	// it was applied, which no inventory would name.
	left *lockedMap[string, string]
}

type retry struct {
	next    time.Time
	backoff time.Duration
	// changed is when Sync saw the folder change (zero for a resync): where
	// keel_change_applied_seconds starts.
	changed time.Time
	// resync: the folder is queued by a resync, and also by a change if one
	// came before or after it; its apply compares every object
	// (target.full).
	resync bool
}

// full tells whether the folder's next apply compares every object: a
// resync's, not a change's (unchanged.go).
func (rt *retry) full() bool { return rt.changed.IsZero() || rt.resync }

// New builds a reconciler. The client must have the kube.NewScheme types.
func New(store *gitstore.Store, c client.Client, sink Sink, o Options) (*Reconciler, error) {
	o.defaults()
	repoID, err := store.ID()
	if err != nil {
		return nil, fmt.Errorf("identifying the repository: %w", err)
	}
	poller := polling.NewStatusPoller(c, c.RESTMapper(), polling.Options{})
	rm := ssa.NewResourceManager(c, poller, ssa.Owner{Field: kube.FieldManager, Group: "keel.openkeel.io"})
	// A folder's objects are read and dry-run ssaConcurrency at a time,
	// not one by one (fluxcd/pkg/ssa's default): a cluster has about 30.
	rm.SetConcurrency(ssaConcurrency)
	if o.Consumers == nil {
		o.Consumers = WorkloadConsumers{Management: c}
	}
	if o.ClusterInfo == nil {
		o.ClusterInfo = WorkloadConsumers{Management: c}
	}
	return &Reconciler{store: store, client: c, rm: rm, sink: sink, o: o, repoID: repoID, pending: map[string]*retry{},
		credAttempts: newLockedMap[string, int](), retired: newLockedMap[string, []string](), caFollowed: newLockedMap[string, string](),
		lbs: newLockedMap[string, *lbTeardown](), lbCleared: newLockedMap[string, bool](), applied: newLockedMap[string, appliedSet](), left: newLockedMap[string, string](),
		kick: make(chan struct{}, 1)}, nil
}

// Run follows the repository until ctx is done: at once on commits written
// by this process, within Poll of commits from outside, and fully every
// Resync, a batch at a time (driftStep).
func (r *Reconciler) Run(ctx context.Context) error {
	notify := r.store.Subscribe()
	r.mu.Lock()
	r.notify = notify
	r.mu.Unlock()
	poll := time.NewTicker(r.o.Poll)
	defer poll.Stop()
	r.SyncAll(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-notify:
			r.Sync(ctx)
		case <-r.kick:
			r.Sync(ctx)
		case <-poll.C:
			if time.Since(r.lastFull) >= r.o.Resync {
				r.queueResync(ctx)
			}
			r.Sync(ctx)
		case <-r.drifting():
			r.driftStep(ctx)
		}
	}
}

// ssaConcurrency is Flux's kustomize-controller's --concurrent-ssa default.
const ssaConcurrency = 4

// defaultWorkers is Options.Workers' default. A periodic resync, too,
// applies that many folders before the changes committed meanwhile: at
// 1,000 clusters the whole pass took minutes, and every change waited for
// its end (issue 30).
const defaultWorkers = 4

// ready is always ready: drifting's channel while a resync is under way.
var ready = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// drifting is a ready channel while folders of a resync remain, nil (never
// ready) otherwise.
func (r *Reconciler) drifting() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.drift) == 0 {
		return nil
	}
	return ready
}

// queueResync starts a periodic resync: every folder of HEAD, and the
// orphans, queued for driftStep.
func (r *Reconciler) queueResync(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.drift) > 0 {
		return // the last one is still under way
	}
	r.lastFull = time.Now()
	if sn, err := r.store.SnapshotHead(); err != nil {
		r.o.Log.Error("reading HEAD", "err", err)
	} else if units, ok := r.allUnits(ctx, sn); ok {
		slices.SortFunc(units, unitOrder)
		r.drift = units
	}
}

// driftStep applies the next Workers folders of a resync together with
// the changes committed since the last sync, which thus wait for one batch,
// not the whole pass.
func (r *Reconciler) driftStep(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := min(len(r.drift), r.o.Workers)
	for _, u := range r.drift[:n] {
		// Marked resync even when not pending: sync, next, may find the
		// folder changed and queue it anew, keeping only the mark.
		if r.pending[u] == nil {
			r.pending[u] = &retry{resync: true}
		} else {
			r.pending[u].resync = true
		}
	}
	r.drift = r.drift[n:]
	r.sync(ctx)
}

// SyncAll applies every folder of HEAD and tears down what is no longer in
// it (the start-up pass; Run's later passes are queueResync's).
func (r *Reconciler) SyncAll(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sn, err := r.store.SnapshotHead()
	if err != nil {
		r.o.Log.Error("reading HEAD", "err", err)
		return
	}
	units, ok := r.allUnits(ctx, sn)
	if !ok {
		return
	}
	for _, u := range units {
		r.pending[u] = &retry{}
	}
	r.lastFull = time.Now()
	// Before the pass, which may take later commits in (takeCommits).
	r.synced = sn.Commit()
	r.process(ctx, sn)
}

// allUnits are the folders of sn and the orphans: inventories of folders
// that left Git while keel was not looking. Without a complete list of
// inventories nothing is torn down.
func (r *Reconciler) allUnits(ctx context.Context, sn *gitstore.Snapshot) ([]string, bool) {
	units, err := listUnits(sn)
	if err != nil {
		r.o.Log.Error("listing folders", "err", err)
		return nil, false
	}
	if invs, err := listInventories(ctx, r.client, r.repoID); err != nil {
		r.o.Log.Error("listing inventories; nothing is pruned until the list is complete", "err", err)
	} else {
		for _, inv := range invs {
			if inv.Unit != "" && !sn.Exists(inv.Unit) {
				units = append(units, inv.Unit)
			}
		}
		r.reportPresent(ctx, sn, units, invs)
	}
	return units, true
}

// Sync handles the folders changed since the last synced commit, and the
// folders waiting for a retry.
func (r *Reconciler) Sync(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sync(ctx)
}

// sync is Sync with r.mu held.
func (r *Reconciler) sync(ctx context.Context) {
	sn, since, ok := r.catchUp()
	if !ok {
		return
	}
	r.markChanged(since)
	r.process(ctx, sn)
}

// catchUp reads HEAD and, when it moved since the synced commit, which
// folders it changed and when each first changed (changedSince), and
// remembers the clusters that left Git (rememberLeft); HEAD is then the
// synced commit. ok is false when HEAD or the diff is unreadable.
func (r *Reconciler) catchUp() (sn *gitstore.Snapshot, since map[string]time.Time, ok bool) {
	sn, err := r.store.SnapshotHead()
	if err != nil {
		r.o.Log.Error("reading HEAD", "err", err)
		return nil, nil, false
	}
	if sn.Commit() == r.synced {
		return sn, nil, true
	}
	var old *gitstore.Snapshot
	if !r.synced.IsZero() {
		if old, err = r.store.SnapshotAt(r.synced); err != nil {
			old = nil // history rewritten: compare with nothing, i.e. apply all
		}
	}
	changed, err := gitstore.ChangedPaths(old, sn)
	if err != nil {
		r.o.Log.Error("diffing commits", "err", err)
		return nil, nil, false
	}
	units := map[string]bool{}
	for _, p := range changed {
		if u, ok := unitOf(p); ok {
			units[u] = true
		}
	}
	r.synced = sn.Commit()
	since, left := r.changedSince(old, sn, units, time.Now())
	r.rememberLeft(left)
	return sn, since, true
}

// markChanged queues changed folders, each dated by its first change not
// applied yet; a resync's mark stays.
func (r *Reconciler) markChanged(since map[string]time.Time) {
	for u, t := range since {
		prev := r.pending[u]
		r.pending[u] = &retry{changed: firstChange(prev, t), resync: prev != nil && prev.resync}
	}
}

// process handles the pending folders whose retry time has come: the
// ClusterClasses first (the clusters of the same pass refer to them), then
// the rest, Workers at a time.
func (r *Reconciler) process(ctx context.Context, sn *gitstore.Snapshot) {
	now := time.Now()
	units := make([]string, 0, len(r.pending))
	for u, rt := range r.pending {
		if !rt.next.After(now) {
			units = append(units, u)
		}
	}
	r.order(units)
	defer func() { metricPending.Set(float64(len(r.pending))) }()
	classes := 0
	for classes < len(units) && isClassUnit(units[classes]) {
		classes++
	}
	if r.runUnits(ctx, sn, units[:classes], false) {
		r.runUnits(ctx, sn, units[classes:], true)
	}
}

// settle records one folder's outcome: done, retried with backoff, polled
// again soon (waiting), or left until Git changes (stalled). applied is
// when its objects were applied (zero if they were not).
func (r *Reconciler) settle(u string, done bool, err error, applied time.Time) {
	r.observeChangeApplied(r.pending[u], err, applied)
	var stalled *status.Stalled
	switch {
	case errors.As(err, &stalled):
		// Not retried: only a new commit can resolve it.
		r.o.Log.Warn("change refused; waiting for Git to change", "unit", u, "reason", stalled.Reason, "message", stalled.Message)
		delete(r.pending, u)
	case err != nil:
		rt := r.pending[u]
		rt.backoff = min(max(rt.backoff*2, r.o.RetryMin), r.o.RetryMax)
		rt.next = time.Now().Add(rt.backoff)
		if isRetiring(err) {
			r.o.Log.Info("applied; a credential rotation waits", "unit", u, "retry_in", rt.backoff, "reason", err)
			return
		}
		r.o.Log.Warn("reconcile failed; will retry", "unit", u, "retry_in", rt.backoff, "err", err)
	case done:
		delete(r.pending, u)
	default: // waiting (e.g. for a Cluster to be deleted): poll again soon
		r.pending[u] = &retry{next: time.Now().Add(r.o.RetryMin), changed: r.pending[u].changed}
	}
}

// isClassUnit tells a ClusterClass folder from a cluster's.
func isClassUnit(unit string) bool { return strings.HasPrefix(unit, intent.ClusterClassesDir+"/") }

// unitOrder puts ClusterClasses first (clusters refer to them), then
// folders by path.
func unitOrder(a, b string) int {
	ca, cb := isClassUnit(a), isClassUnit(b)
	if ca != cb {
		if ca {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// reconcileUnit applies or tears down one folder. done=false with no error
// means it waits for the management cluster and must be looked at again.
// It sets *applied when the folder's objects are applied, before what
// follows (the credential and CA rotation steps, the status records).
func (r *Reconciler) reconcileUnit(ctx context.Context, sn *gitstore.Snapshot, unit string, full bool, applied *time.Time) (done bool, err error) {
	id, err := unitID(unit)
	if err != nil {
		return true, err
	}
	if !sn.Exists(unit) {
		return r.teardown(ctx, unit, id)
	}
	// Back in Git (a revert): a later teardown starts afresh.
	r.lbs.delete(id)
	r.lbCleared.delete(id)
	r.left.delete(id)
	t := target{unit: unit, id: id, renderDir: unit, full: full}
	if strings.HasPrefix(unit, intent.ProjectsDir+"/") {
		c, err := intent.ReadClusterDocument(sn, unit)
		if err != nil {
			return false, err
		}
		if c.ReadOnly() {
			// An imported record keel does not manage: nothing of it is
			// applied (and with no inventory, its removal deletes nothing).
			return true, nil
		}
		t.clusterUUID, t.stackID, t.caRotation = c.UUID, id, c.CARotation
		t.renderDir = intent.RenderedPath(unit)
		if c.Adopted != nil && !sn.Exists(t.renderDir) {
			// keel import commits an adopted cluster's intent, then its
			// rendering: in between there is nothing to apply yet.
			r.o.Log.Info("waiting for keel import to render an adopted cluster", "unit", unit)
			return true, nil
		}
	}
	// The revision of a folder is its tree hash: equal to what the read
	// model projected exactly when the same content was applied.
	tree, err := sn.Hash(unit)
	if err != nil {
		return false, err
	}
	t.rev = tree.String()
	started := time.Now()
	if t.clusterUUID != "" {
		err = r.markMachinesForDeletion(ctx, sn, unit, id)
	}
	if err == nil {
		err = r.apply(ctx, sn, t)
		*applied = time.Now()
	}
	var retiring string
	var rotated bool
	if err == nil && t.clusterUUID != "" {
		retiring, rotated = r.retire(ctx, sn, t)
		if why, due := r.followCARotation(ctx, t); due {
			retiring, rotated = cmp.Or(retiring, why), true
		}
	}
	r.record(ctx, t, started, err)
	if t.clusterUUID != "" && r.sink != nil {
		var gen int64
		if err == nil {
			gen = r.clusterGeneration(ctx, id)
		}
		// Before Applied: a rotation must not be seen complete meanwhile.
		if rotated {
			r.sink.Retiring(ctx, t.clusterUUID, retiring)
		}
		r.sink.Applied(ctx, t.clusterUUID, t.rev, gen, err)
	}
	if err == nil && retiring != "" {
		return false, errRetiring{retiring}
	}
	return err == nil, err
}

// target is one folder being applied: the unit (its folder in Git), its
// inventory id, the folder of its rendered objects, and for a cluster its
// UUID and stack id ("" for a ClusterClass); rev is the folder's tree hash.
type target struct {
	unit, id, renderDir string
	clusterUUID         string
	stackID             string
	rev                 string
	// caRotation is the cluster's CA rotation record (nil: never rotated).
	caRotation *intent.CARotation
	// full: compare every object with the management cluster, not only
	// those changed since this process applied the folder (unchanged.go).
	full bool
}

func (r *Reconciler) apply(ctx context.Context, sn *gitstore.Snapshot, t target) error {
	unit, id, renderDir, clusterUUID, rev := t.unit, t.id, t.renderDir, t.clusterUUID, t.rev
	objs, err := build(sn, renderDir, r.o.Keyring)
	if err != nil {
		return err
	}
	for _, o := range objs {
		if o.GetNamespace() == "" && o.GetKind() != "Namespace" && o.GetKind() != "CustomResourceDefinition" {
			o.SetNamespace(kube.Namespace)
		}
	}
	old, err := loadInventory(ctx, r.client, id)
	if err != nil {
		return fmt.Errorf("reading the inventory of %s: %w", unit, err)
	}
	if err := r.guard(ctx, sn, unit, objs, old); err != nil {
		return err
	}
	opts := ssa.DefaultApplyOptions()
	// Roles before the rest: the API server admits a RoleBinding from keel
	// (which may not bind) only when the Role exists and keel holds its
	// rights, and a dry run of both in one stage sees no Role yet (the
	// cluster-autoscaler's RBAC).
	opts.CustomStageKinds = map[schema.GroupKind]struct{}{{Group: rbacv1.GroupName, Kind: "Role"}: {}}
	if opts.Cleanup.FieldManagers, err = adoptedFieldManagers(objs); err != nil {
		return err
	}
	now, err := digests(objs)
	if err != nil {
		return err
	}
	if err := r.applyChanged(ctx, t, old, objs, now, opts); err != nil {
		return fmt.Errorf("applying %s: %w", unit, err)
	}
	if err := r.releaseDriverAddons(ctx, objs, clusterUUID); err != nil {
		return fmt.Errorf("releasing the driver's addons of %s: %w", unit, err)
	}
	inv := &Inventory{Unit: unit, ClusterUUID: clusterUUID, Revision: rev}
	keep := map[string]bool{}
	for _, o := range objs {
		e := entryOf(o)
		inv.Entries = append(inv.Entries, e)
		keep[e.key()] = true
	}
	// Record the new inventory before pruning: a crash in between leaves
	// stale objects (pruned on the next pass), never forgotten ones.
	var stale []Entry
	if old != nil {
		for _, e := range old.Entries {
			if !keep[e.key()] {
				stale = append(stale, e)
			}
		}
	}
	inv.Entries = append(inv.Entries, stale...)
	if err := saveInventory(ctx, r.client, r.repoID, id, inv); err != nil {
		return fmt.Errorf("saving the inventory of %s: %w", unit, err)
	}
	if len(stale) > 0 {
		gone, err := r.deleteOrdered(ctx, stale, false)
		if err != nil {
			return err
		}
		if gone {
			inv.Entries = inv.Entries[:len(inv.Entries)-len(stale)]
			if err := saveInventory(ctx, r.client, r.repoID, id, inv); err != nil {
				return err
			}
		} else {
			return errWaiting
		}
	}
	return nil
}

var errWaiting = errors.New("waiting for pruned objects to be deleted: a CAPI Cluster before its credentials, and each object until its finalizers let go")

// teardown removes what a folder that left Git had applied: the load
// balancers of the cluster's Services (in OpenStack) first, then Clusters,
// the rest only once no Cluster of the folder exists any more.
func (r *Reconciler) teardown(ctx context.Context, unit, id string) (bool, error) {
	inv, err := loadInventory(ctx, r.client, id)
	if err != nil {
		return false, err
	}
	if inv == nil {
		r.reportLeft(ctx, id)
		return true, nil
	}
	if ok, err := r.releaseLoadBalancers(ctx, id, inv); !ok {
		return false, err
	}
	gone, err := r.deleteOrdered(ctx, inv.Entries, true)
	if err != nil {
		return false, err
	}
	if !gone {
		if inv.ClusterUUID != "" && r.sink != nil {
			r.sink.Deleting(ctx, inv.ClusterUUID, "Waiting for Cluster API to delete the cluster's machines and OpenStack resources")
		}
		return false, nil
	}
	if err := deleteInventory(ctx, r.client, id); err != nil {
		return false, err
	}
	r.lbCleared.delete(id)
	r.caFollowed.delete(id)
	r.applied.delete(id)
	r.retired.delete(id)
	r.left.delete(id)
	if inv.ClusterUUID != "" && r.sink != nil {
		r.sink.Gone(ctx, inv.ClusterUUID)
	}
	return true, nil
}

// deleteOrdered deletes CAPI Clusters, and only when none is left the other
// entries. It reports whether everything is gone. On a teardown the
// clusters' application credentials are deleted in Keystone first (a
// stale Secret of a living cluster keeps its credential).
//
// Workloads (a cluster's cluster-autoscaler) go first, with the Clusters:
// an autoscaler left running while Cluster API deletes the machines would
// resize MachineDeployments being deleted and then fail on a workload
// cluster that is gone. Their RBAC and the rest wait with the credentials.
func (r *Reconciler) deleteOrdered(ctx context.Context, entries []Entry, teardown bool) (bool, error) {
	var clusters, rest []*unstructured.Unstructured
	for _, e := range entries {
		switch {
		case e.Group == "cluster.x-k8s.io" && e.Kind == "Cluster":
			clusters = append(clusters, e.object())
		case e.Group == "apps" && e.Kind == "Deployment":
			o := e.object()
			if err := r.client.Delete(ctx, o, client.PropagationPolicy("Background")); err != nil && !apierrors.IsNotFound(err) {
				return false, fmt.Errorf("deleting %s %s: %w", o.GetKind(), o.GetName(), err)
			}
		default:
			rest = append(rest, e.object())
		}
	}
	for _, c := range clusters {
		err := r.client.Get(ctx, client.ObjectKeyFromObject(c), c)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return false, err
		}
		if c.GetDeletionTimestamp() == nil {
			if err := r.client.Delete(ctx, c, client.PropagationPolicy("Background")); err != nil && !apierrors.IsNotFound(err) {
				return false, err
			}
		}
		return false, nil // still there: its finalizers need the credentials
	}
	if teardown {
		if err := r.releaseServerGroups(ctx, rest); err != nil {
			return false, err
		}
		if err := r.releaseCredentials(ctx, rest); err != nil {
			return false, err
		}
	}
	for _, o := range rest {
		if err := r.client.Delete(ctx, o, client.PropagationPolicy("Background")); err != nil && !apierrors.IsNotFound(err) {
			return false, fmt.Errorf("deleting %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	// Gone means gone: an object with a finalizer (a ClusterResourceSet
	// has Cluster API's) lives on after the delete until its controller
	// lets go, and the API must not answer 404 for it before then.
	for _, o := range rest {
		err := r.client.Get(ctx, client.ObjectKeyFromObject(o), o)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return false, err
		}
		return false, nil
	}
	return true, nil
}

// listUnits lists the folders the reconciler applies: every ClusterClass
// and every cluster of HEAD.
func listUnits(sn *gitstore.Snapshot) ([]string, error) {
	var units []string
	classes, err := sn.List(intent.ClusterClassesDir)
	if err != nil {
		return nil, err
	}
	for _, c := range classes {
		if c.Dir {
			units = append(units, path.Join(intent.ClusterClassesDir, c.Name))
		}
	}
	projects, err := sn.List(intent.ProjectsDir)
	if err != nil {
		return nil, err
	}
	for _, p := range projects {
		dir := path.Join(intent.ProjectsDir, p.Name, "clusters")
		clusters, err := sn.List(dir)
		if err != nil {
			return nil, err
		}
		for _, c := range clusters {
			if c.Dir {
				units = append(units, path.Join(dir, c.Name))
			}
		}
	}
	return units, nil
}

// unitOf maps a changed file to the folder that is applied as one unit.
func unitOf(p string) (string, bool) {
	if d, ok := intent.ClusterDirOfPath(p); ok {
		return d, true
	}
	parts := strings.Split(p, "/")
	if len(parts) >= 3 && parts[0] == intent.ClusterClassesDir {
		return path.Join(parts[:2]...), true
	}
	return "", false
}

// unitID names a unit's inventory: the stack id for a cluster (readable in
// `kubectl get cm`), "class-<name>" for a ClusterClass.
func unitID(unit string) (string, error) {
	if strings.HasPrefix(unit, intent.ClusterClassesDir+"/") {
		return "class-" + path.Base(unit), nil
	}
	if id, ok := intent.StackIDOfDir(unit); ok {
		return id, nil
	}
	return "", fmt.Errorf("%s is not a cluster folder (<name>-<stack_id>)", unit)
}

// clusterGeneration reads the CAPI Cluster's metadata.generation as the
// API server has it right after an apply (0 when it cannot be read: the
// status then only waits for the topology controller, not for the apply).
func (r *Reconciler) clusterGeneration(ctx context.Context, stackID string) int64 {
	var m metav1.PartialObjectMetadata
	m.SetGroupVersionKind(clusterv1.GroupVersion.WithKind("Cluster"))
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: stackID}, &m); err != nil {
		if !apierrors.IsNotFound(err) {
			r.o.Log.Warn("reading the Cluster's generation after an apply", "cluster", stackID, "err", err)
		}
		return 0
	}
	return m.Generation
}
