package restapi

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

	"github.com/openkeel/keel/schemas"
)

// Request bodies are parsed with Magnum's (WSME's) rules: unknown attributes
// and read-only attributes are refused, explicit nulls are accepted for
// optional fields, integers must be JSON numbers, booleans are JSON booleans
// or oslo-strict strings, and label values are coerced to strings.

type kind int

const (
	kString kind = iota
	kInt
	kBool
	kLabels
	kStringList
	kAny // accepted and ignored (Magnum ignores it)
)

type field struct {
	name      string
	kind      kind
	readOnly  bool
	mandatory bool
	minLen    int
	maxLen    int
	min, max  *int64
	enum      []string
	pattern   *regexp.Regexp
}

func i64(v int64) *int64 { return &v }

// body is a parsed request body: present keys with their decoded values
// (nil for an explicit null).
type body map[string]any

func (b body) str(k string) *string {
	if v, ok := b[k].(string); ok {
		return &v
	}
	return nil
}

func (b body) integer(k string) *int64 {
	if v, ok := b[k].(int64); ok {
		return &v
	}
	return nil
}

func (b body) boolean(k string) *bool {
	if v, ok := b[k].(bool); ok {
		return &v
	}
	return nil
}

func (b body) labels(k string) (map[string]string, bool) {
	v, ok := b[k].(map[string]string)
	return v, ok
}

func invalid(f, value, why string) *Error {
	return badRequest("Invalid input for field/attribute %s. Value: '%s'. %s", f, value, why)
}

// parseBody decodes a JSON object against the fields of argument arg.
func parseBody(raw []byte, arg string, fields []field) (body, *Error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, badRequest(`Missing argument: "%s"`, arg)
	}
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&obj); err != nil {
		return nil, badRequest("Request is not in valid JSON format")
	}
	if obj == nil {
		return nil, badRequest(`Missing argument: "%s"`, arg)
	}
	byName := map[string]field{}
	for _, f := range fields {
		byName[f.name] = f
	}
	var unknown []string
	for k := range obj {
		if _, ok := byName[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, badRequest("Unknown attribute for argument %s: %s", arg, strings.Join(unknown, ", "))
	}
	out := body{}
	for _, f := range fields {
		rawv, present := obj[f.name]
		if !present {
			if f.mandatory {
				return nil, invalid(f.name, "", "Mandatory field missing.")
			}
			continue
		}
		if f.readOnly {
			return nil, invalid(f.name, strings.Trim(string(rawv), `"`), "Cannot set read only field.")
		}
		if string(bytes.TrimSpace(rawv)) == "null" {
			// WSME treats an explicit null of a mandatory attribute as
			// missing; handlers may rely on mandatory fields being set.
			if f.mandatory {
				return nil, invalid(f.name, "None", "Mandatory field missing.")
			}
			out[f.name] = nil
			continue
		}
		v, err := decodeField(f, rawv)
		if err != nil {
			return nil, err
		}
		out[f.name] = v
	}
	return out, nil
}

func decodeField(f field, raw json.RawMessage) (any, *Error) {
	text := strings.Trim(string(raw), `"`)
	var x any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&x); err != nil {
		return nil, invalid(f.name, text, "Wrong type.")
	}
	switch f.kind {
	case kAny:
		return x, nil
	case kString:
		s, ok := x.(string)
		if !ok {
			return nil, invalid(f.name, text, "Wrong type. Expected '<class 'str'>', got '"+pyType(x)+"'")
		}
		if f.minLen > 0 && len(s) < f.minLen {
			return nil, invalid(f.name, s, fmt.Sprintf("Value should have a minimum character requirement of %d", f.minLen))
		}
		if f.maxLen > 0 && len(s) > f.maxLen {
			return nil, invalid(f.name, s, fmt.Sprintf("Value should have a maximum character requirement of %d", f.maxLen))
		}
		if len(f.enum) > 0 && !slices.Contains(f.enum, s) {
			return nil, invalid(f.name, s, "Value should be one of: "+strings.Join(f.enum, ", "))
		}
		if f.pattern != nil && !f.pattern.MatchString(s) {
			return nil, invalid(f.name, s, "Value should match the pattern "+f.pattern.String())
		}
		return s, nil
	case kInt:
		n, ok := x.(json.Number)
		if !ok {
			return nil, invalid(f.name, text, "Wrong type. Expected '<class 'int'>', got '"+pyType(x)+"'")
		}
		v, err := n.Int64()
		if err != nil {
			fl, ferr := n.Float64()
			if ferr != nil || fl != math.Trunc(fl) {
				return nil, invalid(f.name, text, "Wrong type. Expected '<class 'int'>', got '<class 'float'>'")
			}
			v = int64(fl) // integral floats are coerced, as WSME does
		}
		if f.min != nil && v < *f.min {
			return nil, invalid(f.name, text, fmt.Sprintf("Value should be greater or equal to %d", *f.min))
		}
		if f.max != nil && v > *f.max {
			return nil, invalid(f.name, text, fmt.Sprintf("Value should be lower or equal to %d", *f.max))
		}
		return v, nil
	case kBool:
		switch b := x.(type) {
		case bool:
			return b, nil
		case string:
			v, err := schemas.ParseBool(b)
			if err != nil {
				return nil, invalid(f.name, b, "Wrong type. Expected a boolean (true/false, 1/0, yes/no, on/off, y/n, t/f)")
			}
			return v, nil
		}
		return nil, invalid(f.name, text, "Wrong type. Expected '<class 'bool'>', got '"+pyType(x)+"'")
	case kLabels:
		m, ok := x.(map[string]any)
		if !ok {
			return nil, invalid(f.name, text, "Wrong type. Expected '<class 'dict'>', got '"+pyType(x)+"'")
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			s, ok := pyStr(v)
			if !ok {
				return nil, invalid(f.name, text, "Wrong type. Label "+k+" must be a string, number or boolean")
			}
			out[k] = s
		}
		return out, nil
	case kStringList:
		l, ok := x.([]any)
		if !ok {
			return nil, invalid(f.name, text, "Wrong type. Expected a list of strings")
		}
		out := make([]string, 0, len(l))
		for _, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, invalid(f.name, text, "Wrong type. Expected a list of strings")
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, invalid(f.name, text, "Wrong type.")
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

func pyType(v any) string {
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
