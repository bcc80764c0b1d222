// Package keystoneauth renders k8s-keystone-auth for a workload cluster
// (keystone_auth_enabled): the webhook that kube-apiserver asks to
// authenticate OpenStack tokens and to authorize their requests against a
// policy, running on every control-plane node where the apiserver's
// webhook kubeconfig (clusterclass.WebhookConfigPath) points, on the
// node's loopback.
//
// The manifests are keel's own, written from k8s-keystone-auth's
// documented flags and resources (k8s.io/cloud-provider-openstack,
// docs/keystone-auth, examples/webhook) in the reference driver's shape:
// see addons/README.md for why no upstream file is carried.
//
// What is per cluster but not per label (the cloud's Keystone URL and
// private CA) is in a Secret (Secret) that the DaemonSet reads through its
// environment, so that the manifests (Manifests) depend on the labels and
// the cluster's project only.
package keystoneauth

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/addons"
)

// Name is the addon's name, the name of its DaemonSet and the data key of
// its payload.
const Name = "k8s-keystone-auth"

// Namespace is where it runs: k8s-keystone-auth reads its policy and sync
// ConfigMaps from kube-system only.
const Namespace = "kube-system"

// Image is the upstream image; the tag is k8s_keystone_auth_tag.
const Image = "registry.k8s.io/provider-os/k8s-keystone-auth"

// Where kube-apiserver calls the webhook: the ClusterClass's webhook
// kubeconfig names https://<ListenAddress><WebhookPath> (a compiler test
// ties the two). Loopback on the host network: only the apiserver of the
// same node reaches it.
const (
	ListenAddress = "127.0.0.1:8443"
	WebhookPath   = "/webhook" // served by k8s-keystone-auth
	port          = 8443
)

// The serving certificate: kubeadm's apiserver certificate and key on the
// node. The webhook kubeconfig skips verification (insecure-skip-tls-verify,
// as the reference's), so any key pair serves; this one exists on every
// control-plane node before the kubelet starts a pod.
const (
	TLSCertFile = "/etc/kubernetes/pki/apiserver.crt"
	TLSKeyFile  = "/etc/kubernetes/pki/apiserver.key"
)

// Objects' names, the reference chart's (release k8s-keystone-auth), so
// that applying to a cluster the reference created patches its objects in
// place: a DaemonSet's selector cannot change, and the ClusterRole's rules
// and binding's subjects are replaced rather than left beside new ones.
const (
	PolicyConfigMap = Name + "-policy"
	SyncConfigMap   = Name + "-sync"
	clusterRole     = "system:" + Name
	// SecretName is keel's: the reference's is k8s-keystone-auth-ca and
	// holds the CA only.
	SecretName = Name + "-cloud"
)

// Keys of the Secret, and where it is mounted.
const (
	SecretKeystoneURL = "keystone-url"
	SecretCAFile      = "keystone-ca-file" // only with a private CA: the path of CA
	SecretCA          = "ca.crt"
	secretDir         = "/etc/kubernetes/keystone-auth"
)

// selector is the reference chart's selector (immutable on a DaemonSet).
var selector = map[string]string{
	"app.kubernetes.io/name":     Name,
	"app.kubernetes.io/instance": Name,
}

// syncConfig is the reference's: it maps nothing and syncs no data (no
// data-types-to-sync), so k8s-keystone-auth creates no namespaces or role
// bindings and needs no RBAC beyond reading ConfigMaps.
const syncConfig = "role-mappings:\n  - keystone-role: member\n    groups: []\n"

// Params are a cluster's k8s-keystone-auth settings.
type Params struct {
	Tag       string // k8s_keystone_auth_tag
	Prefix    string // container_infra_prefix
	ProjectID string // the cluster's project, which the default policy names
}

// Policy is one rule of k8s-keystone-auth's policy (its version 1 format,
// the reference's).
type Policy struct {
	Resource PolicyResource `json:"resource"`
	Match    []PolicyMatch  `json:"match"`
}

// PolicyResource is what a rule allows.
type PolicyResource struct {
	Verbs     []string `json:"verbs"`
	Resources []string `json:"resources"`
	Version   string   `json:"version"`
	Namespace string   `json:"namespace"`
}

