package cindercsi

import "testing"

// BenchmarkManifests is the cost of rendering the chart for one cluster
// (the compiler renders it for every enabled cluster).
func BenchmarkManifests(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Manifests(Params{ClusterUUID: "u", Tag: "v1.32.0", Sidecars: sidecars}); err != nil {
			b.Fatal(err)
		}
	}
}
