//go:build tools

// Package tools pins the upstream commands keel's management cluster runs:
// kube-apiserver and kube-controller-manager (k8s.io/kubernetes) and etcd (go.etcd.io/etcd/server/v3).
// hack/testbin.sh builds them with `go build` into a cache outside the clone.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
