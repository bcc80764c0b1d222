package capo

import (
	"context"
	"os"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/mgmtcluster"
)

// The real CAPO runs against keel's management cluster as clusterctl
// would install it: ORC's CRDs are there (CAPO watches ORC Images) and
// CAPO's own validating webhook, served by the CAPO process on loopback,
// answers the apiserver: it refuses a change to an OpenStackMachineTemplate's
// spec, which only CAPO's webhook forbids (the CRD schema allows it).
func TestCAPOWebhookRefusesTemplateChange(t *testing.T) {
	ctx := context.Background()
	env, err := mgmtcluster.Start(ctx, mgmtcluster.Options{Progress: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	p, err := Start(ctx, Options{Config: env.Config, KubeConfig: env.KubeConfig, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Error(err)
		}
	})

	// Metadata only: keel's scheme has no apiextensions types.
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	if err := env.Client.Get(ctx, client.ObjectKey{Name: "images.openstack.k-orc.cloud"}, crd); err != nil {
		t.Fatalf("ORC's Image CRD: %v", err)
	}
	tmpl := &infrav1.OpenStackMachineTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: kube.Namespace, Name: "webhook-check"},
		Spec: infrav1.OpenStackMachineTemplateSpec{Template: infrav1.OpenStackMachineTemplateResource{Spec: infrav1.OpenStackMachineSpec{
			Flavor: ptr.To("m1.small"), Image: infrav1.ImageParam{Filter: &infrav1.ImageFilter{Name: ptr.To("ubuntu-2204-kube")}},
		}}},
	}
	if err := env.Client.Create(ctx, tmpl); err != nil {
		t.Fatalf("a valid template: %v", err)
	}
	tmpl.Spec.Template.Spec.Flavor = ptr.To("m1.large")
	err = env.Client.Update(ctx, tmpl)
	if err == nil || !strings.Contains(err.Error(), "immutable") {
		t.Fatalf("changing the template's flavor: %v, want CAPO's webhook to refuse it as immutable", err)
	}
}
