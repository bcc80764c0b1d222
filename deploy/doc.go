// Package deploy holds keel's Kubernetes manifests (base/ and overlays/,
// kustomize); deploy_test.go renders them into testdata/*.golden.yaml and
// dry-runs every object against a real kube-apiserver. No Go code ships
// from here.
package deploy
