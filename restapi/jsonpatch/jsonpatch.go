// Package jsonpatch applies Magnum's JSON patches (RFC 6902 with Magnum's
// restrictions) and parses the Python literals some of their values are.
package jsonpatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/body"
)

// Magnum's PATCH routes (cluster templates, clusters, nodegroups) take an
// RFC 6902 JSON patch with Magnum's own restrictions, reproduced here:
//
//   - ops are add, replace and remove; paths match ^(/[\w-]+)+$, so a key
//     holding '.', '/' or '~' cannot be addressed and its map must be
//     replaced whole;
//   - a value is a JSON string or integer (booleans pass as integers); maps
//     travel as Python-literal strings ("{'k': 'v'}") for `replace` on the
//     map-valued paths of the resource (/labels, /health_status_reason...);
//   - a top-level `add` may only fill an attribute that exists and is null;
//   - every resource has internal paths no op may touch and mandatory
//     attributes no `remove` may drop.
//
// The patch is applied to the resource's document (a JSON-like map), and
// the handler re-validates the patched fields with the POST rules.

// Op is one operation of a patch.
type Op struct {
	Op       string
	Path     string
	Value    any
	HasValue bool
}

// Rules are a resource's restrictions.
type Rules struct {
	// Internal paths refuse every op.
	Internal []string
	// Mandatory paths refuse remove.
	Mandatory []string
	// Literal paths take a Python-literal string on replace.
	Literal []string
}

// MaxOps is the most operations of one patch (restapi's request limits).
const MaxOps = 100

// baseInternal are internal on every resource (Magnum's JsonPatchType).
var baseInternal = []string{"/created_at", "/id", "/links", "/updated_at", "/uuid", "/project_id", "/user_id"}

// pathPattern is Magnum's path type. Python's \w is Unicode-aware.
var pathPattern = regexp.MustCompile(`^(/[\p{L}\p{N}_-]+)+$`)

const pathPatternText = `^(/[\w-]+)+$`

// Parse decodes and validates a patch body.
func Parse(raw []byte, rules Rules) ([]Op, *apierr.Error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, apierr.BadRequest(`Missing argument: "patch"`)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		var anyv any
		if json.Unmarshal(raw, &anyv) != nil {
			return nil, apierr.BadRequest("Request is not in valid JSON format")
		}
		return nil, body.Invalid("patch", truncate(string(raw)), "Wrong type. Expected '<class 'list'>', got '"+body.PyType(anyv)+"'")
	}
	if items == nil {
		return nil, apierr.BadRequest(`Missing argument: "patch"`)
	}
	if len(items) > MaxOps {
		return nil, apierr.BadRequest("Invalid input for field/attribute patch: %d operations, at most %d are accepted in one request.", len(items), MaxOps)
	}
	ops := make([]Op, 0, len(items))
	for _, it := range items {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(it, &obj); err != nil || obj == nil {
			return nil, body.Invalid("patch", truncate(string(it)), "Wrong type. Expected a JSON patch operation object")
		}
		var unknown []string
		for k := range obj {
			if k != "op" && k != "path" && k != "value" {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			return nil, apierr.BadRequest("Unknown attribute for argument patch: %s", strings.Join(unknown, ", "))
		}
		var op Op
		for _, k := range []string{"path", "op"} {
			rawv, ok := obj[k]
			if !ok {
				return nil, body.Invalid(k, "", "Mandatory field missing.")
			}
			var s string
			if err := json.Unmarshal(rawv, &s); err != nil {
				return nil, body.Invalid(k, strings.Trim(string(rawv), `"`), "Wrong type. Expected '<class 'str'>'")
			}
			if k == "path" {
				if !pathPattern.MatchString(s) {
					return nil, body.Invalid("path", s, "Value should match the pattern "+pathPatternText)
				}
				op.Path = s
			} else {
				if s != "add" && s != "replace" && s != "remove" {
					return nil, body.Invalid("op", s, "Value should be one of: add, replace, remove")
				}
				op.Op = s
			}
		}
		if rawv, ok := obj["value"]; ok {
			v, err := patchValue(rawv)
			if err != nil {
				return nil, err
			}
			op.Value, op.HasValue = v, true
		}
		ops = append(ops, op)
	}
	for _, op := range ops {
		if slices.Contains(baseInternal, op.Path) || slices.Contains(rules.Internal, op.Path) {
			return nil, apierr.BadRequest("'%s' is an internal attribute and can not be updated", op.Path)
		}
		if op.Op == "remove" && slices.Contains(rules.Mandatory, op.Path) {
			return nil, apierr.BadRequest("'%s' is a mandatory attribute and can not be removed", op.Path)
		}
		if op.Op != "remove" && !op.HasValue {
			return nil, apierr.BadRequest("'add' and 'replace' operations needs value")
		}
	}
	return ops, nil
}

