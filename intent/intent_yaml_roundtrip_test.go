package intent

import (
	"errors"
	"reflect"
	"testing"
)

// Every label key and value a client can send reads back from Git exactly
// as written, including the strings YAML would otherwise reinterpret.
func TestLabelsRoundTripThroughYAML(t *testing.T) {
	for _, s := range []string{
		"<<", "<<:", "x <<", "!!binary", "!!str", "a\x00b", "true", "False", "1", "0x1F", "1e3", ".inf", "null", "~", "",
		"-", "- x", "? x", "key: v", "#c", " lead", "trail ", "&a", "*a", "%x", "@x", "`x", "y", "off", "=", "\t",
		"é", "\u2028", "\ufeff", "line1\nline2", "line1\n<<: x\n", "a\r\nb", "{x: 1}", "[1]", "'q'", `"q"`,
	} {
		doc := &ClusterTemplate{TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: KindClusterTemplate},
			Labels: map[string]string{s: s, "k": s, "<<": s}}
		out, err := Marshal(doc)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		var back ClusterTemplate
		if err := Unmarshal(out, &back); err != nil || !reflect.DeepEqual(back.Labels, doc.Labels) {
			t.Errorf("%q: wrote\n%s\nread back %q (%v)", s, out, back.Labels, err)
		}
	}
}

// What cannot be written faithfully is refused, never written differently.
func TestMarshalRefusesWhatWouldNotReadBack(t *testing.T) {
	if err := checkRoundTrip(map[string]string{"a": "1"}, []byte("a: 2\n")); !errors.Is(err, ErrNoRoundTrip) {
		t.Fatalf("checkRoundTrip of a changed document = %v, want ErrNoRoundTrip", err)
	}
	if err := checkRoundTrip(map[string]string{"<<": "1"}, []byte("<<: 1\n")); !errors.Is(err, ErrNoRoundTrip) {
		t.Fatalf("checkRoundTrip of a plain merge key = %v, want ErrNoRoundTrip", err)
	}
}