// PolicyMatch is whom a rule applies to.
type PolicyMatch struct {
	Type   string   `json:"type"`
	Values []string `json:"values"`
}

// DefaultPolicy is the reference's built-in policy: Keystone users with
// the role member in the cluster's project may list pods, services,
// deployments and "pvc" (sic: no resource is called that, so persistent
// volume claims are not listed; kept as the reference has it) in the
// default namespace. Anything else is left to RBAC: kube-apiserver's
// authorization-mode is Node,Webhook,RBAC.
func DefaultPolicy(projectID string) []Policy {
	return []Policy{{
		Resource: PolicyResource{
			Verbs: []string{"list"}, Resources: []string{"pods", "services", "deployments", "pvc"},
			Version: "*", Namespace: "default",
		},
		Match: []PolicyMatch{{Type: "role", Values: []string{"member"}}, {Type: "project", Values: []string{projectID}}},
	}}
}

// Manifests renders k8s-keystone-auth for p, in the order of application:
// its ServiceAccount, ClusterRole and binding, the policy and sync
// ConfigMaps (k8s-keystone-auth refuses to start without the policy), the
// DaemonSet.
func Manifests(p Params) ([]*unstructured.Unstructured, error) {
	if p.Tag == "" {
		return nil, fmt.Errorf("%s: no image tag (k8s_keystone_auth_tag)", Name)
	}
	if p.ProjectID == "" {
		return nil, fmt.Errorf("%s: the cluster has no project for the default policy", Name)
	}
	policy, err := json.MarshalIndent(DefaultPolicy(p.ProjectID), "", "  ")
	if err != nil {
		return nil, err
	}
	meta := func(name string, namespaced bool) metav1.ObjectMeta {
		m := metav1.ObjectMeta{Name: name, Labels: maps.Clone(selector)}
		if namespaced {
			m.Namespace = Namespace
		}
		return m
	}
	objs := []runtime.Object{
		&corev1.ServiceAccount{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: meta(Name, true),
		},
		// What it reads: the two ConfigMaps, through a cluster-wide
		// informer (upstream's examples/webhook/keystone-rbac.yaml). The
		// reference also grants pods and services, which it never reads.
		&rbacv1.ClusterRole{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: meta(clusterRole, false),
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}},
		},
		&rbacv1.ClusterRoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
			ObjectMeta: meta(clusterRole, false),
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: clusterRole},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: Name, Namespace: Namespace}},
		},
		&corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: meta(PolicyConfigMap, true),
			Data:       map[string]string{"policies": string(policy) + "\n"},
		},
		&corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: meta(SyncConfigMap, true),
			Data:       map[string]string{"syncConfig": syncConfig},
		},
		daemonSet(p, meta(Name, true)),
	}
	out := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		if out[i], err = toUnstructured(o); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Payload is Manifests as one YAML stream (the data of the payload
// ConfigMap), rendered once per tag, prefix and project.
func Payload(p Params) (string, error) { return payloads.Get(p, Manifests) }

// A cloud has a handful of tags and prefixes but many projects; the bound
// keeps memory flat (a payload is a few KiB).
var payloads = addons.NewPayloadCache[Params](1024)

func daemonSet(p Params, meta metav1.ObjectMeta) *appsv1.DaemonSet {
	fromSecret := func(env, key string, optional bool) corev1.EnvVar {
		ref := &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: SecretName}, Key: key}
		if optional {
			ref.Optional = ptr.To(true)
		}
		return corev1.EnvVar{Name: env, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: ref}}
	}
	hostFile := func(name, path string) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
			Path: path, Type: ptr.To(corev1.HostPathFile),
		}}}
	}
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: meta,
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(selector)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(selector)},
				Spec: corev1.PodSpec{
					ServiceAccountName: Name,
					// kube-apiserver calls it on the node's loopback; the
					// node's resolver finds Keystone even before CoreDNS runs.
					HostNetwork: true,
					DNSPolicy:   corev1.DNSDefault,
					Containers: []corev1.Container{{
						Name:    Name,
						Image:   addons.MirrorImage(p.Prefix, Image) + ":" + p.Tag,
						Command: []string{"/bin/k8s-keystone-auth"},
						Args: []string{
							"--listen", ListenAddress,
							"--tls-cert-file", TLSCertFile,
							"--tls-private-key-file", TLSKeyFile,
							"--policy-configmap-name", PolicyConfigMap,
							"--sync-configmap-name", SyncConfigMap,
						},
						// k8s-keystone-auth reads --keystone-url and
						// --keystone-ca-file from these when the flags are
						// absent. KEYSTONE_CA_FILE is set only when the
						// Secret names a CA (a cloud with a private CA): an
						// empty CA file is an error, no file means the
						// system's roots.
						Env: []corev1.EnvVar{
							fromSecret("OS_AUTH_URL", SecretKeystoneURL, false),
							fromSecret("KEYSTONE_CA_FILE", SecretCAFile, true),
						},
						Ports: []corev1.ContainerPort{{Name: "https", ContainerPort: port, HostPort: port, Protocol: corev1.ProtocolTCP}},
						VolumeMounts: []corev1.VolumeMount{
							{Name: "apiserver-crt", MountPath: TLSCertFile, ReadOnly: true},
							{Name: "apiserver-key", MountPath: TLSKeyFile, ReadOnly: true},
							{Name: "cloud", MountPath: secretDir, ReadOnly: true},
						},
					}},
					// Only the serving key pair, not the reference's whole
					// /etc/kubernetes/pki with the cluster's CA keys.
					Volumes: []corev1.Volume{
						hostFile("apiserver-crt", TLSCertFile),
						hostFile("apiserver-key", TLSKeyFile),
						{Name: "cloud", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
							SecretName: SecretName, DefaultMode: ptr.To[int32](0o444),
						}}},
					},
					// Every control-plane node, whatever its taints (the
					// reference's tolerations): an apiserver without its
					// webhook cannot authenticate Keystone users.
					Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
						RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
							{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.NodeSelectorOpExists}}},
							{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "node-role.kubernetes.io/master", Operator: corev1.NodeSelectorOpExists}}},
						}},
					}},
					Tolerations: []corev1.Toleration{
						{Effect: corev1.TaintEffectNoSchedule, Operator: corev1.TolerationOpExists},
						{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists},
						{Effect: corev1.TaintEffectNoExecute, Operator: corev1.TolerationOpExists},
					},
				},
			},
		},
	}
}

