package magnumimport

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/openkeel/keel/intent"
)

// reader reads typed columns of one row, keeping the first problem: a
// value Magnum stored that keel cannot read makes the object unimportable
// (with that reason) rather than imported wrong.
type reader struct {
	r   row
	err error
}

func (x *reader) fail(col, format string, args ...any) {
	if x.err == nil {
		x.err = fmt.Errorf("column %s: %s", col, fmt.Sprintf(format, args...))
	}
}

// str is a column's text ("" for NULL or a column the revision lacks).
func (x *reader) str(col string) string { return x.r[col].String }

// opt is a nullable text column; "" stays set (Magnum shows "").
func (x *reader) opt(col string) *string {
	v, ok := x.r[col]
	if !ok || !v.Valid {
		return nil
	}
	return intent.Ptr(v.String)
}

func (x *reader) optInt(col string) *int64 {
	v, ok := x.r[col]
	if !ok || !v.Valid {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v.String), 10, 64)
	if err != nil {
		x.fail(col, "%q is not an integer", v.String)
		return nil
	}
	return &n
}

func (x *reader) int(col string) int64 { return intent.Deref(x.optInt(col)) }

// bool reads MySQL's tinyint (0/1), PostgreSQL's boolean (true/false) and
// SQLite's 0/1; NULL is def (SQLAlchemy's column default).
func (x *reader) bool(col string, def bool) bool {
	v, ok := x.r[col]
	if !ok || !v.Valid {
		return def
	}
	switch strings.ToLower(strings.TrimSpace(v.String)) {
	case "1", "true", "t":
		return true
	case "0", "false", "f":
		return false
	}
	x.fail(col, "%q is not a boolean", v.String)
	return def
}

// timeLayouts are how the drivers give Magnum's DATETIME columns (naive
// UTC, as oslo.db stores them): MySQL's text, SQLite's text as SQLAlchemy
// writes it, and database/sql's RFC 3339 for a driver's time.Time.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999-07:00"}

func (x *reader) time(col string) *time.Time {
	v, ok := x.r[col]
	if !ok || !v.Valid || v.String == "" {
		return nil
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, v.String); err == nil {
			t = t.UTC()
			return &t
		}
	}
	x.fail(col, "%q is not a timestamp", v.String)
	return nil
}

// labels reads a JSONEncodedDict column (labels, node_labels): Magnum
// stores a JSON object; a value that is not a string (an old client's
// number or boolean) is kept as its JSON text, which is what Magnum's API
// passed on to its drivers.
func (x *reader) labels(col string) map[string]string {
	v, ok := x.r[col]
	if !ok || !v.Valid || strings.TrimSpace(v.String) == "" || v.String == "null" {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(v.String), &m); err != nil {
		x.fail(col, "not a JSON object: %v", err)
		return nil
	}
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, val := range m {
		switch t := val.(type) {
		case string:
			out[k] = t
		case nil:
			out[k] = ""
		default:
			b, _ := json.Marshal(t)
			out[k] = string(b)
		}
	}
	return out
}

// stringMap reads a JSONEncodedDict of strings (health_status_reason).
func (x *reader) stringMap(col string) map[string]string { return x.labels(col) }

// taints reads nodegroup.node_taints (a JSONEncodedList of
// {key, value, effect}).
func (x *reader) taints(col string) []intent.Taint {
	v, ok := x.r[col]
	if !ok || !v.Valid || strings.TrimSpace(v.String) == "" || v.String == "null" {
		return nil
	}
	var ts []intent.Taint
	if err := json.Unmarshal([]byte(v.String), &ts); err != nil {
		x.fail(col, "not a JSON list of taints {key, value, effect}: %v", err)
		return nil
	}
	if len(ts) == 0 {
		return nil
	}
	return ts
}

// sortedKeys lists a map's keys in order, for stable output.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
