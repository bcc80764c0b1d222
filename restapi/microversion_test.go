package restapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Version negotiation as Magnum does it: no header is 1.1, `latest` is 1.14
// whatever the service word, the three service names, and a 406 with the
// right body for every malformed or unsupported value; the version headers
// on every /v1 answer.
func TestMicroversionNegotiation(t *testing.T) {
	a := newTestAPI(t)
	for _, tc := range []struct {
		header, want string
		status       int
		body         string
	}{
		{"", "1.1", 200, ""},
		{"container-infra 1.5", "1.5", 200, ""},
		{"container-infrastructure 1.14", "1.14", 200, ""},
		{"container-infrastructure-management 1.9", "1.9", 200, ""},
		{"container-infra latest", "1.14", 200, ""},
		{"foo latest", "1.14", 200, ""},
		{"1.5", "", 406, "Invalid service type for OpenStack-API-Version header"},
		{"nova 1.5", "", 406, "Invalid service type for OpenStack-API-Version header"},
		{"container-infra 1", "", 406, "Invalid value for OpenStack-API-Version header"},
		{"container-infra 2.1", "", 406, "Mutually exclusive versions requested"},
		{"container-infra 1.15", "", 406, "minor version is not supported"},
		{"container-infra 1.0", "", 406, "minor version is not supported"},
	} {
		t.Run(tc.header, func(t *testing.T) {
			req, _ := http.NewRequest("GET", a.srv.URL+"/v1", nil)
			req.Header.Set("Accept", "application/json")
			if tc.header != "" {
				req.Header.Set("OpenStack-API-Version", tc.header)
			}
			resp, err := a.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if got := resp.Header.Get("OpenStack-API-Minimum-Version"); got != serviceName+" 1.1" {
				t.Errorf("minimum version header %q", got)
			}
			if got := resp.Header.Get("OpenStack-API-Maximum-Version"); got != serviceName+" 1.14" {
				t.Errorf("maximum version header %q", got)
			}
			if resp.Header.Get("Vary") != "OpenStack-API-Version" || resp.Header.Get("x-openstack-request-id") == "" {
				t.Errorf("Vary %q, request id %q", resp.Header.Get("Vary"), resp.Header.Get("x-openstack-request-id"))
			}
			var body map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if tc.status == 200 {
				if got := resp.Header.Get("OpenStack-API-Version"); got != serviceName+" "+tc.want {
					t.Errorf("version header %q, want %s", got, tc.want)
				}
				if body["id"] != "v1" || body["clusters"] == nil || body["versions"] != nil {
					t.Errorf("/v1 document: %v", body)
				}
				return
			}
			b, _ := json.Marshal(body)
			if !strings.Contains(string(b), tc.body) {
				t.Errorf("406 body %s lacks %q", b, tc.body)
			}
		})
	}
}

// Un-prefixed paths are v1 paths, trailing slashes are accepted, and the
// root document lists v1 with its range and no version headers.
func TestPathsAndRootDocument(t *testing.T) {
	a := newTestAPI(t)
	a.template(member, "t", map[string]string{"kube_tag": "v1.33.4"})
	for _, p := range []string{"/v1/clustertemplates", "/clustertemplates", "/clustertemplates/", "/v1/clustertemplates/"} {
		if r := a.do(member, "", "GET", p, nil); r.status != 200 || !strings.Contains(string(r.body), `"name":"t"`) {
			t.Errorf("GET %s: %d %s", p, r.status, r.body)
		}
	}
	r := a.do(member, "", "GET", "/", nil)
	if r.status != 200 || r.header.Get("OpenStack-API-Version") != "" {
		t.Fatalf("GET /: %d, version header %q", r.status, r.header.Get("OpenStack-API-Version"))
	}
	var root struct {
		Versions []map[string]any `json:"versions"`
	}
	if err := json.Unmarshal(r.body, &root); err != nil || len(root.Versions) != 1 {
		t.Fatalf("root document %s", r.body)
	}
	v := root.Versions[0]
	if v["id"] != "v1" || v["status"] != "CURRENT" || v["min_version"] != "1.1" || v["max_version"] != "1.14" {
		t.Errorf("root version entry %v", v)
	}
}
