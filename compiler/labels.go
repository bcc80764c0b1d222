package compiler

import "github.com/openkeel/keel/schemas"

// effectiveLabels are the cluster's labels with the catalogue's defaults
// filled in: the compiler applies exactly the defaults the API and `cue vet`
// know, from the one schema.
func effectiveLabels(given map[string]string) map[string]string {
	return schemas.Default().WithDefaults(given)
}
