package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// gitOutage is how long the Git server is down: the 30 s of the
// requirement, long enough for every replica's fetch loop (interval 30 s)
// to hit the outage at least once.
const gitOutage = 30 * time.Second

// The Git server down for gitOutage: writes on every replica answer 503 in
// Magnum's format and leave nothing on the server, reads go on, and once
// the server is back writes succeed again on every replica without a
// restart of keel.
func TestHAGitServerDown(t *testing.T) {
	h := newHACluster(t, 3)
	tmpl, _ := h.replicas[0].createTemplate("t-before")
	base := h.git.commits()

	h.git.stop()
	down := time.Now()
	var refused []string
	for i := 0; time.Since(down) < gitOutage; i++ {
		r := h.replicas[i%3]
		name := fmt.Sprintf("refused-%d", i)
		res := r.call(http.MethodPost, "/v1/clustertemplates", templateBody(name))
		var body struct {
			Errors []struct {
				Status int    `json:"status"`
				Title  string `json:"title"`
				Detail string `json:"detail"`
			} `json:"errors"`
		}
		if res.status != http.StatusServiceUnavailable || json.Unmarshal(res.body, &body) != nil || len(body.Errors) == 0 || body.Errors[0].Status != 503 {
			t.Fatalf("%s: write while the Git server is down answered %d %s, want a 503 in Magnum's format", r.name, res.status, res.body)
		}
		refused = append(refused, name)
		if !r.has("/v1/clustertemplates/" + tmpl) {
			t.Fatalf("%s: reads stopped while the Git server is down", r.name)
		}
		if res := r.call(http.MethodGet, "/v1/clustertemplates", nil); res.status != http.StatusOK {
			t.Fatalf("%s: list while the Git server is down: %d %s", r.name, res.status, res.body)
		}
		time.Sleep(300 * time.Millisecond) // pacing, not an assertion
	}
	h.git.start()
	t.Logf("%d writes refused with 503 during the %s outage", len(refused), gitOutage)

	acked := 0
	for _, r := range h.replicas {
		var uuid string
		d := haWait(t, 30*time.Second, r.name+" to take writes again", func() bool {
			res, err := r.try(http.MethodPost, "/v1/clustertemplates", templateBody("after-"+r.name))
			if err == nil && res.status == http.StatusCreated {
				var v struct{ UUID string }
				_ = json.Unmarshal(res.body, &v)
				uuid = v.UUID
				return true
			}
			return false
		})
		acked++
		t.Logf("%s took a write %s after the Git server came back", r.name, d.Round(time.Millisecond))
		for _, o := range h.replicas {
			haWait(t, time.Second, o.name+" to show the write through "+r.name, func() bool { return o.has("/v1/clustertemplates/" + uuid) })
		}
	}
	if got := h.git.commits(); got != base+acked {
		t.Errorf("the Git server has %d new commits, want %d (one per acknowledged write)", got-base, acked)
	}
	log := haGit(t, h.git.bare, "log", "main", "--format=%B")
	for _, name := range refused {
		if strings.Contains(log, name+":") || strings.Contains(log, name+" ") || strings.Contains(log, name+"\n") {
			t.Errorf("the refused write %s is on the Git server", name)
		}
	}
}
