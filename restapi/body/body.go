// Package body parses Magnum API request bodies with Magnum's (WSME's)
// rules and error messages.
package body

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/schemas"
)

// Request bodies are parsed with Magnum's (WSME's) rules: unknown attributes
// and read-only attributes are refused, explicit nulls are accepted for
// optional fields, integers must be JSON numbers, booleans are JSON booleans
// or oslo-strict strings, and label values are coerced to strings.

// Kind is an attribute's type.
type Kind int

// The attribute types.
const (
	String Kind = iota
	Int
	Bool
	Labels
	StringList
	Any // accepted and ignored (Magnum ignores it)
)

// Field is one attribute of a request body and its WSME rules.
type Field struct {
	Name      string
	Kind      Kind
	ReadOnly  bool
	Mandatory bool
	MinLen    int
	MaxLen    int
	Min, Max  *int64
	Enum      []string
	Pattern   *regexp.Regexp
	// Rule says in words what Pattern allows (the 400's title); without
	// it the title shows the pattern, as WSME's does.
	Rule string
}

// I64 is a pointer to v (Field.Min, Field.Max).
func I64(v int64) *int64 { return &v }

// Body is a parsed request body: present keys with their decoded values
// (nil for an explicit null).
type Body map[string]any

// Str is the string attribute k, nil when absent or null.
func (b Body) Str(k string) *string {
	if v, ok := b[k].(string); ok {
		return &v
	}
	return nil
}

// Integer is the integer attribute k, nil when absent or null.
func (b Body) Integer(k string) *int64 {
	if v, ok := b[k].(int64); ok {
		return &v
	}
	return nil
}

// Boolean is the boolean attribute k, nil when absent or null.
func (b Body) Boolean(k string) *bool {
	if v, ok := b[k].(bool); ok {
		return &v
	}
	return nil
}

// Labels is the label attribute k, and whether it is set (not null).
func (b Body) Labels(k string) (map[string]string, bool) {
	v, ok := b[k].(map[string]string)
	return v, ok
}

// Invalid is WSME's "Invalid input for field/attribute" 400.
func Invalid(f, value, why string) *apierr.Error {
	return apierr.BadRequest("Invalid input for field/attribute %s. Value: '%s'. %s", f, value, why)
}

// Parse decodes a JSON object against the fields of argument arg.
func Parse(raw []byte, arg string, fields []Field) (Body, *apierr.Error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, apierr.BadRequest(`Missing argument: "%s"`, arg)
	}
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&obj); err != nil {
		return nil, apierr.BadRequest("Request is not in valid JSON format")
	}
	if obj == nil {
		return nil, apierr.BadRequest(`Missing argument: "%s"`, arg)
	}
	byName := map[string]Field{}
	for _, f := range fields {
		byName[f.Name] = f
	}
	var unknown []string
	for k := range obj {
		if _, ok := byName[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, apierr.BadRequest("Unknown attribute for argument %s: %s", arg, strings.Join(unknown, ", "))
	}
	out := Body{}
	for _, f := range fields {
		rawv, present := obj[f.Name]
		if !present {
			if f.Mandatory {
				return nil, Invalid(f.Name, "", "Mandatory field missing.")
			}
			continue
		}
		if f.ReadOnly {
			return nil, Invalid(f.Name, strings.Trim(string(rawv), `"`), "Cannot set read only field.")
		}
		if string(bytes.TrimSpace(rawv)) == "null" {
			// WSME treats an explicit null of a mandatory attribute as
			// missing; handlers may rely on mandatory fields being set.
			if f.Mandatory {
				return nil, Invalid(f.Name, "None", "Mandatory field missing.")
			}
			out[f.Name] = nil
			continue
		}
		v, err := Decode(f, rawv)
		if err != nil {
			return nil, err
		}
		out[f.Name] = v
	}
	return out, nil
}

