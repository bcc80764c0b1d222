package conformance

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// tempestDifferences are the magnum-tempest-plugin tests expected to fail
// against keel, each for a deliberate difference of docs/api.md.
var tempestDifferences = []difference{
	// The 22 bay and baymodel tests: keel serves no /v1/bays, /v1/baymodels
	// (those expecting a 404 pass all the same).
	{regexp.MustCompile(`\.test_bay\.|\.test_baymodel\.|\.test_baymodel_admin\.`), 32, "no bay or baymodel routes", true},
	// The cluster test signs the Google sample CSR, a 1024-bit RSA key.
	{regexp.MustCompile(`\.test_cluster\.ClusterTest\.test_create_list_sign_delete_clusters$`), 25, "CSRs with RSA keys under 2048 bits are refused", false},
	// node_count 0 without a microversion: refused below 1.10, as Magnum
	// does (the plugin sends no OpenStack-API-Version on cluster create).
	{regexp.MustCompile(`\.test_cluster\.ClusterTest\.test_create_cluster_with_zero_nodes$`), 33, "node_count 0 needs microversion 1.10", false},
}

// TestTempestMagnumPlugin runs magnum-tempest-plugin's API tests (every
// test under magnum_tempest_plugin.tests.api, by tempest run's worker file)
// against keel with a real Keystone: every test passes or is a listed
// difference.
func TestTempestMagnumPlugin(t *testing.T) {
	t.Parallel() // with gophercloud's run, on the same environment
	needTools(t, "tempest", "stestr", "subunit2csv", "/usr/lib/python3/dist-packages/magnum_tempest_plugin/plugin.py")
	e := sharedEnv(t)
	ctx := context.Background()
	tmpl, err := e.kubeTemplate(ctx, "tempest-k8s")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(e.dir, "tempest")
	// Its own workspace registry: tempest's default is ~/.tempest.
	init := exec.Command("tempest", "init", "--workspace-path", filepath.Join(e.dir, "tempest-workspaces.yaml"), dir)
	// (in the temporary folder: tempest logs to tempest.log where it runs)
	init.Dir, init.Env = e.dir, pythonEnv()
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("tempest init: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "etc", "tempest.conf"), []byte(tempestConf(e, tmpl)), 0o600); err != nil {
		t.Fatal(err)
	}
	workers, err := tempestWorkers(dir)
	if err != nil {
		t.Fatal(err)
	}
	workerFile := filepath.Join(dir, "workers.yaml")
	if err := os.WriteFile(workerFile, []byte(workers), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	run := exec.Command("tempest", "run", "--worker-file", workerFile)
	// This configuration, never /etc/tempest's.
	run.Dir, run.Env = dir, append(pythonEnv(), "TEMPEST_CONFIG_DIR="+filepath.Join(dir, "etc"), "TEMPEST_CONFIG=tempest.conf")
	logf, err := os.Create(filepath.Join(dir, "tempest-run.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	run.Stdout, run.Stderr = logf, logf
	// A failing test makes tempest exit 1: the results below say which.
	runErr := run.Run()
	t.Logf("tempest run: %s (%v); log %s", time.Since(start).Round(time.Second), runErr, logf.Name())
	results, err := stestrResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	judge(t, "magnum-tempest-plugin", results, tempestDifferences)
}

// tempestConf configures tempest for Keystone's bootstrap admin (tempest
// makes a project and user per test class with it) and the plugin for the
// fake cloud's image, flavors and external network. cluster_template_id
// is a public template with kube_tag (keel has no default for it; docs/
// conformance.md). keypair_name is empty: the plugin then makes no keypair
// and its clusters have none (keel, as Magnum, allows that); with one,
// ClusterTest's tearDownClass deletes it with the token of a user tempest
// has already deleted (see tempestWorkers) and fails, as against Magnum.
func tempestConf(e *env, templateID string) string {
	return fmt.Sprintf(`[DEFAULT]
log_file = tempest.log
debug = true

[auth]
admin_username = %[2]s
admin_password = %[3]s
admin_project_name = %[2]s
admin_domain_name = Default
use_dynamic_credentials = true
create_isolated_networks = false

[identity]
uri_v3 = %[1]s
auth_version = v3
region = %[4]s
disable_ssl_certificate_validation = true

[identity-feature-enabled]
api_v2 = false

[service_available]
magnum = true
nova = true
neutron = false
glance = false
cinder = false
swift = false
horizon = false

[validation]
run_validation = false

[magnum]
image_id = %[5]s
nic_id = %[6]s
keypair_name =
flavor_id = %[7]s
master_flavor_id = %[8]s
copy_logs = false
cluster_template_id = %[9]s
cluster_creation_timeout = 10
`, e.ks.AuthURL, ksAdmin, ksAdminPwd, ksRegion, imageName, extNetName, flavorID, flavorResizeID, templateID)
}

// clusterTest is the plugin's class of cluster tests.
const clusterTest = `magnum_tempest_plugin.tests.api.v1.test_cluster.ClusterTest.`

// tempestWorkers is a worker file (one process per worker, all running
// at once) that runs each test of ClusterTest in a process of its own,
// and the other tests in two processes. ClusterTest's setUpClass
// registers its credentials for cleanup after each test (the plugin's
// BaseTempestTest.ic_method_list), so its project and user are deleted
// after its first test: the tests after it would run with a dead token.
// On its own, each test finds them alive, as in a gate where it comes
// first.
func tempestWorkers(dir string) (string, error) {
	list := exec.Command("tempest", "run", "--list-tests", "--regex", "^"+regexp.QuoteMeta(clusterTest))
	list.Dir, list.Env = dir, append(pythonEnv(), "TEMPEST_CONFIG_DIR="+filepath.Join(dir, "etc"), "TEMPEST_CONFIG=tempest.conf")
	out, err := list.Output()
	if err != nil {
		return "", fmt.Errorf("tempest run --list-tests: %w", err)
	}
	var b strings.Builder
	b.WriteString("- worker:\n  - '^magnum_tempest_plugin\\.tests\\.api\\.v1\\.test_bay(model)?\\.'\n")
	b.WriteString("- worker:\n  - '^magnum_tempest_plugin\\.tests\\.api\\.(?!v1\\.test_cluster\\.ClusterTest\\.|v1\\.test_bay(model)?\\.)'\n")
	n := 0
	for _, line := range strings.Fields(string(out)) {
		if !strings.HasPrefix(line, clusterTest) {
			continue
		}
		id, _, _ := strings.Cut(line, "[")
		fmt.Fprintf(&b, "- worker:\n  - '^%s\\b'\n", regexp.QuoteMeta(id))
		n++
	}
	if n == 0 {
		return "", fmt.Errorf("tempest lists no %s test:\n%s", clusterTest, out)
	}
	return b.String(), nil
}

// stestrResults reads the last run of the stestr repository in dir.
func stestrResults(dir string) ([]outcome, error) {
	last := exec.Command("stestr", "last", "--subunit")
	last.Dir, last.Env = dir, pythonEnv()
	csvOut := exec.Command("subunit2csv", "--no-passthrough")
	csvOut.Env = pythonEnv()
	pipe, err := last.StdoutPipe()
	if err != nil {
		return nil, err
	}
	csvOut.Stdin = pipe
	if err := last.Start(); err != nil {
		return nil, err
	}
	// subunit2csv exits 1 when a test failed: the rows say which.
	out, err := csvOut.Output()
	_ = last.Wait()
	if _, failed := err.(*exec.ExitError); err != nil && !(failed && len(out) > 0) {
		return nil, fmt.Errorf("stestr last | subunit2csv: %w", err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	if err != nil {
		return nil, err
	}
	var res []outcome
	for _, row := range rows[1:] { // test,status,start_time,stop_time
		id, _, _ := strings.Cut(row[0], "[")
		if strings.HasPrefix(id, "setUpClass (") || strings.HasPrefix(id, "tearDownClass (") {
			// A class fixture failing is reported as a test of its own.
			id = row[0]
		}
		status := row[1]
		switch status {
		case "success", "xfail":
			status = "pass"
		case "skip":
		default:
			status = "fail"
		}
		res = append(res, outcome{ID: id, Status: status})
	}
	return res, nil
}
