package schemas

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"

	"github.com/openkeel/keel/internal/memo"
)

// Scope is where a label is set: on a cluster template, a cluster or a
// nodegroup.
type Scope string

// Scopes of a label.
const (
	ScopeTemplate  Scope = "template"
	ScopeCluster   Scope = "cluster"
	ScopeNodeGroup Scope = "nodegroup"
)

// Label types, as the catalogue's `type` field spells them.
const (
	TypeBool     = "bool"
	TypeInt      = "int"
	TypeEnum     = "enum"
	TypeVersion  = "version"
	TypeCIDR     = "cidr"
	TypeCIDRList = "cidr-list"
	TypeIP       = "ip"
	TypeList     = "list"
	TypeString   = "string"
	TypeURL      = "url"
	TypeDuration = "duration"
	TypeIgnored  = "ignored"
)

// LabelSpec describes one label of the catalogue, as read from the CUE.
type LabelSpec struct {
	Name string
	// Type is one of the Type* constants.
	Type string
	// Default is the effective default (the site's, else the catalogue's);
	// empty when the label has no static default.
	Default string
	// Derived says how the default is computed when it is not static.
	Derived string
	// Doc is the one-line documentation of the label.
	Doc string
	// Target is what the label drives on Cluster API / the workload cluster.
	Target string
	// Allowed lists the accepted values (or list items); a site narrowing
	// (site.allowed) replaces the catalogue's list.
	Allowed []string
	// Min and Max bound integer labels.
	Min, Max *int64
	// Pattern and Format describe string values (Format in words).
	Pattern, Format string
	// Example is a valid value.
	Example string
	Scopes  []Scope
	// Immutable labels keep their creation value on a running cluster.
	Immutable bool
	// Ignored labels are Heat-era labels: accepted, reported, unused.
	Ignored bool
	// Sensitive labels hold secrets that must not be stored in Git.
	Sensitive bool
	// SiteNarrowed is set when site.allowed narrows the label.
	SiteNarrowed bool
}

// InScope reports whether the label has an effect at scope s.
func (l LabelSpec) InScope(s Scope) bool { return slices.Contains(l.Scopes, s) }

// Catalogue is the loaded schema: the embedded CUE, optionally narrowed by a
// site file. It is safe for concurrent use.
type Catalogue struct {
	// mu serialises CUE evaluation: a cue.Context is not safe for concurrent use.
	mu     *sync.Mutex
	ctx    *cue.Context
	files  []*ast.File
	value  cue.Value
	labels []LabelSpec
	byName map[string]int

	strict bool
	allow  []string
	review []ReviewRule

	// labelMemo: label sets (as JSON) → their CUE violations
	// (labelViolations); bounded (labels are bounded by the API's limits).
	labelMemo *memo.Map[string, []Violation]
}

var defaultCatalogue = sync.OnceValues(func() (*Catalogue, error) {
	return load(nil)
})

// Default returns the embedded schema, loaded once. It panics if the embedded
// CUE does not load: that is a build defect the package tests catch.
func Default() *Catalogue {
	c, err := defaultCatalogue()
	if err != nil {
		panic("schemas: embedded CUE does not load: " + err.Error())
	}
	return c
}

// Load loads the embedded schema, returning an error instead of panicking.
func Load() (*Catalogue, error) { return defaultCatalogue() }

// WithSite returns a catalogue narrowed by a site file: CUE source of package
// schemas (the package clause may be omitted) that is unified with the
// schema, typically setting site.defaults, site.allowed, site.strict or
// site.allow. The receiver is not modified.
func (c *Catalogue) WithSite(src []byte) (*Catalogue, error) {
	f, err := parseSite(src)
	if err != nil {
		return nil, err
	}
	extra := append(slices.Clip(c.files[len(embeddedNames()):]), f)
	return load(extra)
}

