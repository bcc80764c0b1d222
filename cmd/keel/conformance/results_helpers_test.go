package conformance

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// outcome is one test of a suite as its runner reported it.
type outcome struct {
	ID     string // tempest: the id without its [attributes]; Go: the test name
	Status string // pass, fail or skip
	// Tail is the end of a failed Go test's output: the run's log folder
	// is removed with the test, so an unexpected failure in CI is told
	// only by what t.Errorf prints.
	Tail []string
}

// difference is an expected failure: a test that fails against keel for a
// reason docs/api.md lists among its deliberate differences from Magnum.
type difference struct {
	Test *regexp.Regexp // the test IDs it covers
	Doc  int            // the difference's number in docs/api.md
	Why  string
	// MayPass: some of the tests covered pass all the same (a missing
	// route's 404 is what a negative test expects).
	MayPass bool
}

// verdict lists every test that did not pass and is no listed difference,
// and every listed difference that passed (the table must not outlive the
// difference). Skips count as failures: a suite skipping a test proves
// nothing.
func verdict(results []outcome, diffs []difference) []string {
	var problems []string
	for _, r := range results {
		var d *difference
		for i := range diffs {
			if diffs[i].Test.MatchString(r.ID) {
				d = &diffs[i]
				break
			}
		}
		switch {
		case r.Status == "pass" && d != nil && !d.MayPass:
			problems = append(problems, fmt.Sprintf("%s passes but is listed as difference %d (%s): remove it from the table", r.ID, d.Doc, d.Why))
		case r.Status != "pass" && d == nil:
			problems = append(problems, fmt.Sprintf("%s: %s%s", r.ID, r.Status, indented(r.Tail)))
		}
	}
	sort.Strings(problems)
	return problems
}

func indented(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("\n      " + strings.TrimRight(l, "\n"))
	}
	return b.String()
}

// judge fails t with verdict's list.
func judge(t *testing.T, suite string, results []outcome, diffs []difference) {
	t.Helper()
	if len(results) == 0 {
		t.Fatalf("%s: no test ran", suite)
	}
	counts := map[string]int{}
	for _, r := range results {
		counts[r.Status]++
	}
	t.Logf("%s: %d tests, %d passed, %d failed, %d skipped", suite, len(results), counts["pass"], counts["fail"], counts["skip"])
	if p := verdict(results, diffs); len(p) > 0 {
		t.Errorf("%s: %d tests failed that docs/api.md does not list as deliberate differences:\n  %s",
			suite, len(p), strings.Join(p, "\n  "))
	}
}
