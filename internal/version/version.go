// Package version holds keel's release version and the names derived from it.
package version

// Version is keel's release version. Release builds override it with
// -ldflags "-X github.com/openkeel/keel/internal/version.Version=vX.Y.Z".
var Version = "v0.1.0"

// ClusterClassName is the name of the shared ClusterClass this keel release
// renders. Each cluster records the class it runs on, so a new release never
// moves an existing cluster until it is explicitly upgraded.
func ClusterClassName() string { return "magnum-" + Version }
