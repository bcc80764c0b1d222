// Package version holds keel's release version and the names derived from it.
package version

// Version is keel's release version. Release builds override it with
// -ldflags "-X github.com/openkeel/keel/internal/version.Version=vX.Y.Z".
var Version = "v0.1.0"

// The ClusterClass this release renders is named after Version and the
// class's content: compiler.ClusterClassName.