// patchValue accepts what Magnum's MultiType(str, int) accepts: strings,
// integers, booleans (a Python bool is an int) and null.
func patchValue(raw json.RawMessage) (any, *apierr.Error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, apierr.BadRequest("Request is not in valid JSON format")
	}
	switch x := v.(type) {
	case nil, string, bool:
		return v, nil
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return x, nil
		}
		return nil, body.Invalid("value", x.String(), "Wrong type. Expected '[<class 'str'>, <class 'int'>]', got '<class 'float'>'")
	}
	return nil, body.Invalid("value", truncate(string(raw)), "Wrong type. Expected '[<class 'str'>, <class 'int'>]', got '"+body.PyType(v)+"'")
}

func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// CannotApply is Magnum's 400 for a patch that does not apply to the document.
func CannotApply(ops []Op, reason string) *apierr.Error {
	return apierr.BadRequest("Couldn't apply patch '%s'. Reason: %s", patchRepr(ops), reason)
}

// Apply applies ops to a copy of doc with Magnum's apply_jsonpatch
// rules and returns the patched document.
func Apply(doc map[string]any, ops []Op, rules Rules) (map[string]any, *apierr.Error) {
	// Magnum checks every root add against the unpatched document and
	// converts the literal values before applying anything.
	conv := make([]Op, len(ops))
	copy(conv, ops)
	for i, op := range conv {
		if op.Op == "add" && strings.Count(op.Path, "/") == 1 {
			attr := op.Path[1:]
			v, ok := doc[attr]
			if !ok {
				return nil, apierr.BadRequest("Adding a new attribute %s to the root of the resource is not allowed.", op.Path)
			}
			if v != nil {
				return nil, apierr.BadRequest("The attribute %s has existed, please use 'replace' operation instead.", op.Path)
			}
		}
		if op.Op == "replace" && slices.Contains(rules.Literal, op.Path) {
			s, ok := op.Value.(string)
			if !ok {
				return nil, CannotApply(ops, fmt.Sprintf("malformed node or string: %s", PyRepr(op.Value)))
			}
			v, err := parsePyLiteral(s)
			if err != nil {
				return nil, CannotApply(ops, err.Error())
			}
			conv[i].Value = v
		}
	}
	out := deepCopy(doc).(map[string]any)
	for _, op := range conv {
		if err := applyOp(out, op); err != nil {
			return nil, CannotApply(ops, err.Error())
		}
	}
	return out, nil
}

