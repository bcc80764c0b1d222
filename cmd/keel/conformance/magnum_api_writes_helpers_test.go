package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"testing"

	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
)

// What Magnum's own API writes, written through it: cluster templates and
// quotas, so that their rows are exactly Magnum's (defaults, cluster_distro
// from Glance, project and user from the token, timestamps).

// sideTemplates are the UUIDs of the templates made on Magnum's API.
type sideTemplates struct{ public, project, heat string }

// The templates, with labels as operators set them: the public one's
// container_infra_prefix in the Heat driver's convention (a trailing
// slash, docs/api.md 47).
var (
	publicTemplate = map[string]any{"name": "k8s-v1.32", "coe": "kubernetes", "image_id": imageName,
		"flavor_id": flavorID, "master_flavor_id": flavorResizeID, "keypair_id": sideKeypair,
		"external_network_id": extNetName, "network_driver": "calico", "volume_driver": "cinder",
		"dns_nameserver": "8.8.8.8", "docker_volume_size": 20, "master_lb_enabled": true,
		"floating_ip_enabled": true, "public": true,
		"labels": map[string]string{"kube_tag": "v1.32.4", "container_infra_prefix": "registry.example.com/mirror/"}}
	projectTemplate = map[string]any{"name": "k8s-b", "coe": "kubernetes", "image_id": imageName,
		"flavor_id": flavorID, "master_flavor_id": flavorResizeID, "external_network_id": extNetID,
		"network_driver": "calico", "floating_ip_enabled": false,
		"labels": map[string]string{"kube_tag": kubeTag, "calico_tag": "v3.30.2", "boot_volume_size": "40",
			"auto_healing_enabled": "true", "master_lb_floating_ip_enabled": "false"}}
	// A Heat-era template (Fedora CoreOS, flannel): keel leaves it out
	// (docs/api.md 48), its cluster is a read-only record.
	heatTemplate = map[string]any{"name": "fcos-heat", "coe": "kubernetes", "image_id": fcosImageName,
		"flavor_id": flavorID, "master_flavor_id": flavorResizeID, "external_network_id": extNetName,
		"network_driver": "flannel", "docker_volume_size": 20, "labels": map[string]string{"kube_tag": "v1.21.11"}}
)

// sideKeypair is the keypair the public template names (Magnum's API does
// not look a template's keypair up; the fake Nova has it all the same).
const sideKeypair = "ops-key"

// fillThroughMagnum creates on Magnum's API the public template (by an
// admin of project a), b's own templates (by b's member) and the quotas
// of a and b (by the admin, as quota:create requires).
func fillThroughMagnum(t *testing.T, magnum string, admin, a, b sideUser) sideTemplates {
	t.Helper()
	st := sideTemplates{
		public:  magnumPost(t, magnum, admin, "/v1/clustertemplates", publicTemplate)["uuid"].(string),
		project: magnumPost(t, magnum, b, "/v1/clustertemplates", projectTemplate)["uuid"].(string),
		heat:    magnumPost(t, magnum, b, "/v1/clustertemplates", heatTemplate)["uuid"].(string),
	}
	for _, q := range []struct {
		project string
		limit   int
	}{{a.project, 10}, {b.project, 5}} {
		magnumPost(t, magnum, admin, "/v1/quotas", map[string]any{"project_id": q.project, "resource": "Cluster", "hard_limit": q.limit})
	}
	return st
}

// magnumPost POSTs body to Magnum's API as user u and returns the created
// object; anything but 201 fails the test.
func magnumPost(t *testing.T, magnum string, u sideUser, path string, body map[string]any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPost, magnum+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Auth-Token", u.token)
	req.Header.Set("OpenStack-API-Version", "container-infra 1.10")
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST %s on Magnum's API: %s %s", path, resp.Status, answer)
	}
	var out map[string]any
	if err := json.Unmarshal(answer, &out); err != nil {
		t.Fatalf("POST %s on Magnum's API: %v", path, err)
	}
	return out
}

// sideAdmin is an admin of project p (Keystone's admin role there), with
// the keypair the public template names.
func sideAdmin(t *testing.T, e *env, p string) sideUser {
	t.Helper()
	ctx := context.Background()
	name := p + "-admin"
	const pw = "conformance-side-admin-pw"
	if err := e.ks.addUser(ctx, name, pw, p, "admin"); err != nil {
		t.Fatal(err)
	}
	u := sideUser{project: sideID(t, e, "projects", p), user: sideID(t, e, "users", name)}
	e.cloud.addKeypair(u.user, sideKeypair)
	var err error
	if u.token, err = e.ks.password(ctx, name, pw, p); err != nil {
		t.Fatal(err)
	}
	return u
}

// sideID is the Keystone ID of a named project or user.
func sideID(t *testing.T, e *env, collection, name string) string {
	t.Helper()
	id, err := e.ks.id(context.Background(), collection, name)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// sideDatabase is a database server Magnum's side by side runs on.
type sideDatabase struct {
	name string
	open func(*testing.T) mdb.DB
}

// sideDatabases are MariaDB (KEEL_REQUIRE_MARIADB=1 makes its absence a
// failure) and the PostgreSQL server KEEL_TEST_POSTGRES names
// (KEEL_REQUIRE_POSTGRES=1 requires it), as make test sets them.
func sideDatabases(t *testing.T) []sideDatabase {
	var out []sideDatabase
	if mdb.Need(t, "KEEL_REQUIRE_MARIADB", "mariadbd (mariadb-server)", mdb.Have("mariadbd") && mdb.Have("mariadb-install-db")) {
		out = append(out, sideDatabase{"mariadb", mdb.MariaDB})
	}
	if base := os.Getenv("KEEL_TEST_POSTGRES"); base != "" {
		out = append(out, sideDatabase{"postgresql", func(t *testing.T) mdb.DB { return mdb.Postgres(t, base) }})
	} else if os.Getenv("KEEL_REQUIRE_POSTGRES") == "1" {
		t.Fatal("KEEL_REQUIRE_POSTGRES=1 but KEEL_TEST_POSTGRES is unset")
	}
	if len(out) == 0 {
		t.Skip("no database server for Magnum's API")
	}
	return out
}
