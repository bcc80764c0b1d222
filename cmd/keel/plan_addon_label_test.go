package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openkeel/keel/gitstore"
)

// keel plan on a change of an addon's label is no longer a no-op: it
// names the objects the ClusterResourceSet re-applies, in place
// (cloud_provider_tag: OCCM's DaemonSet; cinder_csi_plugin_tag: the Cinder
// CSI plugins; cinder_csi_enabled: the Cinder CSI objects leaving the
// payload).
func TestPlanShowsAddonLabelChange(t *testing.T) {
	for _, c := range []struct {
		label string
		want  []string
	}{
		{"cloud_provider_tag: v1.34.1", []string{"addon DaemonSet kube-system/openstack-cloud-controller-manager: in place", "openstack-cloud-controller-manager:v1.34.1"}},
		{"cinder_csi_plugin_tag: v1.33.1", []string{"addon DaemonSet kube-system/openstack-cinder-csi-nodeplugin: in place", "addon Deployment kube-system/openstack-cinder-csi-controllerplugin: in place", "cinder-csi-plugin:v1.33.1"}},
		{`cinder_csi_enabled: "false"`, []string{"addon Deployment kube-system/openstack-cinder-csi-controllerplugin: in place", "removed from the payload"}},
	} {
		t.Run(strings.SplitN(c.label, ":", 2)[0], func(t *testing.T) { planShowsAddonLabelChange(t, c.label, c.want) })
	}
}

func planShowsAddonLabelChange(t *testing.T, label string, want []string) {
	dir := filepath.Join(t.TempDir(), "repo.git")
	st, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := repoFiles(t)
	render := func(files map[string][]byte) map[string][]byte {
		t.Helper()
		root := t.TempDir()
		for p, data := range files {
			full := filepath.Join(root, filepath.FromSlash(p))
			_ = os.MkdirAll(filepath.Dir(full), 0o755)
			_ = os.WriteFile(full, data, 0o644)
		}
		if out, err := run(t, "compile", "--repo", root); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		out := map[string][]byte{}
		_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				rel, _ := filepath.Rel(root, p)
				out[filepath.ToSlash(rel)], _ = os.ReadFile(p)
			}
			return nil
		})
		return out
	}
	commitFiles(t, st, render(files))
	clusterPath := "projects/p1/clusters/demo-kube-ab12c/cluster.yaml"
	edited := bytes.Replace(files[clusterPath], []byte("\nlabels:\n"), []byte("\nlabels:\n  "+label+"\n"), 1)
	if bytes.Equal(edited, files[clusterPath]) {
		t.Fatalf("no labels in %s:\n%s", clusterPath, files[clusterPath])
	}
	files[clusterPath] = edited
	commitFiles(t, st, render(files))

	out, err := run(t, "plan", "--repo", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range append([]string{"cluster kube-ab12c: in place"}, want...) {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "no-op") || strings.Contains(out, "rolls machines") {
		t.Errorf("plan:\n%s", out)
	}
}
