// Package schemas is keel's schema for the intent documents it keeps in Git
// and the catalogue of Magnum labels, written in CUE (schemas/*.cue) and
// embedded here. The CUE files are the single source of every label name,
// type, default, allowed value and mutability rule: Go reads them, and the
// generated files (labels_gen.go, docs/labels.md) are derived
// from them by `go generate ./schemas`.
//
// The same files validate documents with the cue CLI:
//
//	cue vet -c ./schemas/ projects/p/clusters/c-kube-abcde/cluster.yaml -d '#Document'
//
// and keel's own validation runs the same CUE evaluation, so both give the
// same verdict. See docs/schema.md.
package schemas

import "embed"

//go:generate go run ./internal/gen

// FS holds the CUE files of package schemas, as embedded in the binary. It is
// exported so that a command can write them out for `cue vet` in a cluster
// repository's CI.
//
//go:embed *.cue
var FS embed.FS
