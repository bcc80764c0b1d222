package main

import (
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"
)

// change is one day-2 change the bench makes: a resize, or an upgrade to
// the next template.
type change struct {
	name    string
	upgrade bool
}

// changes picks n clusters spread over the fleet, half resized (to the
// next of 1, 2, 3 workers) and half upgraded (each cluster once; later
// picks resize it).
func (f *fleet) changes(n, round int) []change {
	var out []change
	step := max(1, len(f.names)/max(n, 1))
	for i := 0; i < n && i*step < len(f.names); i++ {
		name := f.names[(i*step+round)%len(f.names)]
		out = append(out, change{name: name, upgrade: i%2 == 1 && !f.upgraded[name]})
	}
	return out
}

// apply makes the changes at once and waits until each settles
// (UPDATE_COMPLETE with the change in place); it returns each one's delay
// from the API's answer to the settled status, sorted.
func (f *fleet) apply(cs []change, deadline time.Duration) ([]float64, error) {
	next, err := f.templateUUID("fleet-k8s-next")
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var delays []float64
	var firstErr error
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := f.applyOne(c, next, deadline)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			if err == nil {
				delays = append(delays, d.Seconds())
			}
			if c.upgrade {
				f.upgraded[c.name] = true
			}
		}()
	}
	wg.Wait()
	sort.Float64s(delays)
	return delays, firstErr
}

func (f *fleet) applyOne(c change, next string, deadline time.Duration) (time.Duration, error) {
	uuid, p := f.uuid[c.name], f.projectOf(c.name)
	var now cluster
	if _, err := f.a.do(http.MethodGet, "/v1/clusters/"+uuid, p, "1.10", nil, &now); err != nil {
		return 0, err
	}
	target := now.NodeCount%3 + 1 // 1 → 2 → 3 → 1: always a change
	var err error
	if c.upgrade {
		_, err = f.a.do(http.MethodPost, "/v1/clusters/"+uuid+"/actions/upgrade", p, "1.8", map[string]any{"cluster_template": next}, nil)
	} else {
		_, err = f.a.do(http.MethodPatch, "/v1/clusters/"+uuid, p, "1.10", []map[string]any{{"op": "replace", "path": "/node_count", "value": target}}, nil)
	}
	if err != nil {
		return 0, err
	}
	start := time.Now()
	for time.Since(start) < deadline {
		var got struct {
			Status    string `json:"status"`
			NodeCount int    `json:"node_count"`
			Template  string `json:"cluster_template_id"`
		}
		if _, err := f.a.do(http.MethodGet, "/v1/clusters/"+uuid, p, "1.10", nil, &got); err != nil {
			return 0, err
		}
		if got.Status == "UPDATE_COMPLETE" && (c.upgrade && got.Template == next || !c.upgrade && got.NodeCount == target) {
			return time.Since(start), nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return 0, fmt.Errorf("%s did not settle within %s", c.name, deadline)
}

func (f *fleet) projectOf(name string) string {
	for i, n := range f.names {
		if n == name {
			return project(i, f.projects)
		}
	}
	return ""
}

func (f *fleet) templateUUID(name string) (string, error) {
	var t struct {
		UUID string `json:"uuid"`
	}
	_, err := f.a.do(http.MethodGet, "/v1/clustertemplates/"+name, adminProject, "1.10", nil, &t)
	return t.UUID, err
}
