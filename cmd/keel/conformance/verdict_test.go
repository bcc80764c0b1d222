package conformance

import (
	"regexp"
	"slices"
	"testing"
)

// A suite's run fails on every test that neither passed nor is a listed
// difference, on skips, and on a listed difference that passes (unless
// it may), so the table cannot outlive what it excuses. A failure carries
// the end of its output.
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
		{"all pass", []outcome{{ID: "a", Status: "pass"}, {ID: "b", Status: "pass"}}, nil},
		{"listed failure", []outcome{{ID: "csr", Status: "fail"}, {ID: "bay_get", Status: "fail"}}, nil},
		{"unlisted failure", []outcome{{ID: "a", Status: "fail"}}, []string{"a: fail"}},
		{"failure with its output", []outcome{{ID: "a", Status: "fail", Tail: []string{"quotas_test.go:18: 503\n"}}}, []string{"a: fail\n      quotas_test.go:18: 503"}},
		{"skip is a failure", []outcome{{ID: "a", Status: "skip"}}, []string{"a: skip"}},
		{"listed test passes", []outcome{{ID: "csr", Status: "pass"}}, []string{"csr passes but is listed as difference 25 (small keys): remove it from the table"}},
		{"listed test that may pass", []outcome{{ID: "bay_404", Status: "pass"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := verdict(tc.results, diffs); !slices.Equal(got, tc.want) {
				t.Errorf("verdict = %q, want %q", got, tc.want)
			}
		})
	}
}
