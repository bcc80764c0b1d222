package clusterclass

import "testing"

func TestKubeletServingCertificateVerification(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarEnableKubeletServingCertificateVerification: true}})
	if got := args(t, kcp(st), apiServerArgs)["kubelet-certificate-authority"]; got != "/etc/kubernetes/pki/ca.crt" {
		t.Errorf("kubelet-certificate-authority = %q", got)
	}
	kct, _ := md(t, st, "default-worker")
	for _, a := range []map[string]string{args(t, kcp(st), kcpInitArgs), args(t, kcp(st), kcpJoinArgs), args(t, kct, kctJoinArgs)} {
		if a["rotate-server-certificates"] != "true" {
			t.Errorf("kubelet args %v lack rotate-server-certificates", a)
		}
	}
	if _, ok := args(t, kcp(generate(t, tc{})), apiServerArgs)["kubelet-certificate-authority"]; ok {
		t.Error("enabled by default")
	}
}
