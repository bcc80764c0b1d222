// Package desired computes what Cluster API makes of a keel Cluster: the
// KubeadmControlPlane, MachineDeployments, OpenStackCluster and machine and
// bootstrap templates that the topology controller would create, using
// Cluster API's own code (sigs.k8s.io/cluster-api/exp/topology/desiredstate
// and its inline patch engine) rather than a re-implementation, so that what
// the feature tests and `keel plan` assert is what Cluster API will do.
//
// Variables are defaulted and validated with Cluster API's Cluster webhook
// functions first, as they are before the topology controller ever sees a
// Cluster. Everything runs in memory: the only "API server" is a fake client
// holding the contract metadata of the CRDs the generator looks up.
package desired

import (
	"context"
	"fmt"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/core/webhooks/admission"
	"sigs.k8s.io/cluster-api/exp/topology/desiredstate"
	"sigs.k8s.io/cluster-api/exp/topology/scope"
	"sigs.k8s.io/cluster-api/feature"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/cluster-api/util/contract"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// enableTopology turns on Cluster API's ClusterTopology feature gate, which
// its ClusterClass webhook requires. keel runs no Cluster API controller in
// process, so flipping the process-wide gate affects nothing else.
var enableTopology = sync.OnceValue(func() error {
	return feature.MutableGates.Set(string(feature.ClusterTopology) + "=true")
})

// Class is a ClusterClass with its templates, ready to compute desired states.
type Class struct {
	ClusterClass *clusterv1.ClusterClass
	templates    map[templateKey]*unstructured.Unstructured
	client       client.Client
}

type templateKey struct{ apiVersion, kind, name string }

// NewClass reads a ClusterClass and its templates (any mix of typed and
// unstructured objects, as clusterclass.Objects returns or as parsed from the
// rendered YAML). The ClusterClass status is filled in as Cluster API's
// ClusterClass controller would (inline variables, VariablesReady), because
// both the webhooks and the patch engine read variable definitions from it.
func NewClass(objs []client.Object) (*Class, error) {
	if err := enableTopology(); err != nil {
		return nil, err
	}
	c := &Class{templates: map[templateKey]*unstructured.Unstructured{}}
	for _, o := range objs {
		u, err := toUnstructured(o)
		if err != nil {
			return nil, err
		}
		if u.GetKind() == "ClusterClass" {
			cc := &clusterv1.ClusterClass{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, cc); err != nil {
				return nil, fmt.Errorf("ClusterClass %s: %w", u.GetName(), err)
			}
			c.ClusterClass = cc
			continue
		}
		c.templates[templateKey{u.GetAPIVersion(), u.GetKind(), u.GetName()}] = u
	}
	if c.ClusterClass == nil {
		return nil, fmt.Errorf("no ClusterClass among %d objects", len(objs))
	}
	reconcileStatus(c.ClusterClass)
	cl, err := newClient(c.ClusterClass)
	if err != nil {
		return nil, err
	}
	c.client = cl
	return c, nil
}

// reconcileStatus does what the ClusterClass controller does for inline
// variables (core/reconcilers/clusterclass reconcileVariables).
func reconcileStatus(cc *clusterv1.ClusterClass) {
	cc.Generation = 1
	cc.Status.ObservedGeneration = 1
	cc.Status.Variables = nil
	for _, v := range cc.Spec.Variables {
		conflict := false
		cc.Status.Variables = append(cc.Status.Variables, clusterv1.ClusterClassStatusVariable{
			Name:                v.Name,
			DefinitionsConflict: &conflict,
			Definitions: []clusterv1.ClusterClassStatusVariableDefinition{{
				From:                      clusterv1.VariableDefinitionFromInline,
				Required:                  v.Required,
				DeprecatedV1Beta1Metadata: v.DeprecatedV1Beta1Metadata,
				Schema:                    v.Schema,
			}},
		})
	}
	conditions.Set(cc, metav1.Condition{
		Type:   clusterv1.ClusterClassVariablesReadyCondition,
		Status: metav1.ConditionTrue,
		Reason: clusterv1.ClusterClassVariablesReadyReason,
	})
}

// Scheme knows the types the generator and the webhooks read.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme,
		clusterv1.AddToScheme, bootstrapv1.AddToScheme, controlplanev1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}