func applyOp(doc map[string]any, op Op) error {
	parts := strings.Split(op.Path[1:], "/")
	var parent any = doc
	for i, p := range parts[:len(parts)-1] {
		switch c := parent.(type) {
		case map[string]any:
			v, ok := c[p]
			if !ok {
				return fmt.Errorf("member '%s' not found in %s", p, PyRepr(c))
			}
			parent = v
		case []any:
			n, err := listIndex(p, len(c), false)
			if err != nil {
				return err
			}
			parent = c[n]
		default:
			return fmt.Errorf("document '%s' does not support indexing, must be mapping/sequence or support __getitem__", PyRepr(parent))
		}
		_ = i
	}
	last := parts[len(parts)-1]
	value := deepCopy(op.Value)
	switch c := parent.(type) {
	case map[string]any:
		_, exists := c[last]
		switch op.Op {
		case "add":
			c[last] = value
		case "replace":
			if !exists {
				return fmt.Errorf("can't replace a non-existent object '%s'", last)
			}
			c[last] = value
		case "remove":
			if !exists {
				return fmt.Errorf("can't remove a non-existent object '%s'", last)
			}
			delete(c, last)
		}
		return nil
	case []any:
		// Lists are only reachable under a map (node_taints), so the parent
		// map must be rewritten with the new slice.
		n, err := listIndex(last, len(c), op.Op == "add")
		if err != nil {
			return err
		}
		var nl []any
		switch op.Op {
		case "add":
			nl = append(append(append([]any{}, c[:n]...), value), c[n:]...)
		case "replace":
			nl = append([]any{}, c...)
			nl[n] = value
		case "remove":
			nl = append(append([]any{}, c[:n]...), c[n+1:]...)
		}
		return setAt(doc, parts[:len(parts)-1], nl)
	}
	return fmt.Errorf("document '%s' does not support indexing, must be mapping/sequence or support __getitem__", PyRepr(parent))
}

func setAt(doc map[string]any, parts []string, v any) error {
	var cur any = doc
	for i, p := range parts {
		if i == len(parts)-1 {
			switch c := cur.(type) {
			case map[string]any:
				c[p] = v
				return nil
			case []any:
				n, err := listIndex(p, len(c), false)
				if err != nil {
					return err
				}
				c[n] = v
				return nil
			}
			return fmt.Errorf("cannot set %s", p)
		}
		switch c := cur.(type) {
		case map[string]any:
			cur = c[p]
		case []any:
			n, err := listIndex(p, len(c), false)
			if err != nil {
				return err
			}
			cur = c[n]
		}
	}
	return nil
}

