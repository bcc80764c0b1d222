package intent

import "regexp"

// ProjectIDPattern is what keel accepts as a project id, from Keystone's
// tokens, noauth's X-Project-Id and the quota API's project_id: Keystone's
// ids are 32 hexadecimal digits (its column holds 64 characters), noauth
// set-ups use names such as "default" or "demo". The id is a folder name
// of the repository (projects/<id>/, quotas/<id>.yaml) and a commit
// trailer's value, so nothing else passes: no '.', '/', space or control
// character.
var ProjectIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ProjectIDRule says what ValidProjectID accepts, for error messages.
const ProjectIDRule = "A project id is 1 to 64 letters, digits, '-' or '_' (Keystone's are 32 hexadecimal digits)"

// ValidProjectID reports whether id can be a project's id.
func ValidProjectID(id string) bool { return ProjectIDPattern.MatchString(id) }
