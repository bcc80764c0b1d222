package clusterclass

import "testing"

// kube-apiserver dropped --cloud-provider in 1.33.
func TestCloudProviderFlagBefore133(t *testing.T) {
	if got := args(t, kcp(generate(t, tc{version: "v1.32.4"})), apiServerArgs)["cloud-provider"]; got != "external" {
		t.Errorf("1.32: cloud-provider = %q, want external", got)
	}
	if _, ok := args(t, kcp(generate(t, tc{version: "v1.33.1"})), apiServerArgs)["cloud-provider"]; ok {
		t.Error("1.33: kube-apiserver gets --cloud-provider")
	}
}
