// Package octaviatest is an in-process fake of Octavia's load balancer API
// and of Neutron's floating IPs, for tests only: enough for what a
// cluster's teardown does with gophercloud (list the load balancers of a
// project, page by page; delete one with cascade; list the floating IPs
// of a port and delete them). It answers as Octavia and Neutron do:
// version documents at the endpoints' roots, the project's resources
// (another project's to an admin only), a delete of a load balancer that
// is PENDING_* a 409, a deleted load balancer PENDING_DELETE for a while.
//
// A fake, kept for what the real Octavia cannot be made to do on demand:
// answer 500 or 403, stay PENDING_DELETE past the teardown's timeout,
// hold hundreds of load balancers for the paging bound. The teardown's
// ordinary path is proven against the real Octavia and Neutron by the
// TestRealOpenStack tests (docs/openstack.md).
package octaviatest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Caller is who asks (from the request's token).
type Caller struct {
	ProjectID string
	Admin     bool
}

// LoadBalancer is an Octavia load balancer.
type LoadBalancer struct {
	ID                 string `json:"id"`
	Name               string `json:"name"`
	Description        string `json:"description"`
	ProjectID          string `json:"project_id"`
	VipPortID          string `json:"vip_port_id"`
	VipAddress         string `json:"vip_address"`
	ProvisioningStatus string `json:"provisioning_status"`
	OperatingStatus    string `json:"operating_status"`
	// polls left before a PENDING_DELETE load balancer is gone.
	pollsLeft int
}

// FloatingIP is a Neutron floating IP.
type FloatingIP struct {
	ID                string `json:"id"`
	FloatingIPAddress string `json:"floating_ip_address"`
	PortID            string `json:"port_id"`
	ProjectID         string `json:"project_id"`
	Status            string `json:"status"`
}

// Cloud holds the load balancers and floating IPs of every project.
type Cloud struct {
	mu   sync.Mutex
	lbs  []*LoadBalancer
	fips []FloatingIP
	next int

	// deletePolls is how many requests a deleted load balancer stays
	// PENDING_DELETE before it is gone (0: gone at once).
	deletePolls int
	// failures makes the next requests answer 500.
	failures int

	lbDeletes  []string // "<id> cascade=<bool>"
	fipDeletes []string
	lists      int
}

// New is an empty cloud.
func New() *Cloud { return &Cloud{} }

// Server serves c over HTTP: Octavia under /load-balancer/, Neutron under
// /network/ (OctaviaURL, NeutronURL). who tells the caller of a request
// from its X-Auth-Token (a fake Keystone's TokenUser), nil for a token
// the services refuse (401).
func (c *Cloud) Server(t testing.TB, who func(token string) *Caller) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := "http://" + r.Host
		caller := who(r.Header.Get("X-Auth-Token"))
		switch {
		case caller == nil && r.URL.Path != "/load-balancer/" && r.URL.Path != "/network/":
			reply(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401, "message": "The request you have made requires authentication."}})
		case strings.HasPrefix(r.URL.Path, "/load-balancer"):
			c.ServeOctavia(w, r, base+"/load-balancer", strings.TrimPrefix(r.URL.Path, "/load-balancer"), deref(caller))
		case strings.HasPrefix(r.URL.Path, "/network"):
			c.ServeNeutron(w, r, base+"/network", strings.TrimPrefix(r.URL.Path, "/network"), deref(caller))
		default:
			reply(w, http.StatusNotFound, map[string]any{"error": "not found"})
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// OctaviaURL and NeutronURL are the endpoints of a Server, for a
// catalog.
func OctaviaURL(srv *httptest.Server) string { return srv.URL + "/load-balancer/" }

// NeutronURL: see OctaviaURL.
func NeutronURL(srv *httptest.Server) string { return srv.URL + "/network/" }

func deref(c *Caller) Caller {
	if c == nil {
		return Caller{}
	}
	return *c
}

// SetDeletePolls sets how many requests a deleted load balancer stays
// PENDING_DELETE, for those being deleted too (at most n more).
func (c *Cloud) SetDeletePolls(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deletePolls = n
	for _, lb := range c.lbs {
		lb.pollsLeft = min(lb.pollsLeft, n)
	}
}

// Fail makes the next n requests answer 500.
func (c *Cloud) Fail(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failures = n
}

func (c *Cloud) newIDLocked(prefix string) string {
	c.next++
	return fmt.Sprintf("%s-0000-4000-8000-%012d", prefix, c.next)
}

