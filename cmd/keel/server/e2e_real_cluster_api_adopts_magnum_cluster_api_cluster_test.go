package server

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/magnumimport"
	"github.com/openkeel/keel/repo"
)

// On Cluster API's own controllers: a cluster magnum-cluster-api made
// (its names, labels, CA Secrets from Magnum's certificate store, a
// ClusterClass of its own, created under its field manager) runs; keel
// import --adopt plans "no machine change", as `keel plan` of its commit
// does, imports it and keel applies it. No KubeadmControlPlane, MachineDeployment or Machine is replaced
// (uids and generations unchanged), the CA Secrets keep their bytes, and
// the cluster answers CREATE_COMPLETE as it did on Magnum. Then an
// upgrade through keel's API moves it onto keel's ClusterClass: the
// driver's own variable leaves the Cluster (keel took the driver's fields
// over), the machines roll, the upgrade completes, and the driver's own
// ClusterResourceSet, kept while the cluster was on the driver's class,
// is gone with its ConfigMap: keel's addons replace it.
func TestRealClusterAPIAdoptsAMagnumClusterAPICluster(t *testing.T) {
	ctx := context.Background()
	dataDir := t.TempDir()
	in, sc := startRealKeelWith(t, "1.10", func(o *Options) { o.DataDir = dataDir })
	project := "p-" + t.Name()
	m := driverDatabase(t, project)
	mg := readMagnum(t, m.URL)
	createAsDriver(t, in.Client, driverObjects(t, mg))
	waitFor(t, realWait, "the driver's cluster to run its machines", func() bool {
		return runningMachines(t, in.Client, adoptStack) == 2
	})
	before := machineryOf(t, in.Client, adoptStack)

	if err := mg.Adopt(ctx, magnumimport.NewFinder(in.Client), magnumimport.AdoptOptions{}); err != nil {
		t.Fatal(err)
	}
	plan := planText(t, in, mg)
	if !strings.Contains(plan, "adopted from magnum-cluster-api on ClusterClass "+driverClass+", no machine change") {
		t.Fatalf("--plan does not say the adoption changes no machine:\n%s", plan)
	}
	importAdopted(t, in, mg, dataDir)
	if plan := planOfHead(t, in); !strings.Contains(plan, "cluster "+adoptStack+": no-op\n  adopted from magnum-cluster-api on ClusterClass "+driverClass+", no machine change") {
		t.Errorf("keel plan of the adoption commit:\n%s", plan)
	}
	got := waitRealStatus(t, sc, adoptUUID, "CREATE_COMPLETE", realWait)
	if got.StackID != adoptStack || got.Name != "adopted" {
		t.Errorf("adopted cluster answers stack_id %s, name %s", got.StackID, got.Name)
	}
	waitFor(t, realWait, "keel's apply of the adopted cluster", func() bool { return managedByKeel(t, in.Client) })
	if after := machineryOf(t, in.Client, adoptStack); !maps.Equal(before, after) {
		t.Fatalf("the adoption replaced or changed Cluster API objects:\nbefore %v\nafter  %v", before, after)
	}
	if !exists(t, in.Client, "addons.cluster.x-k8s.io/v1beta2", "ClusterResourceSet", driverAddonSet) {
		t.Error("the adoption deleted the driver's ClusterResourceSet, which still serves the cluster on the driver's class")
	}

	tmpl := realTemplate(t, sc, "keel", "calico", nil)
	if _, err := clusters.Upgrade(ctx, sc, adoptUUID, clusters.UpgradeOpts{ClusterTemplate: tmpl.UUID}).Extract(); err != nil {
		t.Fatal(err)
	}
	waitRealStatus(t, sc, adoptUUID, "UPDATE_COMPLETE", 2*realWait)
	if vars := clusterVariables(t, in.Client); slices.Contains(vars, driverVariable) {
		t.Errorf("the driver's variable %s stayed on the Cluster after the upgrade: %v", driverVariable, vars)
	}
	if after := machineryOf(t, in.Client, adoptStack); maps.Equal(before, after) {
		t.Error("the upgrade onto keel's ClusterClass rolled no machine")
	}
	if exists(t, in.Client, "addons.cluster.x-k8s.io/v1beta2", "ClusterResourceSet", driverAddonSet) ||
		exists(t, in.Client, "v1", "ConfigMap", driverAddonSet) {
		t.Error("the driver's ClusterResourceSet or its ConfigMap outlived the upgrade onto keel's addons")
	}
}

