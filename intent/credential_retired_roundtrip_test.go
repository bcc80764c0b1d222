package intent

import (
	"reflect"
	"strings"
	"testing"
)

// A rotated credential's retired list survives the stored document, and a
// credential without one is stored as before rotation existed.
func TestCredentialRetiredRoundTrip(t *testing.T) {
	for _, retired := range [][]CredentialRef{nil, {{ID: "a1", UserID: "u1"}}, {{ID: "a1", UserID: "u1"}, {ID: "b2", UserID: "u2"}}} {
		c := &ClusterCredential{ID: "id", Secret: "s", UserID: "u", Retired: retired}
		plain, err := MarshalClusterCredential("uuid", c)
		if err != nil {
			t.Fatal(err)
		}
		if (len(retired) == 0) == strings.Contains(string(plain), credRetired) {
			t.Errorf("%v: document\n%s", retired, plain)
		}
		got, err := ParseClusterCredential("p", plain)
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Errorf("%v: read back %+v (%v)", retired, got, err)
		}
	}
}

// ParseCredentialRefs refuses what FormatCredentialRefs never writes.
func TestParseCredentialRefsRefusesMalformed(t *testing.T) {
	for _, s := range []string{",", "u1", "u1/", "/a1", "u1/a1,", "u1/a1/x", "u1/a1,,u2/a2"} {
		if refs, err := ParseCredentialRefs(s); err == nil {
			t.Errorf("%q: %v, want an error", s, refs)
		}
	}
}

// Whatever ParseCredentialRefs accepts formats back to the same text.
func FuzzParseCredentialRefs(f *testing.F) {
	for _, s := range []string{"", "u1/a1", "u1/a1,u2/a2", "u/a/b", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		refs, err := ParseCredentialRefs(s)
		if err != nil {
			return
		}
		if got := FormatCredentialRefs(refs); got != s {
			t.Fatalf("%q → %v → %q", s, refs, got)
		}
	})
}
