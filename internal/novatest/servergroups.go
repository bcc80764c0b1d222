// Package novatest is an in-process fake of Nova's os-server-groups API,
// for tests only: the fakes that serve compute (each knowing who asks from
// its token) hand it the requests under their compute endpoint. It answers
// as Nova does at microversion 2.15 and later: groups belong to the
// caller's project, list shows the project's (all projects' to an admin
// asking all_projects), a policy outside Nova's four is a 400, another
// project's group is a 404 to a non-admin.
//
// A fake, kept where the real Nova cannot serve the test: inside the fake
// compute services of the restapi and conformance tests, whose other
// answers (a token Keystone has since revoked, decoy catalogs, counted
// requests) a real Nova cannot give on demand. What keel does with server
// groups is proven against the real Nova by the TestRealOpenStack tests
// (docs/openstack.md).
package novatest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// Caller is who asks (from the request's token).
type Caller struct {
	ProjectID, UserID string
	Admin             bool
}

// Group is a server group.
type Group struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Policies  []string `json:"policies"`
	Members   []string `json:"members"`
	ProjectID string   `json:"project_id"`
	UserID    string   `json:"user_id"`
}

// Policies Nova accepts (soft ones from microversion 2.15).
var Policies = []string{"affinity", "anti-affinity", "soft-affinity", "soft-anti-affinity"}

// ServerGroups holds the groups of every project.
type ServerGroups struct {
	mu      sync.Mutex
	groups  []Group
	next    int
	creates int
	deletes []string
}

// New is an empty Nova.
func New() *ServerGroups { return &ServerGroups{} }

// Add stores a group as if made earlier (its ID assigned when empty).
func (s *ServerGroups) Add(g Group) Group {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g.ID == "" {
		g.ID = s.newIDLocked()
	}
	if g.Members == nil {
		g.Members = []string{}
	}
	s.groups = append(s.groups, g)
	return g
}

func (s *ServerGroups) newIDLocked() string {
	s.next++
	return fmt.Sprintf("5e7a0000-0000-4000-8000-%012d", s.next)
}

// Groups returns (copies of) the groups of project, "" for all.
func (s *ServerGroups) Groups(project string) []Group {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Group
	for _, g := range s.groups {
		if project == "" || g.ProjectID == project {
			out = append(out, g)
		}
	}
	return out
}

// Creates counts the groups created through the API.
func (s *ServerGroups) Creates() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.creates
}

// Deletes lists the IDs deleted through the API, in order.
func (s *ServerGroups) Deletes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.deletes)
}

// Serve answers r if path (relative to the compute endpoint, e.g.
// "/os-server-groups/ID") is a server group request, and reports whether
// it was.
func (s *ServerGroups) Serve(w http.ResponseWriter, r *http.Request, path string, who Caller) bool {
	const prefix = "/os-server-groups"
	if path != prefix && !strings.HasPrefix(path, prefix+"/") {
		return false
	}
	id := strings.TrimPrefix(strings.TrimPrefix(path, prefix), "/")
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case id == "" && r.Method == http.MethodGet:
		all := who.Admin && isTrue(r.URL.Query().Get("all_projects"))
		out := []Group{}
		for _, g := range s.groups {
			if all || g.ProjectID == who.ProjectID {
				out = append(out, g)
			}
		}
		reply(w, http.StatusOK, map[string]any{"server_groups": out})
	case id == "" && r.Method == http.MethodPost:
		var body struct {
			ServerGroup *struct {
				Name     string   `json:"name"`
				Policies []string `json:"policies"`
				Policy   string   `json:"policy"` // 2.64
			} `json:"server_group"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.ServerGroup == nil || body.ServerGroup.Name == "" {
			badRequest(w, "Invalid input for field/attribute server_group.")
			return true
		}
		policies := body.ServerGroup.Policies
		if body.ServerGroup.Policy != "" {
			policies = []string{body.ServerGroup.Policy}
		}
		if len(policies) != 1 || !slices.Contains(Policies, policies[0]) {
			badRequest(w, fmt.Sprintf("Invalid input for field/attribute policies. Value: %v.", policies))
			return true
		}
		g := Group{ID: s.newIDLocked(), Name: body.ServerGroup.Name, Policies: policies, Members: []string{},
			ProjectID: who.ProjectID, UserID: who.UserID}
		s.groups = append(s.groups, g)
		s.creates++
		reply(w, http.StatusOK, map[string]any{"server_group": g})
	case id != "" && (r.Method == http.MethodGet || r.Method == http.MethodDelete):
		i := slices.IndexFunc(s.groups, func(g Group) bool { return g.ID == id && (who.Admin || g.ProjectID == who.ProjectID) })
		if i < 0 {
			reply(w, http.StatusNotFound, map[string]any{"itemNotFound": map[string]any{"code": 404, "message": "Instance group " + id + " could not be found."}})
			return true
		}
		if r.Method == http.MethodGet {
			reply(w, http.StatusOK, map[string]any{"server_group": s.groups[i]})
			return true
		}
		s.groups = slices.Delete(s.groups, i, i+1)
		s.deletes = append(s.deletes, id)
		w.WriteHeader(http.StatusNoContent)
	default:
		reply(w, http.StatusMethodNotAllowed, map[string]any{"error": "method not allowed"})
	}
	return true
}

func isTrue(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "t", "yes", "y", "on":
		return true
	}
	return false
}

func badRequest(w http.ResponseWriter, msg string) {
	reply(w, http.StatusBadRequest, map[string]any{"badRequest": map[string]any{"code": 400, "message": msg}})
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
