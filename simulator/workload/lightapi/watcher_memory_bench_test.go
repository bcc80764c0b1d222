package lightapi

import (
	"runtime"
	"testing"
)

// BenchmarkWatcherMemory reports the heap one open watch costs
// (bytes/watcher): every workload cluster has several (Cluster API's
// ClusterCaches, the simulated kubelets), so at a thousand clusters each
// kilobyte of a watcher is megabytes of keel's process.
//
//	go test -run XXX -bench WatcherMemory -benchtime 10x ./simulator/workload/lightapi/
func BenchmarkWatcherMemory(b *testing.B) {
	s := NewStore()
	nodes := builtinByGR["/nodes"]
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var ws []*watcher
	for i := 0; i < b.N; i++ {
		for j := 0; j < 1000; j++ {
			_, w, _, err := s.watch(nodes, "", watchStart{})
			if err != nil {
				b.Fatal(err)
			}
			ws = append(ws, w)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(len(ws)), "bytes/watcher")
	runtime.KeepAlive(ws)
}
