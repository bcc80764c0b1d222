package schemas

import (
	"strings"
	"testing"
)

// TestSiteReview: site.review says which project's operations need review;
// without it nothing does.
func TestSiteReview(t *testing.T) {
	c, err := Default().WithSite([]byte(`site: review: [
	{projects: ["prod", "prod-eu"], operations: ["resize", "upgrade", "delete"]},
	{operations: ["template"]},
]`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		project, op string
		want        bool
	}{
		{"prod", ReviewResize, true},
		{"prod-eu", ReviewDelete, true},
		{"prod", ReviewCreate, false},
		{"dev", ReviewResize, false},
		{"dev", ReviewTemplate, true}, // the second rule covers every project
		{"prod", ReviewNodeGroup, false},
	} {
		if got := c.NeedsReview(tc.project, tc.op); got != tc.want {
			t.Errorf("NeedsReview(%q, %q) = %v, want %v", tc.project, tc.op, got, tc.want)
		}
		if Default().NeedsReview(tc.project, tc.op) {
			t.Errorf("without a site file NeedsReview(%q, %q) is true", tc.project, tc.op)
		}
	}
	if rules := c.ReviewRules(); len(rules) != 2 || rules[1].Projects[0] != "*" {
		t.Errorf("rules %+v, want two, the second on every project", rules)
	}
}

// TestSiteReviewRefused: a review rule names known operations, at least one.
func TestSiteReviewRefused(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"unknown operation", `site: review: [{operations: ["scale"]}]`, "operations"},
		{"no operation", `site: review: [{projects: ["p"], operations: []}]`, "operations"},
		{"empty projects", `site: review: [{projects: [], operations: ["resize"]}]`, "projects"},
		{"not a list", `site: review: {operations: ["resize"]}`, "review"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Default().WithSite([]byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
}
