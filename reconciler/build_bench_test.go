package reconciler

import (
	"testing"

	"github.com/openkeel/keel/intent"
)

// BenchmarkBuildClusterFolder measures the kustomize build of one cluster's
// rendered folder (its addons ConfigMap alone is about 570 KB), which the
// reconciler runs for every change, one build at a time (kustomizeMu).
func BenchmarkBuildClusterFolder(b *testing.B) {
	f := newFixture(b)
	st := f.populate(b, 1)[0]
	sn, err := f.store.SnapshotHead()
	if err != nil {
		b.Fatal(err)
	}
	dir := intent.RenderedPath(st.Dir)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := build(sn, dir, nil); err != nil {
			b.Fatal(err)
		}
	}
}
