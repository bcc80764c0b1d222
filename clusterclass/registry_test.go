package clusterclass

import "testing"

func patchIndex(t *testing.T, name string) int {
	t.Helper()
	i := 0
	for _, f := range Registry() {
		for _, p := range f.Patches {
			if p.Name == name {
				return i
			}
			i++
		}
	}
	t.Fatalf("no patch %s", name)
	return -1
}

// The containerd patch creates the workers' preKubeadmCommands and files
// lists; every patch appending to them must come later.
func TestRegistryOrder(t *testing.T) {
	first := patchIndex(t, "containerdConfig")
	for _, later := range []string{"flatcar", "systemdProxyConfig", "aptProxyConfig", "insecureRegistry", "caRotationMarker"} {
		if patchIndex(t, later) < first {
			t.Errorf("patch %s runs before containerdConfig, which creates the lists it appends to", later)
		}
	}
}

// With Flatcar and the containerd configuration both enabled, a worker
// keeps both its containerd restart and the node-name fix-up (the
// reference's link order could drop the latter).
func TestRegistryOrderKeepsFlatcarWorkersNodeName(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarOperatingSystem: "flatcar"}})
	kct, _ := md(t, st, "default-worker")
	cmds := strings_(t, kct, "spec.template.spec.preKubeadmCommands")
	if !contains(cmds, restartContainerd) || !contains(cmds, flatcarPreKubeadm) {
		t.Fatalf("worker preKubeadmCommands = %q, want the containerd restart and the Flatcar fix-up", cmds)
	}
}
