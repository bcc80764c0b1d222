package review

// Pull requests people open (not keel): keel fetches their head, runs
// `keel vet`'s checks and `keel plan` against main, comments the plan and
// sets the commit status keel/vet, as a CI job running both would. The
// forge's webhook (Webhook) queues them; PullChecks.Run works them off one
// at a time. See docs/repository.md, "Pull requests people open".

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/schemas"
)

// VetContext is the commit status keel sets on a pull request's head.
const VetContext = "keel/vet"

// PullQueue bounds the pull requests waiting for a check: a forge that
// sends more than that at once gets 503s and redelivers later.
const PullQueue = 32

// PullCheckTimeout bounds one check (fetch, vet, plan, comment, status).
const PullCheckTimeout = 2 * time.Minute

// maxListed bounds the violations a comment lists (the status names the
// first; `keel vet` prints them all).
const maxListed = 50

// maxStatusDescription is GitHub's limit on a status description.
const maxStatusDescription = 140

// PullEvent is a pull request a webhook announced: opened, or its head
// moved.
type PullEvent struct {
	Number int64
	// Ref is the server's ref of the head (gitstore.PullRef or
	// gitstore.MergeRequestRef).
	Ref     string
	HeadRef string
	HeadSHA string
	BaseRef string
	Body    string
}

// Keel's own: its review branches and marker (mode.go). Those bodies
// already hold the plan, and their change passed the API's validation.
func (e PullEvent) byKeel() bool {
	if strings.HasPrefix(e.HeadRef, gitstore.ReviewBranchPrefix) {
		return true
	}
	_, ok := parseMarker(e.Body)
	return ok
}

// PullChecks checks the pull requests people open.
type PullChecks struct {
	Forge forge.Forge
	Store *gitstore.Store
	Log   *slog.Logger

	// Pending, when set, are keel's own open reviews: a person's pull
	// request that changes one of their objects is told so.
	Pending *Pending

	jobs chan PullEvent
	mu   sync.Mutex
	// touched are the objects each person's open pull request changes
	// (as last checked), to find two that conflict.
	touched map[int64][]string
	// done are the heads already commented on (pull request/sha), so that
	// a redelivered event does not comment twice.
	done map[string]bool
}

// NewPullChecks is an idle checker; run it with Run.
func NewPullChecks(f forge.Forge, st *gitstore.Store, log *slog.Logger) *PullChecks {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &PullChecks{Forge: f, Store: st, Log: log, jobs: make(chan PullEvent, PullQueue), done: map[string]bool{}}
}

// Enqueue queues a check; false when the queue is full.
func (p *PullChecks) Enqueue(e PullEvent) bool {
	select {
	case p.jobs <- e:
		return true
	default:
		return false
	}
}

// Run checks the queued pull requests until ctx ends.
func (p *PullChecks) Run(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case e := <-p.jobs:
			cctx, cancel := context.WithTimeout(ctx, PullCheckTimeout)
			p.check(cctx, e)
			cancel()
		}
	}
}

func (p *PullChecks) seen(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done[key] {
		return true
	}
	if len(p.done) >= 10*PullQueue { // a memory of recent heads is enough
		clear(p.done)
	}
	p.done[key] = true
	return false
}

