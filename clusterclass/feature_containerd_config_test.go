package clusterclass

import (
	"encoding/base64"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestContainerdConfig(t *testing.T) {
	conf := ContainerdConfig("mirror.example.com/pause:3.9", false)
	st := generate(t, tc{
		vars:      map[string]any{VarContainerdConfig: conf},
		overrides: map[string]map[string]any{"other": {VarContainerdConfig: ContainerdConfig(DefaultSandboxImage, false)}},
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
	if strings.Contains(string(raw), "config_path") {
		t.Errorf("config_path without an insecure registry:\n%s", raw)
	}
}

// insecure_registry: containerd on every node (control plane and workers,
// cloud-init and Ignition) reads hosts.toml from config_path, which trusts
// the registry without TLS verification, then over plain HTTP.
func TestInsecureRegistry(t *testing.T) {
	const host = "registry.local:5000"
	const path = RegistryHostsDir + "/" + host + "/hosts.toml"
	conf := ContainerdConfig(DefaultSandboxImage, true)
	raw, _ := base64.StdEncoding.DecodeString(conf)
	if !strings.Contains(string(raw), "[plugins.\"io.containerd.grpc.v1.cri\".registry]\n    config_path = \"/etc/containerd/certs.d\"\n") {
		t.Errorf("containerd config without config_path:\n%s", raw)
	}
	for _, osName := range []string{"ubuntu", "flatcar"} {
		st := generate(t, tc{vars: map[string]any{VarContainerdConfig: conf, VarInsecureRegistry: host, VarOperatingSystem: osName}})
		kct, _ := md(t, st, "default-worker")
		for _, c := range []struct {
			obj  *unstructured.Unstructured
			list string
		}{{kcp(st), kcpFiles}, {kct, kctFiles}} {
			if fileContent(t, c.obj, c.list, "/etc/containerd/config.toml") != conf {
				t.Errorf("%s %s: containerd config is not the one with config_path", osName, c.obj.GetKind())
			}
			got := fileContent(t, c.obj, c.list, path)
			for _, want := range []string{
				`server = "https://registry.local:5000"`,
				"[host.\"https://registry.local:5000\"]\n  capabilities = [\"pull\", \"resolve\", \"push\"]\n  skip_verify = true\n",
				"[host.\"http://registry.local:5000\"]\n",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("%s %s: %s lacks %q:\n%s", osName, c.obj.GetKind(), path, want, got)
				}
			}
		}
	}
	st := generate(t, tc{})
	kct, _ := md(t, st, "default-worker")
	for _, p := range append(filePaths(t, kcp(st), kcpFiles), filePaths(t, kct, kctFiles)...) {
		if strings.HasPrefix(p, RegistryHostsDir) {
			t.Errorf("registry host file %s without an insecure registry", p)
		}
	}
	// The variable's schema refuses a scheme or a path (the API refuses
	// them first, schemas/documents.cue).
	for _, bad := range []string{"http://registry.local:5000", "registry.local/v2", "registry.local:99999"} {
		if err := generateErr(tc{vars: map[string]any{VarInsecureRegistry: bad}}); err == nil {
			t.Errorf("insecureRegistry %q accepted", bad)
		}
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