// Decode decodes and validates one attribute's JSON value.
func Decode(f Field, raw json.RawMessage) (any, *apierr.Error) {
	text := strings.Trim(string(raw), `"`)
	var x any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&x); err != nil {
		return nil, Invalid(f.Name, text, "Wrong type.")
	}
	switch f.Kind {
	case Any:
		return x, nil
	case String:
		s, ok := x.(string)
		if !ok {
			return nil, Invalid(f.Name, text, "Wrong type. Expected '<class 'str'>', got '"+PyType(x)+"'")
		}
		if f.MinLen > 0 && len(s) < f.MinLen {
			return nil, Invalid(f.Name, s, fmt.Sprintf("Value should have a minimum character requirement of %d", f.MinLen))
		}
		if f.MaxLen > 0 && len(s) > f.MaxLen {
			return nil, Invalid(f.Name, s, fmt.Sprintf("Value should have a maximum character requirement of %d", f.MaxLen))
		}
		if len(f.Enum) > 0 && !slices.Contains(f.Enum, s) {
			return nil, Invalid(f.Name, s, "Value should be one of: "+strings.Join(f.Enum, ", "))
		}
		if f.Pattern != nil && !f.Pattern.MatchString(s) {
			if f.Rule != "" {
				return nil, Invalid(f.Name, s, f.Rule)
			}
			return nil, Invalid(f.Name, s, "Value should match the pattern "+f.Pattern.String())
		}
		return s, nil
	case Int:
		n, ok := x.(json.Number)
		if !ok {
			return nil, Invalid(f.Name, text, "Wrong type. Expected '<class 'int'>', got '"+PyType(x)+"'")
		}
		v, err := n.Int64()
		if err != nil {
			fl, ferr := n.Float64()
			if ferr != nil || fl != math.Trunc(fl) {
				return nil, Invalid(f.Name, text, "Wrong type. Expected '<class 'int'>', got '<class 'float'>'")
			}
			v = int64(fl) // integral floats are coerced, as WSME does
		}
		if f.Min != nil && v < *f.Min {
			return nil, Invalid(f.Name, text, fmt.Sprintf("Value should be greater or equal to %d", *f.Min))
		}
		if f.Max != nil && v > *f.Max {
			return nil, Invalid(f.Name, text, fmt.Sprintf("Value should be lower or equal to %d", *f.Max))
		}
		return v, nil
	case Bool:
		switch b := x.(type) {
		case bool:
			return b, nil
		case string:
			v, err := schemas.ParseBool(b)
			if err != nil {
				return nil, Invalid(f.Name, b, "Wrong type. Expected a boolean (true/false, 1/0, yes/no, on/off, y/n, t/f)")
			}
			return v, nil
		}
		return nil, Invalid(f.Name, text, "Wrong type. Expected '<class 'bool'>', got '"+PyType(x)+"'")
	case Labels:
		m, ok := x.(map[string]any)
		if !ok {
			return nil, Invalid(f.Name, text, "Wrong type. Expected '<class 'dict'>', got '"+PyType(x)+"'")
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			s, ok := pyStr(v)
			if !ok {
				return nil, Invalid(f.Name, text, "Wrong type. Label "+k+" must be a string, number or boolean")
			}
			out[k] = s
		}
		if f.Name == "labels" {
			// Values Magnum accepted in another form (a trailing slash on
			// container_infra_prefix) are taken in keel's.
			out, _ = schemas.NormalizeLabels(out)
		}
		return out, nil
	case StringList:
		l, ok := x.([]any)
		if !ok {
			return nil, Invalid(f.Name, text, "Wrong type. Expected a list of strings")
		}
		out := make([]string, 0, len(l))
		for _, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, Invalid(f.Name, text, "Wrong type. Expected a list of strings")
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, Invalid(f.Name, text, "Wrong type.")
}

// pyStr renders a label value as Python's str() would (Magnum stores label
// values as strings: true → "True", 1.5 → "1.5").
func pyStr(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		if x {
			return "True", true
		}
		return "False", true
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return strconv.FormatInt(i, 10), true
		}
		f, err := x.Float64()
		if err != nil {
			return "", false
		}
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s, true
	}
	return "", false
}

// PyType is the Python class name of a decoded JSON value, as WSME's
// messages show it.
func PyType(v any) string {
	switch v.(type) {
	case string:
		return "<class 'str'>"
	case bool:
		return "<class 'bool'>"
	case json.Number:
		return "<class 'int'>"
	case []any:
		return "<class 'list'>"
	case map[string]any:
		return "<class 'dict'>"
	}
	return "<class 'NoneType'>"
}