// check runs one pull request's check; every failure ends as status error
// (when the head is known) and a log line.
func (p *PullChecks) check(ctx context.Context, e PullEvent) {
	log := p.Log.With("pull_request", e.Number, "head", e.HeadSHA)
	head, err := p.Store.FetchPull(ctx, e.Number, e.Ref)
	if err != nil {
		log.Error("fetching a pull request's head", "err", err)
		p.status(ctx, log, e.HeadSHA, forge.Error, "keel could not fetch the pull request: "+err.Error())
		return
	}
	// A later push may have moved the head since the event: check what
	// the server has now (that push's event then finds it done).
	sha := head.String()
	if p.seen(fmt.Sprint(e.Number, "/", sha)) {
		return
	}
	p.status(ctx, log, sha, forge.Pending, "keel is checking this change")
	res, err := p.run(ctx, head)
	if err != nil {
		log.Error("checking a pull request", "err", err)
		p.status(ctx, log, sha, forge.Error, "keel could not check the change: "+err.Error())
		return
	}
	res.conflicts = p.conflicts(ctx, e.Number, res.objects)
	if err := p.Forge.Comment(ctx, e.Number, res.comment(sha)); err != nil {
		log.Error("commenting the plan", "err", err)
	}
	state, desc := forge.Success, "keel vet: no problems"
	if len(res.conflicts) > 0 {
		desc += "; another open pull request changes the same objects (see the comment)"
	}
	if len(res.violations) > 0 {
		state, desc = forge.Failure, res.violations[0].String()
		if n := len(res.violations) - 1; n > 0 {
			desc = fmt.Sprintf("(%d more) %s", n, desc)
		}
	}
	p.status(ctx, log, sha, state, desc)
	log.Info("pull request checked", "state", state, "violations", len(res.violations))
}

func (p *PullChecks) status(ctx context.Context, log *slog.Logger, sha string, s forge.CommitState, desc string) {
	if sha == "" {
		return
	}
	if r := []rune(desc); len(r) > maxStatusDescription {
		desc = string(r[:maxStatusDescription-1]) + "…"
	}
	if err := p.Forge.SetStatus(ctx, sha, forge.Status{State: s, Context: VetContext, Description: desc}); err != nil {
		log.Error("setting the commit status", "state", s, "err", err)
	}
}

// pullResult is what a check found.
type pullResult struct {
	base       plumbing.Hash
	violations []schemas.Violation
	warnings   []schemas.Warning
	plan       string
	// stale are the clusters whose intent the change edits but whose
	// committed output it does not match: merging would apply the old
	// output (keel applies rendered/ as committed).
	stale []string
	// objects are the cluster folders and template files the change
	// touches; conflicts, the other open pull requests touching them.
	objects   []string
	conflicts []string
}

func (p *PullChecks) run(ctx context.Context, head plumbing.Hash) (*pullResult, error) {
	main, err := p.Store.Head()
	if err != nil {
		return nil, err
	}
	base, err := p.Store.MergeBase(head, main)
	if err != nil {
		return nil, err
	}
	if base.IsZero() {
		return nil, errors.New("the head shares no history with " + gitstore.Branch)
	}
	bs, err := p.Store.SnapshotAt(base)
	if err != nil {
		return nil, err
	}
	hs, err := p.Store.SnapshotAt(head)
	if err != nil {
		return nil, err
	}
	res := &pullResult{base: base}
	if res.violations, res.warnings, err = vetSnapshot(hs); err != nil {
		return nil, err
	}
	changed, err := gitstore.ChangedPaths(bs, hs)
	if err != nil {
		return nil, err
	}
	more, err := schemas.ImmutableChanges(changed, bs.ReadFile, hs.ReadFile)
	if err != nil {
		return nil, err
	}
	res.violations = append(res.violations, more...)
	if res.objects, err = changedObjects(bs, hs); err != nil {
		return nil, err
	}
	res.stale = staleClusters(hs, res.objects)
	// A plan that cannot be computed (e.g. a document vet refuses) is a
	// line of the comment, not a failed check: vet says what is wrong.
	res.plan = planText(ctx, bs, hs)
	return res, nil
}

// pullMarker ends keel's comment, naming the head it checked.
const pullMarker = "<!-- keel-check "

