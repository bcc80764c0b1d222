package schemas

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/errors"
	cueyaml "cuelang.org/go/encoding/yaml"

	"github.com/openkeel/keel/intent"
)

// Violation is a value the schema refuses.
type Violation struct {
	// Field is the path of the offending field, e.g. labels.boot_volume_size
	// (Vet prefixes it with the file: projects/p/.../cluster.yaml:labels.x).
	Field string
	// Value is the offending value as written, when there is one.
	Value string
	// Message says what is wrong and what is allowed.
	Message string
}

func (v Violation) String() string {
	if v.Value == "" {
		return v.Field + ": " + v.Message
	}
	return fmt.Sprintf("%s: %q: %s", v.Field, v.Value, v.Message)
}

// Warning is something the schema accepts but a reviewer should know: an
// unknown label, an ignored Heat-era label, a label without effect here.
type Warning struct {
	Field   string
	Message string
}

func (w Warning) String() string { return w.Field + ": " + w.Message }

// ValidateOptions tune label validation.
type ValidateOptions struct {
	// Strict refuses labels that are not in the catalogue (the site may also
	// ask for it with site.strict).
	Strict bool
	// Allow lists names strict mode accepts anyway: exact names, or prefixes
	// ending in '*'. Added to the site's site.allow.
	Allow []string
}

var kindScope = map[string]Scope{
	intent.KindClusterTemplate: ScopeTemplate,
	intent.KindCluster:         ScopeCluster,
	intent.KindNodeGroup:       ScopeNodeGroup,
}

// ValidateLabels validates a label set used at scope. Violations are values
// the schema refuses (a wrong value, a near-miss of a catalogue label such as
// boot_volume_szie, an unknown label in strict mode); warnings are unknown
// labels, ignored Heat-era labels and labels without effect at scope.
func (c *Catalogue) ValidateLabels(scope Scope, labels map[string]string, o ValidateOptions) ([]Violation, []Warning) {
	vs := c.labelViolations(labels)

	more, ws := c.labelFindings("labels", scope, labels, o, vs)
	vs = append(vs, more...)
	sortViolations(vs)
	return vs, ws
}

// labelViolations is the CUE evaluation of labels against #Labels,
// remembered per label set: it is most of the cost of a write (milliseconds
// per set), and the clusters of a template share its set.
func (c *Catalogue) labelViolations(labels map[string]string) []Violation {
	key, err := json.Marshal(labels) // sorted keys: one key per set
	if vs, ok := c.labelMemo.Get(string(key)); ok && err == nil {
		return slices.Clone(vs)
	}
	c.mu.Lock()
	data := c.ctx.Encode(labels)
	u := c.value.LookupPath(cue.ParsePath("#Labels")).Unify(data)
	vs := c.collect(u.Validate(cue.Concrete(true)), "labels", data)
	c.mu.Unlock()
	if err == nil {
		c.labelMemo.Put(string(key), slices.Clone(vs))
	}
	return vs
}

// labelFindings adds what the CUE evaluation does not say: warnings for
// unknown and ignored labels, and strict-mode refusals asked for in Go.
// already holds the violations found so far, so that a label is reported once.
func (c *Catalogue) labelFindings(prefix string, scope Scope, labels map[string]string, o ValidateOptions, already []Violation) ([]Violation, []Warning) {
	flagged := map[string]bool{}
	for _, v := range already {
		flagged[v.Field] = true
	}
	strict := o.Strict || c.strict
	allow := append(slices.Clip(c.allow), o.Allow...)

	var vs []Violation
	var ws []Warning
	for _, name := range slices.Sorted(maps.Keys(labels)) {
		field := prefix + "." + name
		spec, known := c.Lookup(name)
		switch {
		case !known && flagged[field]:
			// A typo or a site-strict refusal, already reported by CUE.
		case !known && strict && !allowed(name, allow):
			vs = append(vs, Violation{Field: field, Value: labels[name],
				Message: "unknown label: strict mode accepts only catalogue labels and allow-listed names"})
		case !known:
			ws = append(ws, Warning{Field: field, Message: "unknown label: stored as given, keel does not use it"})
		case spec.Ignored:
			msg := "ignored on Cluster API (" + strings.TrimSuffix(spec.Doc, ".") + ")"
			if spec.Sensitive {
				msg += "; it holds a secret in clear text in Git: remove it"
			}
			ws = append(ws, Warning{Field: field, Message: msg})
		case !spec.InScope(scope) && scope != ScopeNodeGroup:
			// Nodegroups carry copies of their cluster's labels (Magnum copies
			// them at create), so cluster-only labels there are expected.
			ws = append(ws, Warning{Field: field, Message: fmt.Sprintf("has no effect on a %s (it is read from the %s)", scope, joinScopes(spec.Scopes))})
		}
	}
	return vs, ws
}

