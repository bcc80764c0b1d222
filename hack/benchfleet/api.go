package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// api is a Magnum API client of keel's noauth mode: the project is a
// header, and every caller is admin.
type api struct {
	url string
	hc  *http.Client
}

func (a *api) do(method, path, project, version string, body any, out any) (time.Duration, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.url+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Project-Id", project)
	if project != adminProject {
		// A project member sees its own project's clusters, as a user does.
		req.Header.Set("X-Roles", "member,reader")
	}
	req.Header.Set("OpenStack-API-Version", "container-infra "+version)
	start := time.Now()
	resp, err := a.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	took := time.Since(start)
	if err != nil {
		return took, err
	}
	if resp.StatusCode >= 300 {
		return took, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, bytes.TrimSpace(data))
	}
	if out != nil {
		return took, json.Unmarshal(data, out)
	}
	return took, nil
}

// adminProject makes the public templates (an admin's call).
const adminProject = "benchadmin"

// cluster is what the bench reads of a cluster.
type cluster struct {
	UUID      string `json:"uuid"`
	Name      string `json:"name"`
	Status    string `json:"status"`
	NodeCount int    `json:"node_count"`
}

// list is every cluster of a project, as `openstack coe cluster list`
// pages through them.
func (a *api) list(project string) ([]cluster, error) {
	var all []cluster
	marker := ""
	for {
		var page struct {
			Clusters []cluster `json:"clusters"`
		}
		path := "/v1/clusters?limit=1000"
		if marker != "" {
			path += "&marker=" + marker
		}
		if _, err := a.do(http.MethodGet, path, project, "1.10", nil, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Clusters...)
		if len(page.Clusters) < 1000 {
			return all, nil
		}
		marker = page.Clusters[len(page.Clusters)-1].UUID
	}
}
