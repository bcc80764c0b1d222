package magnumimport

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/schemas"
)

// Plan is what an import would write into a repository snapshot: one
// commit per project (Unit), and what cannot be imported and why.
type Plan struct {
	Source, Version string
	Units           []*Unit
	// Refused are objects keel cannot import (labels or fields its schema
	// refuses, values it cannot read): any of them refuses the whole
	// import, so nothing is half-imported.
	Refused []string
	// Skipped are objects left out by design: Heat-era cluster templates
	// keel's schema cannot hold (their clusters are read-only records).
	Skipped []string
}

// Unit is one project's commit.
type Unit struct {
	Project   string
	Lines     []string // what the commit does, one object a line
	Unchanged int
	Changes   []gitstore.Change
	created   map[string]int // kind → objects created
	updated   map[string]int
	// sealed: the unit writes a key document, which needs the keyring.
	sealed bool
}

// Writes reports whether the unit changes anything.
func (u *Unit) Writes() bool { return len(u.Changes) > 0 }

// Build plans the import of m into t under its site catalogue cat, for
// every project (only: one project's unit, as Apply recomputes each
// commit on the snapshot it is made on).
func Build(m *Magnum, t intent.Tree, cat *schemas.Catalogue, only string) (*Plan, error) {
	ix, err := readIndex(t)
	if err != nil {
		return nil, fmt.Errorf("reading keel's repository: %w", err)
	}
	seq, err := intent.ReadSequences(t)
	if err != nil {
		return nil, err
	}
	p := &Plan{Source: m.Source.Display, Version: m.Version}
	pl := &planner{m: m, t: t, cat: cat, ix: ix, plan: p}
	for _, project := range m.projects() {
		if only != "" && project != only {
			continue
		}
		u := &Unit{Project: project, created: map[string]int{}, updated: map[string]int{}}
		pl.unit, pl.seq = u, *seq
		if err := pl.project(project); err != nil {
			return nil, err
		}
		if seqChange, ok := pl.sequences(seq); ok && u.Writes() {
			u.Changes = append(u.Changes, seqChange)
		}
		p.Units = append(p.Units, u)
	}
	return p, nil
}

// projects lists every project m has an object of, sorted.
func (m *Magnum) projects() []string {
	set := map[string]bool{}
	for _, t := range m.Templates {
		set[t.Doc.ProjectID] = true
	}
	for _, c := range m.Clusters {
		set[c.Doc.ProjectID] = true
	}
	for _, q := range m.Quotas {
		set[q.Doc.ProjectID] = true
	}
	return sortedKeys(set)
}

type planner struct {
	m    *Magnum
	t    intent.Tree
	cat  *schemas.Catalogue
	ix   *index
	plan *Plan
	unit *Unit
	seq  intent.Sequences // the counters as the unit raises them
}

func (pl *planner) project(project string) error {
	if !intent.ValidProjectID(project) {
		pl.refuse("project %q: %s", project, intent.ProjectIDRule)
		return nil
	}
	for _, o := range pl.m.Templates {
		if o.Doc.ProjectID == project {
			if err := pl.template(o); err != nil {
				return err
			}
		}
	}
	for _, o := range pl.m.Clusters {
		if o.Doc.ProjectID == project {
			if err := pl.cluster(o); err != nil {
				return err
			}
		}
	}
	for _, o := range pl.m.Quotas {
		if o.Doc.ProjectID == project {
			if err := pl.quota(o); err != nil {
				return err
			}
		}
	}
	return nil
}

func (pl *planner) refuse(format string, args ...any) {
	pl.plan.Refused = append(pl.plan.Refused, fmt.Sprintf(format, args...))
}

// id is the integer id an object gets: the one keel already gave it, else
// Magnum's when no other object holds it, else the next of the counter.
func (pl *planner) id(kind string, magnum int64, owner string, existing int64, counter *int64) int64 {
	id := existing
	if id == 0 && magnum > 0 {
		id = pl.ix.freeID(kind, magnum, owner)
	}
	if id == 0 {
		*counter++
		id = *counter
	}
	*counter = max(*counter, id)
	pl.ix.ids[kind][id] = owner
	return id
}

// document marshals and validates one document: nil changes and a
// refusal when keel's schema refuses it.
func (pl *planner) document(what, p, kind string, doc any) ([]byte, bool) {
	if err := gitstore.CheckPath(p); err != nil {
		pl.refuse("%s: it would be stored at %q, which keel refuses: %v", what, p, err)
		return nil, false
	}
	data, err := intent.Marshal(doc)
	if err != nil {
		pl.refuse("%s: %v", what, err)
		return nil, false
	}
	if msgs := pl.validate(kind, data); len(msgs) > 0 {
		pl.refuse("%s: keel's schema refuses %s", what, strings.Join(msgs, "; "))
		return nil, false
	}
	return data, true
}

