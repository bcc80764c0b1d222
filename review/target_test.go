package review

import (
	"testing"

	"github.com/openkeel/keel/gitstore"
)

// TestTarget: which object and site.review operation an API commit
// is, from its changes and trailers.
func TestTarget(t *testing.T) {
	cluster := "projects/p1/clusters/prod-a-kube-abcde"
	for _, tc := range []struct {
		name, subject, op string
		paths             []string
		object, want      string
	}{
		{"create", "cluster prod-a: create (1 master, 2 nodes)", "create", []string{".keel/sequences.yaml", cluster + "/cluster.yaml"}, cluster, "create"},
		{"resize", "cluster prod-a: resize default-worker 2 → 5", "resize", []string{cluster + "/nodegroups/default-worker.yaml"}, cluster, "resize"},
		{"upgrade", "cluster prod-a: upgrade", "upgrade", []string{cluster + "/cluster.yaml"}, cluster, "upgrade"},
		{"delete", "cluster prod-a: delete", "delete", []string{cluster}, cluster, "delete"},
		{"patch", "cluster prod-a: update node_count 2 → 3", "update", []string{cluster + "/cluster.yaml"}, cluster, "update"},
		{"nodegroup", "cluster prod-a: add nodegroup gpu (2 nodes)", "update", []string{cluster + "/nodegroups/gpu.yaml"}, cluster, "nodegroup"},
		{"template", "clustertemplate t1: update labels", "update", []string{"projects/p1/clustertemplates/0b3f.yaml"}, "projects/p1/clustertemplates/0b3f.yaml", "template"},
		{"quota", "quota p1: Cluster hard_limit 5", "create", []string{"quotas/p1.yaml", ".keel/sequences.yaml"}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm := &gitstore.Commit{Subject: tc.subject, Trailers: []gitstore.Trailer{
				{Key: "Keel-Project", Value: "p1"}, {Key: "Keel-Operation", Value: tc.op}}}
			for _, p := range tc.paths {
				cm.Changes = append(cm.Changes, gitstore.Change{Path: p})
			}
			object, project, op := Target(cm)
			if object != tc.object || op != tc.want || project != "p1" {
				t.Fatalf("Target = %q %q %q, want %q p1 %q", object, project, op, tc.object, tc.want)
			}
		})
	}
}
