package schemas

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseBool(t *testing.T) {
	for s, want := range map[string]bool{
		"1": true, "t": true, "T": true, "true": true, "True": true, "TRUE": true, "on": true, "On": true,
		"y": true, "Y": true, "yes": true, "YeS": true, " true": true, "yes\n": true, "\tON\v": true,
		"0": false, "f": false, "false": false, "False": false, "off": false, "OFF": false, "n": false,
		"no": false, "No": false, " 0 ": false,
	} {
		got, err := ParseBool(s)
		if err != nil || got != want {
			t.Errorf("ParseBool(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	// oslo strict mode refuses everything else, including words Python's
	// str.lower() would not fold to ASCII (ſ is not s, K is not k).
	for _, s := range []string{"", " ", "2", "-1", "truee", "tru", "ye", "of", "enabled", "nope", "yeſ", "\u00a0true", "t r u e", "true\x00"} {
		if _, err := ParseBool(s); err == nil {
			t.Errorf("ParseBool(%q) accepted", s)
		} else if !strings.Contains(err.Error(), "true/false") {
			t.Errorf("ParseBool(%q): error %q does not say what is allowed", s, err)
		}
	}
}

// boolLabel is a catalogue bool used to ask the schema for its verdict.
const boolLabel = LabelAutoHealingEnabled

// The Go parser and the schema accept exactly the same strings.
func FuzzParseBool(f *testing.F) {
	for _, s := range []string{"true", "FALSE", " yes ", "0", "2", "", "ſ", "on\t", "Off", "y", "nO", "tru"} {
		f.Add(s)
	}
	c := Default()
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			t.Skip("label values are UTF-8 text")
		}
		_, err := ParseBool(s)
		vs, _ := c.ValidateLabels(ScopeCluster, map[string]string{boolLabel: s}, ValidateOptions{})
		if (err == nil) != (len(vs) == 0) {
			t.Fatalf("ParseBool(%q) err=%v but schema violations=%v", s, err, vs)
		}
	})
}