// AddLoadBalancer stores an ACTIVE load balancer (its IDs assigned when
// empty) and, when fip is set, a floating IP on its VIP port.
func (c *Cloud) AddLoadBalancer(lb LoadBalancer, fip bool) LoadBalancer {
	c.mu.Lock()
	defer c.mu.Unlock()
	if lb.ID == "" {
		lb.ID = c.newIDLocked("1b000000")
	}
	if lb.VipPortID == "" {
		lb.VipPortID = c.newIDLocked("90700000")
	}
	if lb.ProvisioningStatus == "" {
		lb.ProvisioningStatus = "ACTIVE"
	}
	lb.OperatingStatus = "ONLINE"
	c.lbs = append(c.lbs, &lb)
	if fip {
		c.fips = append(c.fips, FloatingIP{ID: c.newIDLocked("f1000000"), FloatingIPAddress: fmt.Sprintf("203.0.113.%d", c.next%250),
			PortID: lb.VipPortID, ProjectID: lb.ProjectID, Status: "ACTIVE"})
	}
	return lb
}

// SetStatus sets a load balancer's provisioning status (an update under
// way: PENDING_UPDATE).
func (c *Cloud) SetStatus(id, status string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, lb := range c.lbs {
		if lb.ID == id {
			lb.ProvisioningStatus = status
		}
	}
}

// LoadBalancers returns (copies of) the load balancers left.
func (c *Cloud) LoadBalancers() []LoadBalancer {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]LoadBalancer, 0, len(c.lbs))
	for _, lb := range c.lbs {
		out = append(out, *lb)
	}
	return out
}

// FloatingIPs returns the floating IPs left.
func (c *Cloud) FloatingIPs() []FloatingIP {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.fips)
}

// LoadBalancerDeletes lists the accepted deletions ("<id> cascade=true").
func (c *Cloud) LoadBalancerDeletes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.lbDeletes)
}

// FloatingIPDeletes lists the IDs of the floating IPs deleted.
func (c *Cloud) FloatingIPDeletes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.fipDeletes)
}

// Lists counts the load balancer list requests answered.
func (c *Cloud) Lists() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lists
}

// failLocked answers 500 while failures are asked for.
func (c *Cloud) failLocked(w http.ResponseWriter) bool {
	if c.failures <= 0 {
		return false
	}
	c.failures--
	reply(w, http.StatusInternalServerError, map[string]any{"faultcode": "Server", "faultstring": "Internal Server Error", "debuginfo": nil})
	return true
}

// settleLocked moves the PENDING_DELETE load balancers one poll on, and
// removes those whose time came.
func (c *Cloud) settleLocked() {
	c.lbs = slices.DeleteFunc(c.lbs, func(lb *LoadBalancer) bool {
		if lb.ProvisioningStatus != "PENDING_DELETE" {
			return false
		}
		if lb.pollsLeft <= 0 {
			return true
		}
		lb.pollsLeft--
		return false
	})
}

func visible(who Caller, project string) bool { return who.Admin || project == who.ProjectID }

