//go:build tools

// Package capo pins the Cluster API Provider OpenStack controller manager
// (its main package is the module's root) that the real-OpenStack tests run
// as a host process. A module of its own: CAPO v0.14 pins Cluster API v1.12
// and controller-runtime v0.22, which cannot share keel's go.mod (Cluster API
// v1.14). hack/capo.sh builds it with `go build` into a cache outside the clone.
package capo

import (
	_ "sigs.k8s.io/cluster-api-provider-openstack"
)