func readMagnum(t *testing.T, url string) *magnumimport.Magnum {
	src, err := magnumimport.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	mg, err := magnumimport.Read(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if len(mg.Clusters) != 1 || mg.Clusters[0].Err != nil || mg.Clusters[0].PKI == nil {
		t.Fatalf("Magnum's database reads as %+v", mg.Clusters)
	}
	return mg
}

func planText(t *testing.T, in *Instance, mg *magnumimport.Magnum) string {
	p, err := magnumimport.PlanOn(in.Store, mg)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := p.Print(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// importAdopted does what keel import --adopt does after its plan: the
// import's commits, then the one that renders the adopted cluster.
func importAdopted(t *testing.T, in *Instance, mg *magnumimport.Magnum, dataDir string) {
	ctx := context.Background()
	var err error
	if mg.Keyring, err = secrets.LoadKeyring(dataDir); err != nil {
		t.Fatal(err)
	}
	if _, err := magnumimport.Apply(ctx, in.Store, mg); err != nil {
		t.Fatal(err)
	}
	dirs, _, err := repo.CommitAdopted(ctx, in.Store, mg.Keyring)
	if err != nil || len(dirs) != 1 {
		t.Fatalf("rendering the adopted cluster: %v (%d folders)", err, len(dirs))
	}
	if err := in.DB.Sync(ctx, in.Store); err != nil {
		t.Fatal(err)
	}
}

func runningMachines(t *testing.T, c client.Client, stack string) int {
	var l unstructured.UnstructuredList
	l.SetAPIVersion("cluster.x-k8s.io/v1beta2")
	l.SetKind("MachineList")
	if err := c.List(context.Background(), &l, client.InNamespace(kube.Namespace), client.MatchingLabels{"cluster.x-k8s.io/cluster-name": stack}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range l.Items {
		if phase, _, _ := unstructured.NestedString(m.Object, "status", "phase"); phase == "Running" {
			n++
		}
	}
	return n
}

func adoptedCluster(t *testing.T, c client.Client) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("cluster.x-k8s.io/v1beta2")
	u.SetKind("Cluster")
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: kube.Namespace, Name: adoptStack}, u); err != nil {
		t.Fatal(err)
	}
	return u
}

// managedByKeel: keel's field manager has applied the Cluster, and the
// driver's manager owns nothing of it any more.
func managedByKeel(t *testing.T, c client.Client) bool {
	keel, driver := false, false
	for _, e := range adoptedCluster(t, c).GetManagedFields() {
		keel = keel || e.Manager == kube.FieldManager
		driver = driver || e.Manager == driverManager
	}
	return keel && !driver
}

func clusterVariables(t *testing.T, c client.Client) []string {
	vars, _, _ := unstructured.NestedSlice(adoptedCluster(t, c).Object, "spec", "topology", "variables")
	var out []string
	for _, v := range vars {
		name, _, _ := unstructured.NestedString(v.(map[string]any), "name")
		out = append(out, name)
	}
	return out
}

// planOfHead is `keel plan` of the repository's last commit.
func planOfHead(t *testing.T, in *Instance) string {
	base, err := in.Store.Resolve("HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	bs, err := in.Store.SnapshotAt(base)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := in.Store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	plans, err := repo.PlanChange(context.Background(), bs, hs)
	if err != nil {
		t.Fatal(err)
	}
	return repo.FormatPlans(plans)
}
