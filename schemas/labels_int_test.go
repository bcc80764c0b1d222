package schemas

import (
	"testing"
	"unicode/utf8"
)

func TestParseInt(t *testing.T) {
	for s, want := range map[string]int64{
		"0": 0, "42": 42, "-7": -7, "+7": 7, " 12 ": 12, "007": 7, "1_000": 1000, "1_2_3": 123,
		"9223372036854775807": 9223372036854775807, "-9223372036854775808": -9223372036854775808,
	} {
		if got, err := ParseInt(s); err != nil || got != want {
			t.Errorf("ParseInt(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", " ", "+", "-", "1.0", "1e3", "0x10", "1__0", "_1", "1_", "+-1", "--1", "１", "9223372036854775808", "1 2"} {
		if n, err := ParseInt(s); err == nil {
			t.Errorf("ParseInt(%q) = %d, accepted", s, n)
		}
	}
}

// The Go parser and the schema agree on integers (audit_log_max_size has a
// wide range, so only syntax and int64 overflow matter here).
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "+1", " 12 ", "1_0", "1__0", "-5", "x", "99999999999999999999"} {
		f.Add(s)
	}
	c := Default()
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			t.Skip()
		}
		n, err := ParseInt(s)
		inRange := err == nil && n >= 0 && n <= 102400
		vs, _ := c.ValidateLabels(ScopeCluster, map[string]string{LabelAuditLogMaxSize: s}, ValidateOptions{})
		if inRange != (len(vs) == 0) {
			t.Fatalf("ParseInt(%q) = %d, %v but schema violations=%v", s, n, err, vs)
		}
	})
}
