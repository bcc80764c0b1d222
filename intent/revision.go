package intent

// ShortRevision is how keel shows a commit of the repository to people
// (Events, conditions, status reasons, pull-request comments): its first
// 12 hex digits, as `git log --abbrev=12` would.
func ShortRevision(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
