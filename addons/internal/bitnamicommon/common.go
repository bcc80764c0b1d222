// Package bitnamicommon is keel's stand-in for Bitnami's "common" Helm
// library chart, which upstream charts depend on but which is not in the Go
// modules they come from: only the helpers those charts call.
package bitnamicommon

import "embed"

// Files are the library chart's files (Chart.yaml, templates/).
//
//go:embed Chart.yaml all:templates
var Files embed.FS