// contractCRDs are the CRDs whose Cluster API contract labels the generator
// reads (it resolves the contract version of the control plane provider).
var contractCRDs = []schema.GroupVersionKind{
	controlplanev1.GroupVersion.WithKind("KubeadmControlPlane"),
	controlplanev1.GroupVersion.WithKind("KubeadmControlPlaneTemplate"),
	bootstrapv1.GroupVersion.WithKind("KubeadmConfig"),
	bootstrapv1.GroupVersion.WithKind("KubeadmConfigTemplate"),
	{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta1", Kind: "OpenStackCluster"},
	{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta1", Kind: "OpenStackClusterTemplate"},
	{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta1", Kind: "OpenStackMachine"},
	{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta1", Kind: "OpenStackMachineTemplate"},
}

func newClient(cc *clusterv1.ClusterClass) (client.Client, error) {
	objs := []client.Object{cc.DeepCopy()}
	for _, gvk := range contractCRDs {
		crd := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{
				Name: contract.CalculateCRDName(gvk.Group, gvk.Kind),
				// CAPO v0.14 implements the v1beta1 contract; kubeadm the v1beta2 one.
				Labels: map[string]string{clusterv1.GroupVersion.Group + "/" + contractOf(gvk): gvk.Version},
			},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: gvk.Group, Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: gvk.Kind}},
		}
		objs = append(objs, crd)
	}
	return fake.NewClientBuilder().WithScheme(Scheme()).WithObjects(objs...).
		WithStatusSubresource(&clusterv1.ClusterClass{}).Build(), nil
}

func contractOf(gvk schema.GroupVersionKind) string {
	if gvk.Version == "v1beta1" {
		return "v1beta1"
	}
	return "v1beta2"
}

// ValidateClass runs Cluster API's ClusterClass admission validation
// (variables' schemas, patch selectors, JSON patch paths and enabledIf
// templates, health checks, naming).
func (c *Class) ValidateClass(ctx context.Context) error {
	_, err := (&admission.ClusterClass{Client: c.client}).ValidateCreate(ctx, c.ClusterClass.DeepCopy())
	return err
}

// DefaultAndValidate runs Cluster API's Cluster webhook on a copy of cluster:
// defaulting (variable defaults, version prefix) and validation (topology,
// variables against their schemas). It returns the defaulted copy.
func (c *Class) DefaultAndValidate(ctx context.Context, cluster *clusterv1.Cluster) (*clusterv1.Cluster, error) {
	cl := cluster.DeepCopy()
	wh := &admission.Cluster{Client: c.client}
	if err := wh.Default(ctx, cl); err != nil {
		return nil, err
	}
	if _, err := wh.ValidateCreate(ctx, cl); err != nil {
		return nil, err
	}
	return cl, nil
}

// State is the desired state Cluster API computes for a Cluster.
type State = scope.ClusterState

// Generate defaults and validates the Cluster's variables like Cluster API's
// webhook, then computes the desired state with Cluster API's generator: the
// objects the topology controller would create or update, patches applied.
func (c *Class) Generate(ctx context.Context, cluster *clusterv1.Cluster) (*State, error) {
	cl, err := c.DefaultAndValidate(ctx, cluster)
	if err != nil {
		return nil, err
	}
	if cl.Spec.Topology.ClassRef.Name != c.ClusterClass.Name {
		return nil, fmt.Errorf("cluster %s uses ClusterClass %s, not %s", cl.Name, cl.Spec.Topology.ClassRef.Name, c.ClusterClass.Name)
	}
	s := scope.New(cl)
	s.Blueprint, err = c.blueprint(cl)
	if err != nil {
		return nil, err
	}
	gen, err := desiredstate.NewGenerator(c.client, noClusterCache{}, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	return gen.Generate(ctx, s)
}

// noClusterCache satisfies the generator's ClusterCache argument; it is only
// used for MachinePools, which keel's ClusterClass does not define.
type noClusterCache struct{ clustercache.ClusterCache }

// blueprint mirrors the topology controller's getBlueprint.
func (c *Class) blueprint(cluster *clusterv1.Cluster) (*scope.ClusterBlueprint, error) {
	cc := c.ClusterClass
	get := func(r clusterv1.ClusterClassTemplateReference) (*unstructured.Unstructured, error) {
		t, ok := c.templates[templateKey{r.APIVersion, r.Kind, r.Name}]
		if !ok {
			return nil, fmt.Errorf("ClusterClass %s references %s %s (%s), which is not among its templates", cc.Name, r.Kind, r.Name, r.APIVersion)
		}
		return t.DeepCopy(), nil
	}
	bp := &scope.ClusterBlueprint{
		Topology:           cluster.Spec.Topology,
		ClusterClass:       cc.DeepCopy(),
		ControlPlane:       &scope.ControlPlaneBlueprint{HealthCheck: cc.Spec.ControlPlane.HealthCheck},
		MachineDeployments: map[string]*scope.MachineDeploymentBlueprint{},
		MachinePools:       map[string]*scope.MachinePoolBlueprint{},
	}
	var err error
	if bp.InfrastructureClusterTemplate, err = get(cc.Spec.Infrastructure.TemplateRef); err != nil {
		return nil, err
	}
	if bp.ControlPlane.Template, err = get(cc.Spec.ControlPlane.TemplateRef); err != nil {
		return nil, err
	}
	if cc.Spec.ControlPlane.MachineInfrastructure.TemplateRef.IsDefined() {
		if bp.ControlPlane.InfrastructureMachineTemplate, err = get(cc.Spec.ControlPlane.MachineInfrastructure.TemplateRef); err != nil {
			return nil, err
		}
	}
	for _, mdc := range cc.Spec.Workers.MachineDeployments {
		b := &scope.MachineDeploymentBlueprint{HealthCheck: mdc.HealthCheck}
		mdc.Metadata.DeepCopyInto(&b.Metadata)
		if b.InfrastructureMachineTemplate, err = get(mdc.Infrastructure.TemplateRef); err != nil {
			return nil, err
		}
		if b.BootstrapTemplate, err = get(mdc.Bootstrap.TemplateRef); err != nil {
			return nil, err
		}
		bp.MachineDeployments[mdc.Class] = b
	}
	return bp, nil
}

func toUnstructured(o client.Object) (*unstructured.Unstructured, error) {
	if u, ok := o.(*unstructured.Unstructured); ok {
		return u.DeepCopy(), nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, fmt.Errorf("converting %T: %w", o, err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}