func joinScopes(s []Scope) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = string(x)
	}
	return strings.Join(parts, " or ")
}

func allowed(name string, allow []string) bool {
	for _, a := range allow {
		if p, ok := strings.CutSuffix(a, "*"); ok {
			if strings.HasPrefix(name, p) {
				return true
			}
		} else if a == name {
			return true
		}
	}
	return false
}

// ValidateDocument validates an intent document (YAML or JSON) of the given
// kind, including its labels. An empty kind validates by the document's own
// kind field.
func (c *Catalogue) ValidateDocument(kind string, doc []byte) []Violation {
	c.mu.Lock()
	defer c.mu.Unlock()
	data, vs := c.parseDocument(doc)
	if vs != nil {
		return vs
	}
	def := "#Document"
	if kind != "" {
		if _, ok := kindScope[kind]; !ok && kind != intent.KindQuota {
			return []Violation{{Field: "kind", Value: kind, Message: "unknown kind: must be ClusterTemplate, Cluster, NodeGroup or Quota"}}
		}
		if got, err := data.LookupPath(cue.ParsePath("kind")).String(); err == nil && got != kind {
			return []Violation{{Field: "kind", Value: got, Message: "must be " + kind + " for this file"}}
		}
		def = "#" + kind
	}
	u := c.value.LookupPath(cue.ParsePath(def)).Unify(data)
	vs = c.collect(u.Validate(cue.Concrete(true)), "", data)
	sortViolations(vs)
	return vs
}

func (c *Catalogue) parseDocument(doc []byte) (cue.Value, []Violation) {
	f, err := cueyaml.Extract("document.yaml", doc)
	if err != nil {
		return cue.Value{}, []Violation{{Message: "not a YAML or JSON document: " + errorText(err)}}
	}
	data := c.ctx.BuildFile(f)
	if err := data.Err(); err != nil {
		return cue.Value{}, []Violation{{Message: "not a YAML or JSON document: " + errorText(err)}}
	}
	if data.IncompleteKind() != cue.StructKind {
		return cue.Value{}, []Violation{{Message: "not a YAML or JSON object"}}
	}
	return data, nil
}

// collect turns CUE errors into violations: one per field, with the most
// specific message (the schema's own error texts over CUE's generic ones).
// root is "labels" when the validated value is a bare label set.
func (c *Catalogue) collect(err error, root string, data cue.Value) []Violation {
	if err == nil {
		return nil
	}
	type cand struct {
		msg   string
		score int
	}
	best := map[string]cand{}
	var order []string
	paths := map[string][]string{}
	for _, e := range errors.Errors(err) {
		format, args := e.Msg()
		msg := fmt.Sprintf(format, args...)
		if strings.Contains(format, "errors in empty disjunction") {
			continue // a summary; the disjuncts' own errors follow
		}
		p := fieldPath(e.Path())
		if root != "" {
			p = append([]string{root}, p...)
		}
		key := strings.Join(p, ".")
		msg, score := refine(msg, p)
		b, ok := best[key]
		switch {
		case !ok:
			order = append(order, key)
			paths[key] = p
			best[key] = cand{msg, score}
		case score > b.score:
			best[key] = cand{msg, score}
		case score == b.score && score > 1 && !strings.Contains(b.msg, msg):
			// e.g. several bad items of one list: report them all
			best[key] = cand{b.msg + "; " + msg, score}
		}
	}
	vs := make([]Violation, 0, len(order))
	for _, key := range order {
		p := paths[key]
		lookup := p
		if root != "" {
			lookup = p[1:]
		}
		vs = append(vs, Violation{Field: key, Value: valueAt(data, lookup), Message: best[key].msg})
	}
	return vs
}

