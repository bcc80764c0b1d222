package mgmtcluster

import (
	"context"
	"fmt"
	"os"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var env *Env

func TestMain(m *testing.M) {
	// The garbage collector on: garbage_collector_test.go checks it.
	e, err := Start(context.Background(), Options{GarbageCollector: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mgmtcluster:", err)
		os.Exit(1)
	}
	env = e
	code := m.Run()
	_ = e.Stop()
	os.Exit(code)
}

// The management cluster serves the Cluster API and CAPO kinds keel renders
// and reads, at the versions it uses.
func TestManagementClusterServesCAPIAndCAPOCRDs(t *testing.T) {
	want := map[string]string{
		"clusters.cluster.x-k8s.io":                                  "v1beta2",
		"clusterclasses.cluster.x-k8s.io":                            "v1beta2",
		"machinedeployments.cluster.x-k8s.io":                        "v1beta2",
		"machines.cluster.x-k8s.io":                                  "v1beta2",
		"clusterresourcesets.addons.cluster.x-k8s.io":                "v1beta2",
		"kubeadmcontrolplanes.controlplane.cluster.x-k8s.io":         "v1beta2",
		"kubeadmcontrolplanetemplates.controlplane.cluster.x-k8s.io": "v1beta2",
		"kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io":          "v1beta2",
		"openstackclusters.infrastructure.cluster.x-k8s.io":          "v1beta1",
		"openstackclustertemplates.infrastructure.cluster.x-k8s.io":  "v1beta1",
		"openstackmachinetemplates.infrastructure.cluster.x-k8s.io":  "v1beta1",
		"openstackmachines.infrastructure.cluster.x-k8s.io":          "v1beta1",
	}
	c, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = apiextensionsv1.AddToScheme(c.Scheme())
	for name, version := range want {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := c.Get(context.Background(), client.ObjectKey{Name: name}, &crd); err != nil {
			t.Errorf("CRD %s: %v", name, err)
			continue
		}
		served := false
		for _, v := range crd.Spec.Versions {
			if v.Name == version && v.Served {
				served = true
			}
		}
		if !served {
			t.Errorf("CRD %s does not serve %s", name, version)
		}
	}
}
