package conformance

import (
	"regexp"
	"slices"
	"testing"
)

// A suite's run fails on every test that neither passed nor is a listed
// difference, on skips, and on a listed difference that passes (unless
// it may), so the table cannot outlive what it excuses.
func TestVerdict(t *testing.T) {
	diffs := []difference{
		{Test: regexp.MustCompile(`^csr$`), Doc: 25, Why: "small keys"},
		{Test: regexp.MustCompile(`^bay_`), Doc: 32, Why: "no bays", MayPass: true},
	}
	for _, tc := range []struct {
		name    string
		results []outcome
		want    []string
	}{
		{"all pass", []outcome{{"a", "pass"}, {"b", "pass"}}, nil},
		{"listed failure", []outcome{{"csr", "fail"}, {"bay_get", "fail"}}, nil},
		{"unlisted failure", []outcome{{"a", "fail"}}, []string{"a: fail"}},
		{"skip is a failure", []outcome{{"a", "skip"}}, []string{"a: skip"}},
		{"listed test passes", []outcome{{"csr", "pass"}}, []string{"csr passes but is listed as difference 25 (small keys): remove it from the table"}},
		{"listed test that may pass", []outcome{{"bay_404", "pass"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := verdict(tc.results, diffs); !slices.Equal(got, tc.want) {
				t.Errorf("verdict = %q, want %q", got, tc.want)
			}
		})
	}
}