func parseSite(src []byte) (*ast.File, error) {
	f, err := parser.ParseFile("site.cue", src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("site file: %s", errorText(err))
	}
	if f.PackageName() == "" {
		// Allow a bare site file; the schema package is implied.
		f.Decls = append([]ast.Decl{&ast.Package{Name: ast.NewIdent("schemas")}}, f.Decls...)
	} else if f.PackageName() != "schemas" {
		return nil, fmt.Errorf("site file: package %q, want package schemas", f.PackageName())
	}
	return f, nil
}

func embeddedNames() []string {
	names, err := fs.Glob(FS, "*.cue")
	if err != nil {
		panic(err) // the pattern is constant
	}
	sort.Strings(names)
	return names
}

// load builds package schemas from the embedded files plus extra (site)
// files and reads the label catalogue out of it.
func load(extra []*ast.File) (*Catalogue, error) {
	var files []*ast.File
	for _, name := range embeddedNames() {
		src, err := FS.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(name, src, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("%s: %s", name, errorText(err))
		}
		files = append(files, f)
	}
	files = append(files, extra...)

	inst := build.NewContext().NewInstance("schemas", nil)
	for _, f := range files {
		if err := inst.AddSyntax(f); err != nil {
			return nil, fmt.Errorf("schema: %s", errorText(err))
		}
	}
	ctx := cuecontext.New()
	v := ctx.BuildInstance(inst)
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("schema: %s", errorText(err))
	}
	c := &Catalogue{mu: new(sync.Mutex), ctx: ctx, files: files, value: v, labelMemo: &memo.Map[string, []Violation]{Max: 1024}}
	if err := c.readCatalogue(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Catalogue) readCatalogue() error {
	site := c.value.LookupPath(cue.ParsePath("site"))
	if err := site.Validate(cue.Concrete(true)); err != nil {
		return fmt.Errorf("site: %s", errorText(err))
	}
	eff := c.value.LookupPath(cue.ParsePath("effectiveDefaults"))
	if err := eff.Validate(cue.Concrete(true)); err != nil {
		return fmt.Errorf("site defaults: %s", errorText(err))
	}
	if b, err := site.LookupPath(cue.ParsePath("strict")).Bool(); err == nil {
		c.strict = b
	}
	if err := site.LookupPath(cue.ParsePath("allow")).Decode(&c.allow); err != nil {
		return fmt.Errorf("site.allow: %s", errorText(err))
	}
	if err := site.LookupPath(cue.ParsePath("review")).Decode(&c.review); err != nil {
		return fmt.Errorf("site.review: %s", errorText(err))
	}
	var siteAllowed map[string][]string
	if err := site.LookupPath(cue.ParsePath("allowed")).Decode(&siteAllowed); err != nil {
		return fmt.Errorf("site.allowed: %s", errorText(err))
	}

	it, err := c.value.LookupPath(cue.ParsePath("labels")).Fields()
	if err != nil {
		return fmt.Errorf("labels: %s", errorText(err))
	}
	c.byName = map[string]int{}
	for it.Next() {
		name := it.Selector().Unquoted()
		spec, err := readLabel(name, it.Value())
		if err != nil {
			return fmt.Errorf("labels.%s: %w", name, err)
		}
		if d := eff.LookupPath(cue.MakePath(cue.Str(name))); d.Exists() {
			spec.Default, _ = d.String()
		}
		if a, ok := siteAllowed[name]; ok {
			spec.Allowed, spec.SiteNarrowed = a, true
		}
		c.labels = append(c.labels, spec)
	}
	sort.Slice(c.labels, func(i, j int) bool { return c.labels[i].Name < c.labels[j].Name })
	for i, l := range c.labels {
		c.byName[l.Name] = i
	}
	return nil
}

