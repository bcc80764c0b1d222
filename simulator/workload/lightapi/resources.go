package lightapi

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// resource describes one servable resource: a built-in or a CRD's.
type resource struct {
	group, version, name, singular, kind string
	namespaced, hasStatus, custom        bool
	shortNames                           []string
	// versions other than version served from the same storage (CRDs);
	// objects are converted only by rewriting apiVersion (strategy None).
	versions []string
}

func (r *resource) gr() string { return r.group + "/" + r.name }

func (r *resource) apiVersion(v string) string {
	if r.group == "" {
		return v
	}
	return r.group + "/" + v
}

// typed returns the client-go struct of a built-in kind, which strategic
// merge patches need for their merge keys.
func (r *resource) typed() (runtime.Object, bool) {
	if r.custom {
		return nil, false
	}
	o, err := builtinScheme.New(schema.GroupVersionKind{Group: r.group, Version: r.version, Kind: r.kind})
	return o, err == nil
}

// builtinScheme knows the built-in kinds' structs: client-go's and
// apiextensions'.
var builtinScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(scheme.AddToScheme(s))
	utilruntime.Must(apiextensionsv1.AddToScheme(s))
	return s
}()

// codecs decodes the protobuf bodies clients send for built-in kinds.
var codecs = serializer.NewCodecFactory(builtinScheme)

// builtin lists the resources every workload cluster serves. Kinds come
// from client-go's scheme (checked by a test); scope, status and short
// names are not in the scheme, hence the table.
var builtin = []*resource{
	b("", "namespaces", "Namespace", false, true, "ns"),
	b("", "nodes", "Node", false, true, "no"),
	b("", "pods", "Pod", true, true, "po"),
	b("", "services", "Service", true, true, "svc"),
	b("", "endpoints", "Endpoints", true, false, "ep"),
	b("", "configmaps", "ConfigMap", true, false, "cm"),
	b("", "secrets", "Secret", true, false),
	b("", "serviceaccounts", "ServiceAccount", true, false, "sa"),
	b("", "events", "Event", true, false, "ev"),
	b("", "persistentvolumes", "PersistentVolume", false, true, "pv"),
	b("", "persistentvolumeclaims", "PersistentVolumeClaim", true, true, "pvc"),
	b("apps/v1", "deployments", "Deployment", true, true, "deploy"),
	b("apps/v1", "daemonsets", "DaemonSet", true, true, "ds"),
	b("apps/v1", "statefulsets", "StatefulSet", true, true, "sts"),
	b("apps/v1", "replicasets", "ReplicaSet", true, true, "rs"),
	b("rbac.authorization.k8s.io/v1", "roles", "Role", true, false),
	b("rbac.authorization.k8s.io/v1", "rolebindings", "RoleBinding", true, false),
	b("rbac.authorization.k8s.io/v1", "clusterroles", "ClusterRole", false, false),
	b("rbac.authorization.k8s.io/v1", "clusterrolebindings", "ClusterRoleBinding", false, false),
	b("storage.k8s.io/v1", "storageclasses", "StorageClass", false, false, "sc"),
	b("storage.k8s.io/v1", "csidrivers", "CSIDriver", false, false),
	b("storage.k8s.io/v1", "volumeattachments", "VolumeAttachment", false, true),
	b("apiextensions.k8s.io/v1", "customresourcedefinitions", "CustomResourceDefinition", false, true, "crd", "crds"),
	b("policy/v1", "poddisruptionbudgets", "PodDisruptionBudget", true, true, "pdb"),
	b("scheduling.k8s.io/v1", "priorityclasses", "PriorityClass", false, false, "pc"),
	b("coordination.k8s.io/v1", "leases", "Lease", true, false),
	b("admissionregistration.k8s.io/v1", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration", false, false),
	b("admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", false, false),
	b("networking.k8s.io/v1", "networkpolicies", "NetworkPolicy", true, false, "netpol"),
	b("batch/v1", "jobs", "Job", true, true),
}

func b(gv, name, kind string, namespaced, status bool, short ...string) *resource {
	g, v, ok := strings.Cut(gv, "/")
	if !ok {
		g, v = "", "v1"
	}
	return &resource{group: g, version: v, name: name, kind: kind, singular: strings.ToLower(kind),
		namespaced: namespaced, hasStatus: status, shortNames: short}
}

var builtinByGR = func() map[string]*resource {
	m := map[string]*resource{}
	for _, r := range builtin {
		m[r.gr()] = r
	}
	return m
}()

// serves reports whether r is served at version v.
func (r *resource) serves(v string) bool {
	if v == r.version {
		return true
	}
	for _, x := range r.versions {
		if x == v {
			return true
		}
	}
	return false
}
