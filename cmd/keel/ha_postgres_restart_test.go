package main

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// PostgreSQL restarted under three replicas: reads answer again within a
// few seconds after it is back, and writes too, without restarting keel.
func TestHAPostgresRestarted(t *testing.T) {
	h := newHACluster(t, 3)
	tmpl, _ := h.replicas[0].createTemplate("t-before")

	h.pg.stop()
	if sqlPing(h.pg.DSN()) {
		t.Fatal("PostgreSQL still answers after pg_ctl stop")
	}
	h.pg.start()
	up := time.Now()
	for _, r := range h.replicas {
		haWait(t, 5*time.Second, r.name+" to answer reads after PostgreSQL came back", func() bool { return r.has("/v1/clustertemplates/" + tmpl) })
		t.Logf("%s answers reads %s after PostgreSQL came back", r.name, time.Since(up).Round(time.Millisecond))
	}
	var refused []string // request ids of writes that did not answer 201
	for _, r := range h.replicas {
		var uuid string
		haWait(t, 5*time.Second, r.name+" to take writes after PostgreSQL came back", func() bool {
			res, err := r.try(http.MethodPost, "/v1/clustertemplates", templateBody("after-"+r.name))
			if err != nil || res.status != http.StatusCreated {
				t.Logf("%s: a write %s after PostgreSQL came back: %d %s (%v)", r.name, time.Since(up).Round(time.Millisecond), res.status, res.body, err)
				refused = append(refused, res.requestID)
				return false
			}
			var v struct{ UUID string }
			_ = json.Unmarshal(res.body, &v)
			uuid = v.UUID
			return true
		})
		t.Logf("%s takes writes %s after PostgreSQL came back", r.name, time.Since(up).Round(time.Millisecond))
		for _, o := range h.replicas {
			haWait(t, time.Second, o.name+" to show the write through "+r.name, func() bool { return o.has("/v1/clustertemplates/" + uuid) })
		}
	}
	// A write that failed must not be on the Git server: the client
	// retries it, which would make it twice.
	ids := h.git.requestIDs()
	for _, rid := range refused {
		if rid != "" && ids[rid] > 0 {
			t.Errorf("the write of request %s failed but is a commit on the Git server", rid)
		}
	}
}