func readLabel(name string, v cue.Value) (LabelSpec, error) {
	s := LabelSpec{Name: name}
	str := func(field string) string {
		f := v.LookupPath(cue.MakePath(cue.Str(field)))
		if !f.Exists() {
			return ""
		}
		x, _ := f.String()
		return x
	}
	s.Type = str("type")
	if s.Type == "" {
		return s, fmt.Errorf("no type")
	}
	s.Derived, s.Target, s.Pattern, s.Format, s.Example = str("derived"), str("target"), str("pattern"), str("format"), str("example")
	if a := v.LookupPath(cue.ParsePath("allowed")); a.Exists() {
		if err := a.Decode(&s.Allowed); err != nil {
			return s, fmt.Errorf("allowed: %s", errorText(err))
		}
	}
	for field, dst := range map[string]**int64{"min": &s.Min, "max": &s.Max} {
		if f := v.LookupPath(cue.MakePath(cue.Str(field))); f.Exists() {
			n, err := f.Int64()
			if err != nil {
				return s, fmt.Errorf("%s: %s", field, errorText(err))
			}
			*dst = &n
		}
	}
	s.Doc = fieldDoc(v)
	if s.Doc == "" {
		return s, fmt.Errorf("no doc comment")
	}
	attr := v.Attribute("keel")
	if err := attr.Err(); err != nil {
		return s, fmt.Errorf("no @keel attribute: %s", errorText(err))
	}
	if err := parseKeelAttr(attr, &s); err != nil {
		return s, err
	}
	if len(s.Scopes) == 0 {
		return s, fmt.Errorf("@keel attribute names no scope")
	}
	if s.Ignored != (s.Type == TypeIgnored) {
		return s, fmt.Errorf("@keel(ignored) and type ignored must go together")
	}
	return s, nil
}

// parseKeelAttr reads @keel(scope=a,b,flag,...): bare words after scope=
// that name a scope extend it, the others are flags.
func parseKeelAttr(a cue.Attribute, s *LabelSpec) error {
	for i := 0; i < a.NumArgs(); i++ {
		key, val := a.Arg(i)
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch {
		case key == "scope":
			if !validScope(val) {
				return fmt.Errorf("@keel: unknown scope %q", val)
			}
			s.Scopes = append(s.Scopes, Scope(val))
		case val != "":
			return fmt.Errorf("@keel: unknown key %q", key)
		case validScope(key):
			s.Scopes = append(s.Scopes, Scope(key))
		case key == "immutable":
			s.Immutable = true
		case key == "ignored":
			s.Ignored = true
		case key == "sensitive":
			s.Sensitive = true
		default:
			return fmt.Errorf("@keel: unknown flag %q", key)
		}
	}
	return nil
}

func validScope(s string) bool {
	switch Scope(s) {
	case ScopeTemplate, ScopeCluster, ScopeNodeGroup:
		return true
	}
	return false
}

// fieldDoc returns the doc comment written on the field itself: Doc() also
// returns the comments of the definitions it unifies with (#Label, #Bool...),
// which come from other files.
func fieldDoc(v cue.Value) string {
	var last string
	for _, cg := range v.Doc() {
		if t := strings.TrimSpace(cg.Text()); t != "" {
			last = t
		}
	}
	return strings.Join(strings.Fields(last), " ")
}

// Labels returns the catalogue, sorted by name.
func (c *Catalogue) Labels() []LabelSpec {
	out := make([]LabelSpec, len(c.labels))
	copy(out, c.labels)
	return out
}

// Lookup returns the spec of a catalogue label.
func (c *Catalogue) Lookup(name string) (LabelSpec, bool) {
	i, ok := c.byName[name]
	if !ok {
		return LabelSpec{}, false
	}
	return c.labels[i], true
}

// Strict reports whether the site requires strict label checking.
func (c *Catalogue) Strict() bool { return c.strict }

func errorText(err error) string {
	var parts []string
	for _, e := range errors.Errors(err) {
		format, args := e.Msg()
		msg := fmt.Sprintf(format, args...)
		if p := strings.Join(e.Path(), "."); p != "" {
			msg = p + ": " + msg
		}
		parts = append(parts, msg)
	}
	if len(parts) == 0 {
		return err.Error()
	}
	return strings.Join(parts, "; ")
}
