package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/magnumimport"
)

// The cluster magnum-cluster-api made, as the adoption test finds it:
// Magnum's rows, and the Cluster API objects under the driver's names.
const (
	driverClass   = "magnum-v0.26.2"
	driverManager = "magnum-cluster-api"
	// driverVariable is a variable of the driver's class that keel's class
	// does not have: the upgrade onto keel's class must drop it, or
	// Cluster API refuses the Cluster.
	driverVariable = "magnumClusterAPIOnly"
	adoptUUID      = "ad0b7ed0-0000-4000-8000-000000000001"
	adoptStack     = "kube-ad0p7"
	adoptTemplate  = "ad0b7ed0-0000-4000-8000-0000000000aa"
)

// driverDatabase is Magnum's database as magnum-cluster-api's conductor
// left it: a template, the cluster (one master, one worker, on
// Kubernetes v1.33.1) in project, and its CAs, made by Magnum's own code.
func driverDatabase(t *testing.T, project string) mdb.DB {
	cas := mdb.GeneratedCAs(t)
	m := mdb.SQLite(t)
	mdb.InsertTemplate(t, m, mdb.TemplateRow{ID: 1, UUID: adoptTemplate, Project: project, Name: "capi-v1.33", Distro: "ubuntu",
		NetDriver: "calico", Labels: map[string]string{"kube_tag": "v1.33.1"}, Public: true})
	mdb.InsertCluster(t, m, mdb.ClusterRow{ID: 1, UUID: adoptUUID, Project: project, Name: "adopted", Template: adoptTemplate,
		Stack: adoptStack, State: "CREATE_COMPLETE", Labels: map[string]string{"kube_tag": "v1.33.1"}})
	mdb.InsertNodeGroup(t, m, mdb.NodeGroupRow{ID: 1, UUID: "ad0b7ed0-0000-4000-8000-000000000011", Cluster: adoptUUID, Project: project,
		Name: "default-master", Role: "master", Count: 1, Min: 1, IsDefault: true})
	mdb.InsertNodeGroup(t, m, mdb.NodeGroupRow{ID: 2, UUID: "ad0b7ed0-0000-4000-8000-000000000012", Cluster: adoptUUID, Project: project,
		Name: "default-worker", Role: "worker", Count: 1, Min: 1, IsDefault: true})
	mdb.InsertCAs(t, m, adoptUUID, cas)
	return m
}

// driverObjects are the Cluster API objects the driver made for the
// cluster m holds: its ClusterClass (keel's templates under the driver's
// class name, plus a variable of its own), the CA Secrets from Magnum's
// certificate store, its cloud-config and addons, and the Cluster.
// magnum-cluster-api's own class is not reproduced: what adoption relies
// on (the class and topology kept as found, the driver's fields taken
// over) does not depend on what the class renders.
func driverObjects(t *testing.T, mg *magnumimport.Magnum) []*unstructured.Unstructured {
	c := mg.Clusters[0]
	cluster := c.Doc
	cluster.ClusterClass, cluster.Imported = driverClass, nil
	ngs := make([]intent.NodeGroup, len(c.NodeGroups))
	for i, n := range c.NodeGroups {
		ngs[i] = n.Doc
	}
	docs, err := compiler.ClusterClass(driverClass)
	if err != nil {
		t.Fatal(err)
	}
	cdocs, err := compiler.Compile(compiler.Input{
		Documents: intent.Documents{Template: mg.Templates[0].Doc, Cluster: cluster, NodeGroups: ngs},
		Secrets: &compiler.SecretInput{PKI: c.PKI, Cloud: intent.CloudConfig{AuthURL: "https://keystone.example.org/v3", RegionName: "RegionOne",
			ApplicationCredentialID: "driver-credential", ApplicationCredentialSecret: "driver-secret"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, d := range append(docs, cdocs...) {
		if d.Path != compiler.KustomizationFile {
			objs = append(objs, decodeAll(t, d.Bytes())...)
		}
	}
	for _, o := range objs {
		if o.GetNamespace() == "" {
			o.SetNamespace(kube.Namespace)
		}
		addDriverVariable(t, o)
	}
	return append(objs, driverAddons()...)
}

// driverAddonSet is a ClusterResourceSet of the driver's own, under a name
// keel does not render: keel must delete it once its own addons replace
// the driver's (after the upgrade onto keel's class), and not before.
const driverAddonSet = adoptStack + "-driver-addons"

func driverAddons() []*unstructured.Unstructured {
	payload := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": driverAddonSet, "namespace": kube.Namespace},
		"data":     map[string]any{"addon.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: driver-addon\n  namespace: kube-system\n"},
	}}
	set := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "addons.cluster.x-k8s.io/v1beta2", "kind": "ClusterResourceSet",
		"metadata": map[string]any{"name": driverAddonSet, "namespace": kube.Namespace},
		"spec": map[string]any{
			"clusterSelector": map[string]any{"matchLabels": map[string]any{intent.LabelClusterUUID: adoptUUID}},
			"resources":       []any{map[string]any{"kind": "ConfigMap", "name": driverAddonSet}},
			"strategy":        "Reconcile",
		},
	}}
	return []*unstructured.Unstructured{payload, set}
}