// validate is the schema's verdict on a document, remembered.
func (pl *planner) validate(kind string, data []byte) []string {
	key := checkKey{cat: pl.cat, kind: kind, sum: sha256.Sum256(data)}
	if v, ok := pl.m.checked.Load(key); ok {
		return v.([]string)
	}
	vs := pl.cat.ValidateDocument(kind, data)
	msgs := make([]string, len(vs))
	for i, v := range vs {
		msgs[i] = v.String()
	}
	pl.m.checked.Store(key, msgs)
	return msgs
}

// write adds a document's change unless the repository holds it already;
// it reports what it did (create, update or "").
func (pl *planner) write(p string, data []byte) (string, error) {
	old, err := pl.t.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		pl.unit.Changes = append(pl.unit.Changes, gitstore.Change{Path: p, Data: data})
		return "create", nil
	case err != nil:
		return "", err
	case bytes.Equal(old, data):
		return "", nil
	}
	pl.unit.Changes = append(pl.unit.Changes, gitstore.Change{Path: p, Data: data})
	return "update", nil
}

func (pl *planner) line(verb, kind, what string) {
	if verb == "" {
		pl.unit.Unchanged++
		return
	}
	if verb == "create" {
		pl.unit.created[kind]++
	} else {
		pl.unit.updated[kind]++
	}
	pl.unit.Lines = append(pl.unit.Lines, fmt.Sprintf("%-7s %s", verb, what))
}

func normalizedLines(what string, ns []schemas.Normalized) []string {
	var out []string
	for _, n := range ns {
		out = append(out, fmt.Sprintf("        %s: label %s normalised from %q to %q", what, n.Label, n.From, n.To))
	}
	return out
}

func (pl *planner) template(o Object[intent.ClusterTemplate]) error {
	doc := o.Doc
	what := fmt.Sprintf("cluster template %s (%s)", doc.UUID, doc.Name)
	if o.Err != nil {
		pl.refuse("%s: %v", what, o.Err)
		return nil
	}
	existing := pl.ix.templates[doc.UUID]
	var oldID int64
	if existing != "" {
		old, err := intent.ReadTemplate(pl.t, existing)
		if err != nil {
			return err
		}
		oldID = old.ID
	}
	doc.ID = pl.id(intent.KindClusterTemplate, doc.ID, doc.UUID, oldID, &pl.seq.ClusterTemplates)
	p := intent.TemplatePath(doc.ProjectID, doc.UUID)
	if heatTemplate(&doc) {
		if vs := pl.cat.ValidateDocument(intent.KindClusterTemplate, mustMarshal(doc)); len(vs) > 0 {
			pl.plan.Skipped = append(pl.plan.Skipped, fmt.Sprintf("%s: a Heat-era template keel cannot serve (%s); its clusters are imported as read-only records", what, vs[0]))
			return nil
		}
	}
	data, ok := pl.document(what, p, intent.KindClusterTemplate, doc)
	if !ok {
		return nil
	}
	if existing != "" && existing != p {
		pl.unit.Changes = append(pl.unit.Changes, gitstore.Change{Path: existing, Delete: true})
	}
	verb, err := pl.write(p, data)
	pl.line(verb, "templates", what)
	if verb != "" {
		pl.unit.Lines = append(pl.unit.Lines, normalizedLines("template", o.Normalized)...)
	}
	return err
}

// heatTemplate: a template only Magnum's Heat drivers served.
func heatTemplate(t *intent.ClusterTemplate) bool {
	return t.COE != "kubernetes" || hasPrefixAny(strings.ToLower(intent.Deref(t.ClusterDistro)), heatDistros) ||
		(t.Driver != nil && !strings.Contains(*t.Driver, "capi") && !strings.Contains(*t.Driver, "cluster_api"))
}

func mustMarshal(v any) []byte {
	data, err := intent.Marshal(v)
	if err != nil {
		return nil
	}
	return data
}

func (pl *planner) quota(o Object[intent.Quota]) error {
	doc := o.Doc
	what := fmt.Sprintf("quota %s of project %s (hard_limit %d)", doc.Resource, doc.ProjectID, doc.HardLimit)
	if o.Err != nil {
		pl.refuse("%s: %v", what, o.Err)
		return nil
	}
	p := intent.QuotaPath(doc.ProjectID)
	var oldID int64
	if pl.ix.quotas[doc.ProjectID] {
		old, err := intent.ReadQuota(pl.t, p)
		if err != nil {
			return err
		}
		oldID = old.ID
	}
	doc.ID = pl.id(intent.KindQuota, doc.ID, doc.ProjectID, oldID, &pl.seq.Quotas)
	data, ok := pl.document(what, p, intent.KindQuota, doc)
	if !ok {
		return nil
	}
	verb, err := pl.write(p, data)
	pl.line(verb, "quotas", what)
	return err
}

// sequences is the counters' change when the unit raised them.
func (pl *planner) sequences(old *intent.Sequences) (gitstore.Change, bool) {
	if pl.seq == *old {
		return gitstore.Change{}, false
	}
	data, err := pl.seq.Marshal()
	if err != nil {
		return gitstore.Change{}, false
	}
	return gitstore.Change{Path: intent.SequencesPath, Data: data}, true
}
