package clusterclass

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestContainerdConfig(t *testing.T) {
	conf := ContainerdConfig("mirror.example.com/pause:3.9")
	st := generate(t, tc{
		vars:      map[string]any{VarContainerdConfig: conf},
		overrides: map[string]map[string]any{"other": {VarContainerdConfig: ContainerdConfig(DefaultSandboxImage)}},
	})
	if got := fileContent(t, kcp(st), kcpFiles, "/etc/containerd/config.toml"); got != conf {
		t.Errorf("control-plane containerd config = %s", got)
	}
	if !contains(strings_(t, kcp(st), "spec.kubeadmConfigSpec.preKubeadmCommands"), restartContainerd) {
		t.Error("control plane does not restart containerd")
	}
	kct, _ := md(t, st, "default-worker")
	if got := fileContent(t, kct, kctFiles, "/etc/containerd/config.toml"); got != conf {
		t.Errorf("worker containerd config = %s", got)
	}
	equal(t, kct, "spec.template.spec.preKubeadmCommands", []any{restartContainerd})
	other, _ := md(t, st, "other")
	raw, _ := base64.StdEncoding.DecodeString(fileContent(t, other, kctFiles, "/etc/containerd/config.toml"))
	if !strings.Contains(string(raw), `sandbox_image = "registry.k8s.io/pause:3.9"`) || !strings.Contains(string(raw), "SystemdCgroup = true") {
		t.Errorf("nodegroup override config:\n%s", raw)
	}
}

func TestSystemdProxyConfig(t *testing.T) {
	proxy := SystemdProxyConfig("http://proxy:3128", "", "localhost,.svc")
	raw, _ := base64.StdEncoding.DecodeString(proxy)
	for _, want := range []string{`Environment="http_proxy=http://proxy:3128"`, `Environment="HTTP_PROXY=http://proxy:3128"`, `Environment="NO_PROXY=localhost,.svc"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("drop-in lacks %s:\n%s", want, raw)
		}
	}
	st := generate(t, tc{vars: map[string]any{VarSystemdProxyConfig: proxy}})
	const path = "/etc/systemd/system/containerd.service.d/proxy.conf"
	if fileContent(t, kcp(st), kcpFiles, path) != proxy {
		t.Error("control plane lacks the proxy drop-in")
	}
	kct, _ := md(t, st, "default-worker")
	if fileContent(t, kct, kctFiles, path) != proxy {
		t.Error("workers lack the proxy drop-in")
	}
	st = generate(t, tc{})
	if contains(filePaths(t, kcp(st), kcpFiles), path) {
		t.Error("proxy drop-in without a proxy")
	}
	if SystemdProxyConfig("", "", "x") != "" {
		t.Error("no_proxy alone makes a drop-in")
	}
}