func (r *pullResult) comment(sha string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "keel checked %s against %s (merge base %s).\n\n", intent.ShortRevision(sha), gitstore.Branch, intent.ShortRevision(r.base.String()))
	b.WriteString("## keel plan\n\n```\n")
	b.WriteString(strings.TrimRight(r.plan, "\n"))
	b.WriteString("\n```\n")
	if len(r.stale) > 0 {
		b.WriteString("\n**The plan shows the committed output, which the intent no longer matches** " +
			"(`keel compile --check` fails; run `keel compile` and push):\n")
		for _, s := range r.stale {
			fmt.Fprintf(&b, "- `%s`\n", s)
		}
	}
	if len(r.conflicts) > 0 {
		b.WriteString("\n## Conflicts\n\nOther open pull requests change what this one changes; " +
			"whichever merges second applies on top of the first, not as its plan says. " +
			"Merge one, then update the other (keel checks it again on its next push):\n")
		for _, c := range r.conflicts {
			fmt.Fprintf(&b, "- %s\n", c)
		}
	}
	b.WriteString("\n## keel vet\n\n")
	if len(r.violations) == 0 {
		b.WriteString("No problems.\n")
	}
	for i, v := range r.violations {
		if i == maxListed {
			fmt.Fprintf(&b, "- … and %d more (run `keel vet`)\n", len(r.violations)-maxListed)
			break
		}
		fmt.Fprintf(&b, "- `%s`\n", v.String())
	}
	if len(r.warnings) > 0 {
		fmt.Fprintf(&b, "\nWarnings: %d", len(r.warnings))
		for i, w := range r.warnings {
			if i == maxListed {
				b.WriteString("\n- …")
				break
			}
			fmt.Fprintf(&b, "\n- `%s`", w.String())
		}
		b.WriteString("\n")
	}
	m, _ := json.Marshal(map[string]string{"sha": sha}) // a string: cannot fail
	b.WriteString("\n" + pullMarker + string(m) + " -->\n")
	return b.String()
}

// vetSnapshot runs schemas.Vet (what `keel vet` runs on a checkout) on a
// commit: its intent documents and site file are written to a temporary
// folder, rendered output, facts and secrets left out (vet does not read
// them).
func vetSnapshot(sn *gitstore.Snapshot) ([]schemas.Violation, []schemas.Warning, error) {
	dir, err := os.MkdirTemp("", "keel-vet-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	write := func(p string, data []byte) error {
		if d, ok := intent.ClusterDirOfPath(p); ok {
			// keel's own files of a cluster folder, which vet does not
			// validate (a checkout's `keel vet` warns of each).
			rel := strings.TrimPrefix(p, d+"/")
			if rel == intent.FactsFile || strings.HasPrefix(rel, intent.SecretsDir+"/") || strings.HasPrefix(rel, intent.RenderedDir+"/") {
				return nil
			}
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		return os.WriteFile(full, data, 0o644)
	}
	for _, top := range []string{intent.ProjectsDir, intent.QuotasDir} {
		if err := sn.Walk(top, write); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
	}
	site, err := sn.ReadFile(schemas.DefaultSiteFile)
	switch {
	case err == nil:
		if err := write(schemas.DefaultSiteFile, site); err != nil {
			return nil, nil, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, nil, err
	}
	vs, ws, err := schemas.Vet(dir, schemas.VetOptions{})
	if err != nil {
		// A site file that does not compile stops vet: for a pull request
		// that is the problem to report.
		return []schemas.Violation{{Field: schemas.DefaultSiteFile, Message: err.Error()}}, nil, nil
	}
	return vs, ws, nil
}

// staleClusters runs `keel compile --check` on the clusters whose folder
// the change touches (the cost follows the change): one line per cluster
// whose committed output differs from a fresh compilation.
func staleClusters(hs *gitstore.Snapshot, objects []string) []string {
	var dirs []string // objects is sorted, so are they
	for _, o := range objects {
		if !intent.IsTemplateFile(o) && hs.Exists(path.Join(o, intent.ClusterFile)) {
			dirs = append(dirs, o)
		}
	}
	if len(dirs) == 0 {
		return nil
	}
	cat, err := schemas.SiteCatalogue(hs)
	if err != nil {
		return nil // vet reports the site file
	}
	var out []string
	for _, d := range dirs {
		_, problems, err := repo.Staleness(hs, d, cat)
		switch {
		case err != nil:
			out = append(out, d+": does not compile: "+err.Error())
		case len(problems) > 0:
			out = append(out, d+": "+strings.Join(problems, ", "))
		}
	}
	return out
}
