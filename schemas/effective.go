package schemas

import (
	"fmt"
	"maps"
	"reflect"

	"cuelang.org/go/cue"
	"sigs.k8s.io/yaml"
)

// WithDefaults returns the effective labels: a copy of labels with the
// default of every absent catalogue label filled in (labels whose default is
// derived from other inputs stay absent). The input is not modified.
func (c *Catalogue) WithDefaults(labels map[string]string) map[string]string {
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	for _, l := range c.labels {
		if _, ok := out[l.Name]; !ok && l.Default != "" {
			out[l.Name] = l.Default
		}
	}
	return out
}

// labelValue returns the label's value, else its default; ok is false when there
// is neither.
func (c *Catalogue) labelValue(labels map[string]string, name, typ string) (LabelSpec, string, bool, error) {
	spec, known := c.Lookup(name)
	if !known {
		return spec, "", false, fmt.Errorf("label %s is not in the catalogue", name)
	}
	if typ != "" && spec.Type != typ {
		return spec, "", false, fmt.Errorf("label %s is of type %s, not %s", name, spec.Type, typ)
	}
	if v, ok := labels[name]; ok {
		return spec, v, true, nil
	}
	return spec, spec.Default, spec.Default != "", nil
}

// Bool returns a boolean label, applying its default.
func (c *Catalogue) Bool(labels map[string]string, name string) (bool, error) {
	_, v, ok, err := c.labelValue(labels, name, TypeBool)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, fmt.Errorf("label %s is not set and has no default", name)
	}
	b, err := ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("label %s: %w", name, err)
	}
	return b, nil
}

// Int returns an integer label, applying its default.
func (c *Catalogue) Int(labels map[string]string, name string) (int64, error) {
	_, v, ok, err := c.labelValue(labels, name, TypeInt)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("label %s is not set and has no default", name)
	}
	n, err := ParseInt(v)
	if err != nil {
		return 0, fmt.Errorf("label %s: %w", name, err)
	}
	return n, nil
}

// String returns a label's value, else its default, else "". Unknown labels
// are returned as given.
func (c *Catalogue) String(labels map[string]string, name string) string {
	if v, ok := labels[name]; ok {
		return v
	}
	if spec, ok := c.Lookup(name); ok {
		return spec.Default
	}
	return ""
}

// ImmutableChanges lists the immutable labels whose effective value differs
// between two revisions of a cluster's or a nodegroup's labels. Values are
// compared as their type reads them ("True" and "yes" are the same bool).
// Templates have no immutable labels: they are copied into a cluster at
// create time, so scope template always returns nil.
func (c *Catalogue) ImmutableChanges(scope Scope, old, new map[string]string) []Violation {
	if scope == ScopeTemplate {
		return nil
	}
	eo, en := c.WithDefaults(old), c.WithDefaults(new)
	var vs []Violation
	for _, l := range c.labels {
		if !l.Immutable || !l.InScope(scope) && scope != ScopeNodeGroup {
			continue
		}
		ov, oOK := eo[l.Name]
		nv, nOK := en[l.Name]
		if oOK == nOK && sameValue(l.Type, ov, nv) {
			continue
		}
		was := fmt.Sprintf("%q", ov)
		if !oOK {
			was = "unset"
		}
		vs = append(vs, Violation{Field: "labels." + l.Name, Value: nv,
			Message: fmt.Sprintf("immutable after creation (was %s): Cluster API keeps the creation value", was)})
	}
	return vs
}

func sameValue(typ, a, b string) bool {
	switch typ {
	case TypeBool:
		x, err1 := ParseBool(a)
		y, err2 := ParseBool(b)
		if err1 == nil && err2 == nil {
			return x == y
		}
	case TypeInt:
		x, err1 := ParseInt(a)
		y, err2 := ParseInt(b)
		if err1 == nil && err2 == nil {
			return x == y
		}
	}
	return a == b
}

// ImmutableFields returns the fields of a document kind marked
// @keel(immutable) in the schema.
func (c *Catalogue) ImmutableFields(kind string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	def := c.value.LookupPath(cue.MakePath(cue.Def(kind)))
	it, err := def.Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	var out []string
	for it.Next() {
		a := it.Value().Attribute("keel")
		if a.Err() != nil {
			continue
		}
		if ok, _ := a.Flag(0, "immutable"); ok {
			out = append(out, it.Selector().Unquoted())
		}
	}
	return out
}

// ImmutableDocumentChanges compares two revisions of a document (YAML or
// JSON) and lists the @keel(immutable) fields that changed, and for clusters
// and nodegroups the immutable labels (ImmutableChanges).
func (c *Catalogue) ImmutableDocumentChanges(kind string, old, new []byte) ([]Violation, error) {
	var o, n map[string]any
	if err := yaml.Unmarshal(old, &o); err != nil {
		return nil, fmt.Errorf("old revision: %w", err)
	}
	if err := yaml.Unmarshal(new, &n); err != nil {
		return nil, fmt.Errorf("new revision: %w", err)
	}
	var vs []Violation
	for _, f := range c.ImmutableFields(kind) {
		ov, nv := o[f], n[f]
		if reflect.DeepEqual(ov, nv) {
			continue
		}
		was := "unset"
		if ov != nil {
			was = fmt.Sprintf("%v", ov)
		}
		val := ""
		if nv != nil {
			val = fmt.Sprintf("%v", nv)
		}
		vs = append(vs, Violation{Field: f, Value: val, Message: "immutable after creation (was " + was + ")"})
	}
	if scope, ok := kindScope[kind]; ok {
		vs = append(vs, c.ImmutableChanges(scope, stringMap(o["labels"]), stringMap(n["labels"]))...)
	}
	sortViolations(vs)
	return vs, nil
}

func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, x := range m {
		out[k] = fmt.Sprint(x)
	}
	return out
}
