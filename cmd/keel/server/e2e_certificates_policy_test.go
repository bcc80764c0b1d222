package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// keel's certificate policy: a teammate who did not create the cluster may
// read the CA (reader) and have a CSR signed (member), unlike Magnum's
// creator-only defaults; a reader may not sign; another project does not
// see the cluster at all, admin or not.
func TestCertificatePolicy(t *testing.T) {
	in, sc := startKeel(t, "1.12")
	uuid := newCertCluster(t, sc, "shared")
	csr, _ := json.Marshal(map[string]string{"cluster_uuid": uuid, "csr": string(adminCSR(t))})
	project := "p-" + t.Name()

	for _, tc := range []struct {
		name, user, project, roles string
		get, post                  int
	}{
		{"teammate member", "bob", project, "member,reader", 200, 201},
		{"teammate reader", "carol", project, "reader", 200, 403},
		{"no role", "dave", project, "observer", 403, 403},
		{"other project admin", "root", "other", "admin,member,reader", 404, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			do := func(method, path, body string) int {
				req, _ := http.NewRequest(method, in.URL+path, strings.NewReader(body))
				req.Header.Set("X-User-Id", tc.user)
				req.Header.Set("X-Project-Id", tc.project)
				req.Header.Set("X-Roles", tc.roles)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			if got := do("GET", "/v1/certificates/"+uuid, ""); got != tc.get {
				t.Errorf("GET: %d, want %d", got, tc.get)
			}
			if got := do("POST", "/v1/certificates", string(csr)); got != tc.post {
				t.Errorf("POST: %d, want %d", got, tc.post)
			}
		})
	}
}
