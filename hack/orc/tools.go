//go:build tools

// Package orc pins the openstack-resource-controller manager (ORC), which
// CAPO v0.14 needs: CAPO asks ORC for the Glance image of a machine through an
// ORC Image object. A module of its own for the same reason as hack/capo.
// hack/capo.sh builds it with `go build` into a cache outside the clone.
package orc

import (
	_ "github.com/k-orc/openstack-resource-controller/v2/cmd/manager"
)
