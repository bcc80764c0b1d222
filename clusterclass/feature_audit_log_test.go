package clusterclass

import "testing"

func TestAuditLog(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarAuditLog: map[string]any{"enabled": true, "maxAge": 7, "maxBackup": 3, "maxSize": 50}}})
	a := args(t, kcp(st), apiServerArgs)
	for k, v := range map[string]string{
		"audit-log-path": "/var/log/audit/kube-apiserver-audit.log", "audit-log-maxage": "7", "audit-log-maxbackup": "3",
		"audit-log-maxsize": "50", "audit-policy-file": AuditPolicyPath,
	} {
		if a[k] != v {
			t.Errorf("%s = %q, want %q", k, a[k], v)
		}
	}
	equal(t, kcp(st), "spec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraVolumes.1.name", "audit-policy")
	equal(t, kcp(st), "spec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraVolumes.2", map[string]any{
		"name": "audit-logs", "hostPath": "/var/log/kubernetes/audit", "mountPath": "/var/log/audit", "pathType": "DirectoryOrCreate"})
	if !contains(filePaths(t, kcp(st), kcpFiles), AuditPolicyPath) {
		t.Error("no audit policy file")
	}

	if _, ok := args(t, kcp(generate(t, tc{})), apiServerArgs)["audit-log-path"]; ok {
		t.Error("audit log enabled by default")
	}
}
