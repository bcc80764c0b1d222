package clusterclass

import (
	"encoding/base64"
	"testing"
)

func TestFlatcar(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarOperatingSystem: "flatcar"}})
	cp := kcp(st)
	equal(t, cp, "spec.kubeadmConfigSpec.format", "ignition")
	equal(t, cp, "spec.kubeadmConfigSpec.ignition.containerLinuxConfig.additionalConfig", flatcarIgnition)
	equal(t, cp, "spec.kubeadmConfigSpec.initConfiguration.nodeRegistration.name", flatcarNodeName)
	equal(t, cp, "spec.kubeadmConfigSpec.joinConfiguration.nodeRegistration.name", flatcarNodeName)
	if !contains(strings_(t, cp, "spec.kubeadmConfigSpec.preKubeadmCommands"), flatcarPreKubeadm) {
		t.Error("control plane lacks the node-name fix-up")
	}
	kct, _ := md(t, st, "default-worker")
	equal(t, kct, "spec.template.spec.format", "ignition")
	equal(t, kct, "spec.template.spec.joinConfiguration.nodeRegistration.name", flatcarNodeName)
	equal(t, kct, "spec.template.spec.preKubeadmCommands", []any{restartContainerd, flatcarPreKubeadm})
}

func TestUbuntuIsCloudInit(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarOperatingSystem: "ubuntu"}})
	equal(t, kcp(st), "spec.kubeadmConfigSpec.format", "cloud-config")
	equal(t, kcp(st), "spec.kubeadmConfigSpec.initConfiguration.nodeRegistration.name", "{{ local_hostname }}")
	absent(t, kcp(st), "spec.kubeadmConfigSpec.ignition")
}

func TestOperatingSystemIsValidated(t *testing.T) {
	if err := generateErr(tc{vars: map[string]any{VarOperatingSystem: "windows"}}); err == nil {
		t.Fatal("operatingSystem windows accepted")
	}
}

func TestAptProxyConfig(t *testing.T) {
	apt := AptProxyConfig("http://proxy:3128", "http://proxy:3129")
	raw, _ := base64.StdEncoding.DecodeString(apt)
	if string(raw) != "Acquire::http::Proxy \"http://proxy:3128\";\nAcquire::https::Proxy \"http://proxy:3129\";\n" {
		t.Errorf("apt proxy = %q", raw)
	}
	const path = "/etc/apt/apt.conf.d/90proxy"
	for _, os := range []string{"ubuntu", "debian"} {
		st := generate(t, tc{vars: map[string]any{VarOperatingSystem: os, VarAptProxyConfig: apt}})
		if fileContent(t, kcp(st), kcpFiles, path) != apt {
			t.Errorf("%s control plane lacks the apt proxy", os)
		}
		kct, _ := md(t, st, "default-worker")
		if fileContent(t, kct, kctFiles, path) != apt {
			t.Errorf("%s workers lack the apt proxy", os)
		}
	}
	st := generate(t, tc{vars: map[string]any{VarOperatingSystem: "rockylinux", VarAptProxyConfig: apt}})
	if contains(filePaths(t, kcp(st), kcpFiles), path) {
		t.Error("apt proxy on Rocky Linux")
	}
}