// ServeOctavia answers an Octavia request; path is relative to the
// endpoint (base).
func (c *Cloud) ServeOctavia(w http.ResponseWriter, r *http.Request, base, path string, who Caller) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if path == "" || path == "/" {
		reply(w, http.StatusOK, map[string]any{"versions": []map[string]any{
			{"id": "v2.0", "status": "SUPPORTED", "links": []map[string]any{{"rel": "self", "href": base + "/v2/"}}},
			{"id": "v2.27", "status": "CURRENT", "links": []map[string]any{{"rel": "self", "href": base + "/v2/"}}},
		}})
		return
	}
	if c.failLocked(w) {
		return
	}
	// Octavia answers under /v2 and /v2.0 alike.
	path = strings.TrimPrefix(strings.TrimPrefix(path, "/v2.0"), "/v2")
	const prefix = "/lbaas/loadbalancers"
	if path != prefix && !strings.HasPrefix(path, prefix+"/") {
		reply(w, http.StatusNotFound, octaviaFault(404, "Not Found"))
		return
	}
	id := strings.TrimPrefix(strings.TrimPrefix(path, prefix), "/")
	c.settleLocked()
	q := r.URL.Query()
	switch {
	case id == "" && r.Method == http.MethodGet:
		c.lists++
		project := q.Get("project_id")
		if project != "" && !who.Admin && project != who.ProjectID {
			reply(w, http.StatusForbidden, octaviaFault(403, "Policy does not allow this request to be performed."))
			return
		}
		var all []LoadBalancer
		for _, lb := range c.lbs {
			if visible(who, lb.ProjectID) && (project == "" || lb.ProjectID == project) &&
				(q.Get("description") == "" || lb.Description == q.Get("description")) {
				all = append(all, *lb)
			}
		}
		// Pages in ID order, as Octavia's default sort (created_at, id)
		// keeps them stable: marker is the last ID of the previous page.
		slices.SortFunc(all, func(a, b LoadBalancer) int { return strings.Compare(a.ID, b.ID) })
		if m := q.Get("marker"); m != "" {
			i := slices.IndexFunc(all, func(lb LoadBalancer) bool { return lb.ID > m })
			if i < 0 {
				i = len(all)
			}
			all = all[i:]
		}
		links := []map[string]any{}
		if n, err := strconv.Atoi(q.Get("limit")); err == nil && n > 0 && len(all) > n {
			all = all[:n]
			next := url.Values{}
			for k, v := range q {
				next[k] = v
			}
			next.Set("marker", all[n-1].ID)
			links = append(links, map[string]any{"rel": "next", "href": base + "/v2/lbaas/loadbalancers?" + next.Encode()})
		}
		if all == nil {
			all = []LoadBalancer{}
		}
		reply(w, http.StatusOK, map[string]any{"loadbalancers": all, "loadbalancers_links": links})
	case id != "" && (r.Method == http.MethodGet || r.Method == http.MethodDelete):
		i := slices.IndexFunc(c.lbs, func(lb *LoadBalancer) bool { return lb.ID == id && visible(who, lb.ProjectID) })
		if i < 0 {
			reply(w, http.StatusNotFound, octaviaFault(404, "Load Balancer "+id+" not found."))
			return
		}
		lb := c.lbs[i]
		if r.Method == http.MethodGet {
			reply(w, http.StatusOK, map[string]any{"loadbalancer": lb})
			return
		}
		if strings.HasPrefix(lb.ProvisioningStatus, "PENDING_") {
			reply(w, http.StatusConflict, octaviaFault(409, fmt.Sprintf("Invalid state %s of loadbalancer resource %s", lb.ProvisioningStatus, id)))
			return
		}
		cascade := isTrue(q.Get("cascade"))
		c.lbDeletes = append(c.lbDeletes, fmt.Sprintf("%s cascade=%v", id, cascade))
		lb.ProvisioningStatus, lb.pollsLeft = "PENDING_DELETE", c.deletePolls
		w.WriteHeader(http.StatusNoContent)
	default:
		reply(w, http.StatusMethodNotAllowed, octaviaFault(405, "Method Not Allowed"))
	}
}

// ServeNeutron answers a Neutron floating IP request; path is relative
// to the endpoint (base).
func (c *Cloud) ServeNeutron(w http.ResponseWriter, r *http.Request, base, path string, who Caller) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if path == "" || path == "/" {
		reply(w, http.StatusOK, map[string]any{"versions": []map[string]any{
			{"id": "v2.0", "status": "CURRENT", "links": []map[string]any{{"rel": "self", "href": base + "/v2.0/"}}},
		}})
		return
	}
	if c.failLocked(w) {
		return
	}
	const prefix = "/v2.0/floatingips"
	if path != prefix && !strings.HasPrefix(path, prefix+"/") {
		reply(w, http.StatusNotFound, neutronFault("HTTPNotFound", "The resource could not be found."))
		return
	}
	id := strings.TrimPrefix(strings.TrimPrefix(path, prefix), "/")
	q := r.URL.Query()
	switch {
	case id == "" && r.Method == http.MethodGet:
		out := []FloatingIP{}
		for _, f := range c.fips {
			if visible(who, f.ProjectID) && (q.Get("port_id") == "" || f.PortID == q.Get("port_id")) &&
				(q.Get("project_id") == "" || f.ProjectID == q.Get("project_id")) {
				out = append(out, f)
			}
		}
		reply(w, http.StatusOK, map[string]any{"floatingips": out})
	case id != "" && r.Method == http.MethodDelete:
		i := slices.IndexFunc(c.fips, func(f FloatingIP) bool { return f.ID == id && visible(who, f.ProjectID) })
		if i < 0 {
			reply(w, http.StatusNotFound, neutronFault("FloatingIPNotFound", "Floating IP "+id+" could not be found"))
			return
		}
		c.fips = slices.Delete(c.fips, i, i+1)
		c.fipDeletes = append(c.fipDeletes, id)
		w.WriteHeader(http.StatusNoContent)
	default:
		reply(w, http.StatusMethodNotAllowed, neutronFault("HTTPMethodNotAllowed", "Method not allowed."))
	}
}

func octaviaFault(code int, msg string) map[string]any {
	return map[string]any{"faultcode": "Client", "faultstring": msg, "debuginfo": nil, "code": code}
}

func neutronFault(typ, msg string) map[string]any {
	return map[string]any{"NeutronError": map[string]any{"type": typ, "message": msg, "detail": ""}}
}

func isTrue(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "t", "yes", "y", "on":
		return true
	}
	return false
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
