// Package yamlenc writes Kubernetes objects (unstructured content: maps,
// slices, strings, integers, booleans, nulls) as YAML, byte for byte as
// sigs.k8s.io/yaml.Marshal writes them, an order of magnitude faster: that
// encoder goes through JSON, parses the JSON back as YAML and emits it,
// which was most of the cost of compiling a cluster.
//
// It covers the common case only and says when it does not: a key or
// string whose rendering needs the YAML encoder's judgement (quoting,
// folding, multi-line blocks, non-ASCII, or keys whose order yaml.v2's
// natural sort could put differently than byte order) or a float makes
// Marshal report false, and the caller uses sigs.k8s.io/yaml. A
// differential fuzz test holds the two encoders to the same bytes.
package yamlenc

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/internal/memo"
)

// Marshal writes m as sigs.k8s.io/yaml.Marshal would, or reports false.
func Marshal(m map[string]any) ([]byte, bool) {
	e := encoders.Get().(*encoder)
	defer encoders.Put(e)
	e.buf.Reset()
	if !e.mapping(m, 0, false) {
		return nil, false
	}
	return bytes.Clone(e.buf.Bytes()), true
}

// MarshalOrFallback is Marshal, or sigs.k8s.io/yaml.Marshal where Marshal
// does not apply.
func MarshalOrFallback(m map[string]any) ([]byte, error) {
	if b, ok := Marshal(m); ok {
		return b, nil
	}
	return yaml.Marshal(m)
}

var encoders = sync.Pool{New: func() any { return new(encoder) }}

type encoder struct {
	buf  bytes.Buffer
	keys []string
}

func (e *encoder) indent(n int) {
	for range n {
		e.buf.WriteByte(' ')
	}
}

// mapping writes a block mapping whose keys start at column ind; inSeq
// means the first key follows a "- " already written.
func (e *encoder) mapping(m map[string]any, ind int, inSeq bool) bool {
	if len(m) == 0 {
		e.buf.WriteString("{}\n")
		return true
	}
	start := len(e.keys)
	for k := range m {
		if !plainKey(k) {
			e.keys = e.keys[:start]
			return false
		}
		e.keys = append(e.keys, k)
	}
	keys := e.keys[start:]
	ok := true
	slices.SortFunc(keys, func(a, b string) int {
		c, sure := compareKeys(a, b)
		ok = ok && sure
		return c
	})
	if !ok {
		e.keys = e.keys[:start]
		return false
	}
	for i, k := range keys {
		if i > 0 || !inSeq {
			e.indent(ind)
		}
		e.buf.WriteString(k)
		e.buf.WriteByte(':')
		if !e.value(m[k], ind, true) {
			e.keys = e.keys[:start]
			return false
		}
	}
	e.keys = e.keys[:start]
	return true
}

// value writes v after "key:" (inMap) or "-"; ind is the column of that
// key or dash.
func (e *encoder) value(v any, ind int, inMap bool) bool {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			e.buf.WriteString(" {}\n")
			return true
		}
		if inMap {
			e.buf.WriteByte('\n')
			return e.mapping(v, ind+2, false)
		}
		e.buf.WriteByte(' ')
		return e.mapping(v, ind+2, true)
	case []any:
		if len(v) == 0 {
			e.buf.WriteString(" []\n")
			return true
		}
		if inMap {
			// yaml.v2 writes a mapping's sequence at the key's column.
			e.buf.WriteByte('\n')
			return e.sequence(v, ind, false)
		}
		e.buf.WriteByte(' ')
		return e.sequence(v, ind+2, true)
	}
	e.buf.WriteByte(' ')
	if !e.scalar(v, e.column()) {
		return false
	}
	e.buf.WriteByte('\n')
	return true
}

// column is where the next byte goes on the current line.
func (e *encoder) column() int {
	b := e.buf.Bytes()
	return len(b) - 1 - bytes.LastIndexByte(b, '\n')
}

func (e *encoder) sequence(s []any, ind int, inSeq bool) bool {
	for i, v := range s {
		if i > 0 || !inSeq {
			e.indent(ind)
		}
		e.buf.WriteByte('-')
		if !e.value(v, ind, false) {
			return false
		}
	}
	return true
}

func (e *encoder) scalar(v any, col int) bool {
	switch v := v.(type) {
	case nil:
		e.buf.WriteString("null")
	case bool:
		e.buf.WriteString(strconv.FormatBool(v))
	case int64:
		e.buf.WriteString(strconv.FormatInt(v, 10))
	case int:
		e.buf.WriteString(strconv.Itoa(v))
	case int32:
		e.buf.WriteString(strconv.FormatInt(int64(v), 10))
	case string:
		if v == "" {
			e.buf.WriteString(`""`)
			return true
		}
		if plainString(v) {
			e.buf.WriteString(v)
			return true
		}
		r, ok := scalar(v)
		// A text with spaces may be folded past column 80.
		if !ok || strings.IndexByte(v, ' ') >= 0 && col+len(r) > 78 {
			return false
		}
		e.buf.WriteString(r)
	default:
		// Floats: JSON and YAML disagree on their forms often enough
		// (1e+21, 1.0) that the general encoder decides.
		return false
	}
	return true
}

