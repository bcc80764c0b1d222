package schemas

import "slices"

// ReviewRule is one rule of a site file's site.review: the operations on
// the projects whose API changes go through a pull request.
type ReviewRule struct {
	Projects   []string `json:"projects"`
	Operations []string `json:"operations"`
}

// Review operations (site.cue's #ReviewOperation).
const (
	ReviewCreate    = "create"
	ReviewUpdate    = "update"
	ReviewResize    = "resize"
	ReviewUpgrade   = "upgrade"
	ReviewDelete    = "delete"
	ReviewNodeGroup = "nodegroup"
	ReviewTemplate  = "template"
)

// ReviewRules are the site's review rules (none without a site file).
func (c *Catalogue) ReviewRules() []ReviewRule { return slices.Clone(c.review) }

// NeedsReview reports whether an API change of project doing operation
// goes through a pull request: when one rule covers both.
func (c *Catalogue) NeedsReview(project, operation string) bool {
	for _, r := range c.review {
		if (slices.Contains(r.Projects, "*") || slices.Contains(r.Projects, project)) && slices.Contains(r.Operations, operation) {
			return true
		}
	}
	return false
}
