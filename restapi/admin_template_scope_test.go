package restapi

import (
	"net/http"
	"testing"
)

// Outside the routes that switch on all_tenants an admin is in its own
// project, as in Magnum: creating a cluster, it finds its project's
// templates and every public one, hidden ones included, but not another
// project's private template.
func TestAdminTemplateScopeOnCreate(t *testing.T) {
	a := newTestAPI(t)
	otherAdmin := caller{"admin2-project", "admin2-user", "admin,member,reader"}
	private := a.template(member, "private", nil).UUID
	r := a.do(otherAdmin, "", "POST", "/v1/clustertemplates", templateBody("hidden-pub", map[string]any{"public": true, "hidden": true, "flavor_id": "m1.medium", "master_flavor_id": "m1.large"}))
	if r.status != http.StatusCreated {
		t.Fatalf("hidden public template: %d %s", r.status, r.body)
	}
	hidden := r.json(t)["uuid"].(string)

	a.cluster(admin, "on-hidden", hidden, 1)
	a.expectNoCommit(func() {
		expectError(t, a.do(admin, "1.10", "POST", "/v1/clusters", map[string]any{"cluster_template_id": private}),
			http.StatusNotFound, "ClusterTemplate "+private+" could not be found.")
	})
	// A member does not see the other project's hidden template at all.
	expectError(t, a.do(member, "1.10", "POST", "/v1/clusters", map[string]any{"cluster_template_id": hidden}),
		http.StatusNotFound, "could not be found")
}