// plainKey: a key written as it is (no quoting), short enough for a
// simple key.
func plainKey(k string) bool { return len(k) < 128 && plainString(k) }

// plainString: s is written plain by yaml.v2, whatever column it starts
// at: printable ASCII without spaces (so never folded), no indicator that
// could make it quoted, and it does not read back as another type (bool,
// null, number, timestamp, base-60 float).
func plainString(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if plainAnywhere[c] {
			continue // what the first two cases below take
		}
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == ',' && i > 0:
		case c == '.' || c == '/' || c == '_' || c == '=' || c == '+' || c == '@' || c == '%' || c == '(' || c == ')' || c == '^' || c == '$' || c == ';' || c == '<' || c == '\\':
			if i == 0 && (c == '@' || c == '%') {
				return false // reserved indicators
			}
		case c == '-':
			// "- " and a lone "-" start a sequence, "---" a document;
			// "-1" is a number.
			if i == 0 && (len(s) == 1 || !isLetter(s[1])) {
				return false
			}
		case c == ':':
			// ": " and a final ':' are mapping indicators; a leading ':'
			// and digit-led strings with ':' may be base-60 numbers.
			if i == 0 || i == len(s)-1 || !isLetter(s[0]) {
				return false
			}
		default:
			return false
		}
	}
	switch c := s[0]; {
	case isLetter(c):
		return !boolOrNull[s]
	case c == '/' || c == '_' || c == '-' || c == '=' || c == '(' || c == ')' || c == '$' || c == ';' || c == '<' || c == '\\' || c == '^':
		return s != "<<"
	case c >= '0' && c <= '9':
		// Numbers and timestamps start with a digit: only shapes none of
		// them can take stay plain here (a '/' as in a CIDR, or a UUID).
		return bytes.IndexByte([]byte(s), '/') >= 0 || uuidShaped(s)
	}
	return false // '.', '+': floats (.5, .inf, +1)
}

// plainAnywhere are the bytes plainString takes at any position without
// looking further (letters, digits and the punctuation it allows but '@'
// and '%'): one lookup per byte of the long values (base64 texts).
var plainAnywhere = func() (t [256]bool) {
	for c := range 256 {
		b := byte(c)
		t[c] = b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte("./_=+()^$;<\\", b) >= 0
	}
	return t
}()

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// boolOrNull are the plain words yaml.v2 reads as booleans or null.
var boolOrNull = map[string]bool{}

func init() {
	for _, w := range []string{"y", "yes", "true", "on", "n", "no", "false", "off", "null"} {
		for _, f := range []string{w, string(w[0]-32) + w[1:], upper(w)} {
			boolOrNull[f] = true
		}
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

// uuidShaped: 8-4-4-4-12 hex digits. Never a number or a timestamp (a
// timestamp starts with exactly four digits and a '-').
func uuidShaped(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// compareKeys orders keys by bytes, and says whether yaml.v2's natural
// order surely agrees: it compares runs of digits as numbers and puts
// every non-letter before every letter, so at the first difference a digit,
// or a non-letter above 'A' (as '_'), is left to it.
func compareKeys(a, b string) (int, bool) {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x >= '0' && x <= '9' || y >= '0' && y <= '9' {
			return 0, false
		}
		if !isLetter(x) && x > '@' || !isLetter(y) && y > '@' {
			return 0, false
		}
		if x < y {
			return -1, true
		}
		return 1, true
	}
	return len(a) - len(b), true
}

// scalars keeps how sigs.k8s.io/yaml writes the strings plainString does
// not decide (quoted words and numbers, texts with spaces, IP addresses):
// asked once per string, as the value of a one-key mapping. "" marks a
// string it does not write on one line.
var scalars = memo.Map[string, string]{Max: 4096}

// scalar: how s is written as a mapping's value, when that is one line.
func scalar(s string) (string, bool) {
	if len(s) > 70 || strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r > '~' }) {
		return "", false
	}
	r, found := scalars.Get(s)
	if !found {
		if b, err := yaml.Marshal(map[string]string{"k": s}); err == nil {
			r = strings.TrimSuffix(strings.TrimPrefix(string(b), "k: "), "\n")
			if strings.Contains(r, "\n") || len(b) != len(r)+4 {
				r = ""
			}
		}
		scalars.Put(s, r)
	}
	return r, r != ""
}
