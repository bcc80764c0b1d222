package main

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// Every flag the deploy/ manifests pass to keel exists in `keel serve`
// and parses: a renamed or removed flag would crash-loop every replica.
func TestDeployManifestsUseExistingServeFlags(t *testing.T) {
	for _, dir := range []string{"base", "overlays/production", "overlays/dev"} {
		t.Run(dir, func(t *testing.T) {
			res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), "../../deploy/"+dir)
			if err != nil {
				t.Fatal(err)
			}
			seen := 0
			for _, r := range res.Resources() {
				if r.GetKind() != "Deployment" {
					continue
				}
				y, err := r.AsYAML()
				if err != nil {
					t.Fatal(err)
				}
				var d appsv1.Deployment
				if err := yaml.UnmarshalStrict(y, &d); err != nil {
					t.Fatal(err)
				}
				args := d.Spec.Template.Spec.Containers[0].Args
				if len(args) == 0 || args[0] != "serve" {
					t.Fatalf("args %q, want `serve` first", args)
				}
				cmd := serveCmd()
				if err := cmd.ParseFlags(args[1:]); err != nil {
					t.Errorf("keel serve %s: %v", strings.Join(args[1:], " "), err)
				}
				seen++
			}
			if seen != 1 {
				t.Fatalf("%d keel Deployments, want 1", seen)
			}
		})
	}
}