// exists reports whether the object of kind (group/version/kind) and name
// is in magnum-system.
func exists(t *testing.T, c client.Client, apiVersion, kind, name string) bool {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	err := c.Get(context.Background(), client.ObjectKey{Namespace: kube.Namespace, Name: name}, u)
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

// addDriverVariable gives the driver's class and Cluster driverVariable.
func addDriverVariable(t *testing.T, o *unstructured.Unstructured) {
	var err error
	switch o.GetKind() {
	case "ClusterClass":
		vars, _, _ := unstructured.NestedSlice(o.Object, "spec", "variables")
		vars = append(vars, map[string]any{"name": driverVariable, "required": false,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "string"}}})
		err = unstructured.SetNestedSlice(o.Object, vars, "spec", "variables")
	case "Cluster":
		vars, _, _ := unstructured.NestedSlice(o.Object, "spec", "topology", "variables")
		vars = append(vars, map[string]any{"name": driverVariable, "value": "set by the driver"})
		err = unstructured.SetNestedSlice(o.Object, vars, "spec", "topology", "variables")
	}
	if err != nil {
		t.Fatal(err)
	}
}

// createAsDriver creates objs as magnum-cluster-api does (plain creates,
// under its own field manager), the Cluster last.
func createAsDriver(t *testing.T, c client.Client, objs []*unstructured.Unstructured) {
	sort.SliceStable(objs, func(i, j int) bool { return objs[j].GetKind() == "Cluster" && objs[i].GetKind() != "Cluster" })
	for _, o := range objs {
		if err := c.Create(context.Background(), o, client.FieldOwner(driverManager)); err != nil {
			t.Fatalf("creating %s %s as the driver: %v", o.GetKind(), o.GetName(), err)
		}
	}
}

func decodeAll(t *testing.T, data []byte) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(m) > 0 {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
}

// machineryOf fingerprints what an adoption must not replace: the uid
// and generation of the cluster's KubeadmControlPlane, MachineDeployments
// and Machines, and the data of its CA Secrets.
func machineryOf(t *testing.T, c client.Client, stack string) map[string]string {
	out := map[string]string{}
	for _, gvk := range []schema.GroupVersionKind{
		{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmControlPlaneList"},
		{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "MachineDeploymentList"},
		{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "MachineList"},
	} {
		var l unstructured.UnstructuredList
		l.SetGroupVersionKind(gvk)
		if err := c.List(context.Background(), &l, client.InNamespace(kube.Namespace),
			client.MatchingLabels{"cluster.x-k8s.io/cluster-name": stack}); err != nil {
			t.Fatal(err)
		}
		for _, o := range l.Items {
			out[o.GetKind()+"/"+o.GetName()] = fmt.Sprintf("uid %s generation %d", o.GetUID(), o.GetGeneration())
		}
	}
	for _, p := range []string{"ca", "etcd", "proxy", "sa"} {
		var s unstructured.Unstructured
		s.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "Secret"})
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: kube.Namespace, Name: stack + "-" + p}, &s); err != nil {
			t.Fatal(err)
		}
		data, _, _ := unstructured.NestedStringMap(s.Object, "data")
		out["Secret/"+s.GetName()] = fmt.Sprintf("uid %s data %v", s.GetUID(), data)
	}
	return out
}