// refine rewrites CUE's generic messages into ones a reviewer can act on and
// scores them: messages the schema wrote itself (error(...)) win.
func refine(msg string, path []string) (string, int) {
	isLabel := len(path) == 2 && path[0] == "labels"
	switch {
	case strings.Contains(msg, "mismatched types") && isLabel:
		// The root cause; beats the type's own message about the content.
		return "must be a string: label values are strings (quote it in YAML)", 3
	case strings.Contains(msg, "mismatched types"):
		return "wrong type: " + msg, 1
	case msg == "field not allowed":
		return "unknown field", 1
	case strings.HasPrefix(msg, "field is required but not present"):
		return "required field is missing", 1
	case strings.HasPrefix(msg, "conflicting values"), strings.HasPrefix(msg, "invalid value"),
		strings.HasPrefix(msg, "incomplete value"), strings.HasPrefix(msg, "explicit error"):
		return msg, 1
	}
	return msg, 2
}

// fieldPath turns the path of a CUE error into the path of the document field
// it is about. The schema's hidden checks (_check, _rules, _site) are keyed
// by the label they concern; any other hidden field _x checks field x.
func fieldPath(p []string) []string {
	var out []string
	for i := 0; i < len(p); i++ {
		s := unquoteSel(p[i])
		if strings.HasPrefix(s, "#") {
			continue // the definition validated against, e.g. #Document
		}
		if !strings.HasPrefix(s, "_") {
			out = append(out, s)
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(s, "_"), "@")
		switch name {
		case "check", "rules", "site", "typo":
			if i+1 < len(p) {
				out = append(out, unquoteSel(p[i+1]))
			}
			return out
		default:
			out = append(out, name)
		}
	}
	return out
}

func unquoteSel(s string) string {
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// valueAt renders the data at path p, or "" when there is none.
func valueAt(data cue.Value, p []string) string {
	if len(p) == 0 {
		return ""
	}
	sels := make([]cue.Selector, len(p))
	for i, s := range p {
		if n, err := strconv.Atoi(s); err == nil {
			sels[i] = cue.Index(n)
		} else {
			sels[i] = cue.Str(s)
		}
	}
	v := data.LookupPath(cue.MakePath(sels...))
	if !v.Exists() {
		return ""
	}
	if s, err := v.String(); err == nil {
		return s
	}
	return fmt.Sprint(v)
}

func sortViolations(vs []Violation) {
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Field < vs[j].Field })
}

// ValidateField validates one field of a document kind on its own (the
// definition's other fields are not required), so that the API refuses a
// value with the schema's rule and message: the schema stays the one source
// of the rule.
func (c *Catalogue) ValidateField(kind, field string, value any) []Violation {
	c.mu.Lock()
	defer c.mu.Unlock()
	def := c.value.LookupPath(cue.MakePath(cue.Def(kind)))
	if _, ok := kindScope[kind]; !ok && kind != intent.KindQuota || !def.Exists() {
		return []Violation{{Field: "kind", Value: kind, Message: "unknown kind: must be ClusterTemplate, Cluster, NodeGroup or Quota"}}
	}
	data := c.ctx.Encode(map[string]any{field: value})
	u := def.Unify(data)
	var out []Violation
	for _, v := range c.collect(u.Validate(cue.Concrete(true)), "", data) {
		if v.Field == field || strings.HasPrefix(v.Field, field+".") {
			out = append(out, v)
		}
	}
	return out
}
