// Package kube holds what every part of keel that talks to a management
// cluster shares: the scheme of the Cluster API types keel reads and writes,
// and the namespace its objects live in.
package kube

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	infrav1alpha1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1alpha1"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// Namespace is where keel keeps every Cluster API object it renders, as the
// reference driver does.
const Namespace = "magnum-system"

// FieldManager is the server-side apply field manager of everything keel
// applies. Fields keel does not render stay owned by others.
const FieldManager = "keel"

// NewScheme returns a scheme with the core Kubernetes types and the Cluster
// API v1beta2 types (core, kubeadm bootstrap and control plane, addons) and
// the CAPO v1beta1 types.
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(clusterv1.AddToScheme(s))
	utilruntime.Must(controlplanev1.AddToScheme(s))
	utilruntime.Must(bootstrapv1.AddToScheme(s))
	utilruntime.Must(addonsv1.AddToScheme(s))
	utilruntime.Must(infrav1.AddToScheme(s))
	// OpenStackServer: where CAPO puts Nova's words for a server it
	// could not create (the observer reads it).
	utilruntime.Must(infrav1alpha1.AddToScheme(s))
	return s
}
