package main

import (
	"fmt"
	"testing"
	"time"
)

// Writes spread over three replicas: each acknowledged write is exactly one
// commit on the Git server, the replica that answered shows it at once
// (read-your-write), and every replica shows it within a second.
func TestHAWritesSpreadOverReplicas(t *testing.T) {
	h := newHACluster(t, 3)
	base := h.git.commits()
	acked := map[string]string{} // request id -> what
	var tmpls []string
	for i := range 9 {
		r := h.replicas[i%3]
		var path, rid string
		if i%3 == 2 {
			// A cluster, on a template another replica created.
			uuid, id := r.createCluster(fmt.Sprintf("c-%d", i), tmpls[len(tmpls)-1])
			path, rid = "/v1/clusters/"+uuid, id
		} else {
			uuid, id := r.createTemplate(fmt.Sprintf("t-%d", i))
			tmpls = append(tmpls, uuid)
			path, rid = "/v1/clustertemplates/"+uuid, id
		}
		acked[rid] = path
		if got := h.git.commits(); got != base+len(acked) {
			t.Fatalf("after %d acknowledged writes the Git server has %d new commits", len(acked), got-base)
		}
		if !r.has(path) {
			t.Fatalf("%s answered the write of %s but does not show it (read-your-write)", r.name, path)
		}
		for _, o := range h.replicas {
			d := haWait(t, time.Second, o.name+" to show "+path, func() bool { return o.has(path) })
			t.Logf("%s written through %s, visible on %s after %s", path, r.name, o.name, d.Round(time.Millisecond))
		}
	}
	ids := h.git.requestIDs()
	for rid, what := range acked {
		if ids[rid] != 1 {
			t.Errorf("write %s (request %s) is %d commits on the Git server, want 1", what, rid, ids[rid])
		}
	}
}
