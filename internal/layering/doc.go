// Package layering holds only a test: it checks keel's layering (which
// top-level folder may import which) with go list, the same rules as
// depguard in .golangci.yml, so that `make test` guards them too.
package layering