func listIndex(tok string, n int, forAdd bool) (int, error) {
	if tok == "-" && forAdd {
		return n, nil
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 || (tok != "0" && strings.HasPrefix(tok, "0")) {
		return 0, fmt.Errorf("'%s' is not a valid sequence index", tok)
	}
	if i > n || (!forAdd && i == n) {
		return 0, fmt.Errorf("index '%d' is out of bounds", i)
	}
	return i, nil
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}

// ToDoc turns a view into the JSON-like document a patch applies to.
func ToDoc(v any) (map[string]any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// DecodePatched re-validates one patched attribute with its POST rules and
// returns the typed value (nil for null).
func DecodePatched(f body.Field, v any) (any, *apierr.Error) {
	if v == nil {
		return nil, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, body.Invalid(f.Name, fmt.Sprint(v), "Wrong type.")
	}
	return body.Decode(f, raw)
}

// patchRepr renders the patch as Magnum's error message shows it (the
// Python repr of the validated list).
func patchRepr(ops []Op) string {
	parts := make([]string, len(ops))
	for i, op := range ops {
		s := "{'path': " + PyRepr(op.Path) + ", 'op': " + PyRepr(op.Op)
		if op.HasValue {
			s += ", 'value': " + PyRepr(op.Value)
		}
		parts[i] = s + "}"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// PyRepr renders a value as Python's repr would.
func PyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case json.Number:
		return x.String()
	case string:
		q := "'"
		if strings.Contains(x, "'") && !strings.Contains(x, `"`) {
			q = `"`
		}
		var b strings.Builder
		b.WriteString(q)
		for _, r := range x {
			switch {
			case r == '\\':
				b.WriteString(`\\`)
			case string(r) == q:
				b.WriteString(`\` + q)
			case r == '\n':
				b.WriteString(`\n`)
			case r == '\t':
				b.WriteString(`\t`)
			case r == '\r':
				b.WriteString(`\r`)
			case r < 0x20 || r == 0x7f:
				fmt.Fprintf(&b, `\x%02x`, r)
			default:
				b.WriteRune(r)
			}
		}
		b.WriteString(q)
		return b.String()
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = PyRepr(k) + ": " + PyRepr(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = PyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// parsePyLiteral parses a Python literal as ast.literal_eval does, for the
// subset Magnum's clients send: dicts, lists, tuples, strings, numbers,
// True, False and None. Dict keys must be strings (every map Magnum takes
// this way is keyed by strings). JSON's true/false/null are not Python and
// fail, as they do in Magnum.
func parsePyLiteral(s string) (any, error) {
	p := &pyParser{s: s}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("invalid syntax (<unknown>, line 1)")
	}
	return v, nil
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) ws() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) syntax() error { return fmt.Errorf("invalid syntax (<unknown>, line 1)") }

func (p *pyParser) value(depth int) (any, error) {
	if depth > 64 {
		return nil, fmt.Errorf("too deeply nested")
	}
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("unexpected EOF while parsing (<unknown>, line 1)")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict(depth)
	case c == '[':
		return p.seq(depth, ']')
	case c == '(':
		return p.seq(depth, ')')
	case c == '\'' || c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		// Adjacent literals concatenate ('a' 'b' == 'ab').
		for {
			save := p.i
			p.ws()
			if p.i < len(p.s) && (p.s[p.i] == '\'' || p.s[p.i] == '"') {
				more, err := p.str()
				if err != nil {
					return nil, err
				}
				s += more
				continue
			}
			p.i = save
			return s, nil
		}
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		start := p.i
		for p.i < len(p.s) && (isIdent(p.s[p.i])) {
			p.i++
		}
		switch word := p.s[start:p.i]; word {
		case "True":
			return true, nil
		case "False":
			return false, nil
		case "None":
			return nil, nil
		case "":
			return nil, p.syntax()
		default:
			return nil, fmt.Errorf("malformed node or string: <ast.Name object> (%s)", word)
		}
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *pyParser) dict(depth int) (any, error) {
	p.i++ // {
	out := map[string]any{}
	for {
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return out, nil
		}
		k, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		ks, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("dictionary keys must be strings, not %s", PyRepr(k))
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.syntax()
		}
		p.i++
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out[ks] = v
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return out, nil
		}
		return nil, p.syntax()
	}
}

func (p *pyParser) seq(depth int, closer byte) (any, error) {
	p.i++
	out := []any{}
	for {
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == closer {
			p.i++
			return out, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == closer {
			p.i++
			return out, nil
		}
		return nil, p.syntax()
	}
}

func (p *pyParser) str() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case q:
			p.i++
			return b.String(), nil
		case '\n':
			return "", fmt.Errorf("EOL while scanning string literal (<unknown>, line 1)")
		case '\\':
			if p.i+1 >= len(p.s) {
				return "", fmt.Errorf("EOL while scanning string literal (<unknown>, line 1)")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '\\', '\'', '"':
				b.WriteByte(e)
			case '\n':
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if p.i+n > len(p.s) {
					return "", fmt.Errorf("truncated \\%cXX escape", e)
				}
				r, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
				if err != nil || r > utf8.MaxRune {
					return "", fmt.Errorf("truncated \\%cXX escape", e)
				}
				b.WriteRune(rune(r))
				p.i += n
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", fmt.Errorf("EOL while scanning string literal (<unknown>, line 1)")
}

func (p *pyParser) number() (any, error) {
	start := p.i
	if p.s[p.i] == '-' || p.s[p.i] == '+' {
		p.i++
		p.ws()
	}
	numStart := p.i
	for p.i < len(p.s) && strings.IndexByte("0123456789._eE+-", p.s[p.i]) >= 0 {
		if (p.s[p.i] == '+' || p.s[p.i] == '-') && !(p.i > numStart && (p.s[p.i-1] == 'e' || p.s[p.i-1] == 'E')) {
			break
		}
		p.i++
	}
	text := strings.ReplaceAll(p.s[numStart:p.i], "_", "")
	neg := p.s[start] == '-'
	if text == "" {
		return nil, p.syntax()
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil && (text == "0" || !strings.HasPrefix(text, "0")) {
		if neg {
			n = -n
		}
		return json.Number(strconv.FormatInt(n, 10)), nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, p.syntax()
	}
	if neg {
		f = -f
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
}
