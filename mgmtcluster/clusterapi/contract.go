package clusterapi

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/contract"
)

// apiVersionFromContract returns the apiVersion Cluster API uses for a kind:
// the newest version its CRD lists under the newest contract label it
// carries (cluster.x-k8s.io/v1beta2: "v1beta1_v1beta2"). Cluster API's own
// function for this is internal to its module; conversion webhooks need it
// to turn v1beta2 references back into v1beta1 ones.
func apiVersionFromContract(ctx context.Context, c client.Reader, gk schema.GroupKind) (string, error) {
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	if err := c.Get(ctx, client.ObjectKey{Name: contract.CalculateCRDName(gk.Group, gk.Kind)}, crd); err != nil {
		return "", fmt.Errorf("apiVersion of %s: %w", gk, err)
	}
	// The contracts a v1.14 Cluster API accepts, newest first; versions sort
	// oldest first (v1alpha1 < v1beta1 < v1).
	for _, contractVersion := range []string{clusterv1.GroupVersion.Version, "v1beta1"} {
		versions := strings.Split(crd.GetLabels()[clusterv1.GroupVersion.Group+"/"+contractVersion], "_")
		versions = slices.DeleteFunc(versions, func(v string) bool { return v == "" })
		if len(versions) == 0 {
			continue
		}
		slices.SortFunc(versions, version.CompareKubeAwareVersionStrings)
		return schema.GroupVersion{Group: gk.Group, Version: versions[len(versions)-1]}.String(), nil
	}
	return "", fmt.Errorf("apiVersion of %s: its CRD has no Cluster API contract label", gk)
}