// Cloud is where k8s-keystone-auth finds Keystone: the cluster's cloud.
type Cloud struct {
	AuthURL string // the identity endpoint
	CACert  string // PEM; empty means the system's roots
}

// KeystoneURL is the identity endpoint with the /v3 the reference ensures.
func KeystoneURL(authURL string) string {
	u := strings.TrimRight(authURL, "/")
	if strings.HasSuffix(u, "/v3") {
		return u
	}
	return u + "/v3"
}

// Secret is kube-system/k8s-keystone-auth-cloud: the Keystone URL and,
// with a private CA, the CA and the path the DaemonSet finds it at. It is
// delivered in the payload Secret (encrypted in Git), with the cloud's
// other configuration.
//
// keel without Keystone (noauth) has no URL to give: the key is left out,
// so the pods wait with an event naming it, and kube-apiserver, whose
// webhook does not answer, authenticates and authorizes as without it.
func Secret(c Cloud) (*unstructured.Unstructured, error) {
	data := map[string][]byte{}
	if c.AuthURL != "" {
		data[SecretKeystoneURL] = []byte(KeystoneURL(c.AuthURL))
	}
	if c.CACert != "" {
		data[SecretCA] = []byte(c.CACert)
		data[SecretCAFile] = []byte(secretDir + "/" + SecretCA)
	}
	return toUnstructured(&corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: SecretName, Namespace: Namespace, Labels: maps.Clone(selector)},
		Type:       corev1.SecretTypeOpaque,
		Data:       data,
	})
}

// toUnstructured converts a typed object without the fields the API
// server owns (creationTimestamp, status), which a merge patch would
// otherwise send.
func toUnstructured(o runtime.Object) (*unstructured.Unstructured, error) {
	b, err := yaml.Marshal(o)
	if err != nil {
		return nil, err
	}
	objs, err := addons.Decode(string(b)) // drops the null timestamps
	if err != nil {
		return nil, err
	}
	delete(objs[0].Object, "status")
	return objs[0], nil
}
