package compiler

import (
	"fmt"
	"testing"
)

// BenchmarkCompileRealisticCluster compiles the three-nodegroup cluster:
// clusters compiled per second (1e9 / ns/op) and allocations per cluster.
func BenchmarkCompileRealisticCluster(b *testing.B) {
	in := testInputs(b)["three-nodegroups"]
	warmUp(b, in)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileRepository10000 re-renders a repository of 10,000
// clusters in memory (the realistic inputs, renamed), as `keel compile`
// does; one op is the whole repository.
func BenchmarkCompileRepository10000(b *testing.B) {
	var repo []Input
	for i := 0; len(repo) < 10000; i++ {
		for _, in := range testInputs(b) {
			in.Cluster.StackID = fmt.Sprintf("kube-%05d", len(repo))
			in.Cluster.UUID = fmt.Sprintf("00000000-0000-4000-8000-%012d", len(repo))
			repo = append(repo, in)
		}
	}
	repo = repo[:10000]
	warmUp(b, repo[0])
	b.ReportAllocs()
	for b.Loop() {
		for _, in := range repo {
			if _, err := Compile(in); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N), "s/repository")
}

// warmUp compiles once before the measured loop: the first compile of a
// process loads the CUE label catalogue (half a second), which a server
// does once, and which would otherwise be counted in every op of a fixed
// -benchtime run.
func warmUp(b *testing.B, in Input) {
	b.Helper()
	if _, err := Compile(in); err != nil {
		b.Fatal(err)
	}
}
