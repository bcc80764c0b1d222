package clusterclass

import "testing"

func TestTLSCipherSuites(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarAPIServerTLSCipherSuites: "TLS_A,TLS_B", VarKubeletTLSCipherSuites: "TLS_C"}})
	if got := args(t, kcp(st), apiServerArgs)["tls-cipher-suites"]; got != "TLS_A,TLS_B" {
		t.Errorf("kube-apiserver tls-cipher-suites = %q", got)
	}
	for _, p := range []string{kcpInitArgs, kcpJoinArgs} {
		if got := args(t, kcp(st), p)["tls-cipher-suites"]; got != "TLS_C" {
			t.Errorf("%s tls-cipher-suites = %q", p, got)
		}
	}
	kct, _ := md(t, st, "default-worker")
	if got := args(t, kct, kctJoinArgs)["tls-cipher-suites"]; got != "TLS_C" {
		t.Errorf("worker kubelet tls-cipher-suites = %q", got)
	}
}

func TestAPIServerSANs(t *testing.T) {
	c := tc{vars: map[string]any{VarAPIServerSANs: []string{"api.example.com", "198.51.100.7"}}}
	cl := c.cluster()
	cl.Spec.ClusterNetwork.ServiceDomain = "corp.internal"
	class, _ := testClassOnce()
	st, err := class.Generate(t.Context(), cl)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, kcp(st), "spec.kubeadmConfigSpec.clusterConfiguration.apiServer.certSANs", []any{
		"kube-abcde", "kube-abcde.magnum-system", "kube-abcde.magnum-system.svc", "kube-abcde.magnum-system.svc.corp.internal",
		"api.example.com", "198.51.100.7",
	})
}
