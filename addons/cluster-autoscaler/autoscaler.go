// Package clusterautoscaler renders the cluster-autoscaler of a cluster
// whose nodegroups autoscale (auto_scaling_enabled). Unlike the other
// addons it runs in the management cluster, as the reference driver runs
// it: one Deployment per cluster, beside the cluster's Cluster API objects,
// with Cluster API's provider (--cloud-provider=clusterapi). It reads the
// workload cluster (Nodes, Pods) through the kubeconfig Secret Cluster API
// writes (<stack_id>-kubeconfig, key value), and scales the cluster's
// MachineDeployments in the management cluster through its own
// ServiceAccount (in-cluster config), which a Role of the namespace admits.
//
// The manifests are keel's own, written from the autoscaler's documented
// flags and RBAC (k8s.io/autoscaler, cluster-autoscaler/cloudprovider/
// clusterapi/README.md and the cluster-autoscaler chart's kubeconfig-incluster
// mode, which the reference installs): no module the Go proxy serves
// carries them, and the chart would be rendered for four objects. See
// addons/README.md.
package clusterautoscaler

import (
	"fmt"
	"strconv"

	"golang.org/x/mod/semver"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/addons"
)

// Name is the addon's name (and the reference chart's).
const Name = "cluster-autoscaler"

// Image is the upstream image; the tag is Tag's.
const Image = "registry.k8s.io/autoscaling/cluster-autoscaler"

// appName is the reference chart's app.kubernetes.io/name for the clusterapi
// provider (<cloudProvider>-<chart>): with the release's instance label it
// is the Deployment's selector, which cannot change, so that a Deployment
// the reference installed is updated in place.
const appName = "clusterapi-" + Name

// Where the workload cluster's kubeconfig is mounted (the chart's
// clusterAPIWorkloadKubeconfigPath), from the key value of the Secret.
const (
	kubeconfigDir  = "/etc/kubernetes"
	KubeconfigPath = kubeconfigDir + "/value"
	kubeconfigKey  = "value"
)

// healthPort serves /health-check (and metrics), the chart's port.
const healthPort = 8085

// enforceMinSizeSince is the first autoscaler release with
// --enforce-node-group-min-size (the reference passes it to every release,
// so its clusters on 1.22 to 1.25 got an autoscaler that refuses to start).
const enforceMinSizeSince = "v1.26"

// tagByMinor is the reference driver's autoscaler release per Kubernetes
// minor (reference-driver-map.md §4.3); other minors get v<major>.<minor>.0.
var tagByMinor = map[string]string{
	"v1.22": "v1.22.3", "v1.23": "v1.23.1", "v1.24": "v1.24.3", "v1.25": "v1.25.3",
	"v1.26": "v1.26.8", "v1.27": "v1.27.8", "v1.28": "v1.28.7", "v1.29": "v1.29.5",
	"v1.30": "v1.30.7", "v1.31": "v1.31.5", "v1.32": "v1.32.7", "v1.33": "v1.33.5",
	"v1.34": "v1.34.4", "v1.35": "v1.35.1", "v1.36": "v1.36.0",
}

// Tag is the autoscaler image tag of a cluster: the autoscaler_tag label
// when set, else the reference's release for kube_tag's minor (the
// autoscaler follows the Kubernetes minor it schedules for).
func Tag(label, kubeTag string) string {
	if label != "" {
		return label
	}
	mm := addons.KubeMinor(kubeTag)
	if t, ok := tagByMinor[mm]; ok {
		return t
	}
	if mm == "" {
		return ""
	}
	return mm + ".0"
}

// Params are a cluster's autoscaler settings.
type Params struct {
	// StackID is the CAPI Cluster's name: the autoscaler's objects are
	// <stack_id>-autoscaler, it discovers the MachineDeployments of this
	// Cluster only and reads <stack_id>-kubeconfig.
	StackID string
	// Namespace is the management cluster's namespace of the Cluster.
	Namespace string
	Tag       string // Tag's
	Prefix    string // container_infra_prefix

	// The scale_down_* labels, as the autoscaler's flags spell them.
	ScaleDownEnabled              bool
	ScaleDownUnneededTime         string
	ScaleDownDelayAfterAdd        string
	ScaleDownUtilizationThreshold string
}

// FullName names the Deployment, ServiceAccount, Role and RoleBinding of a
// cluster (the reference's fullnameOverride).
func FullName(stackID string) string { return stackID + "-autoscaler" }

// KubeconfigSecret is the Secret Cluster API writes with the workload
// cluster's admin kubeconfig.
func KubeconfigSecret(stackID string) string { return stackID + "-kubeconfig" }

// Args are the autoscaler's command line for p.
func Args(p Params) []string {
	args := []string{
		"--cloud-provider=clusterapi",
		// Only this cluster's node groups, and only this namespace: the
		// autoscaler then lists and watches the namespace (not the whole
		// management cluster), which a Role admits.
		"--node-group-auto-discovery=clusterapi:namespace=" + p.Namespace + ",clusterName=" + p.StackID,
		// Workload cluster from the kubeconfig; management cluster from
		// the pod's ServiceAccount (an empty --cloud-config would
		// otherwise fall back to the kubeconfig, i.e. the workload).
		"--kubeconfig=" + KubeconfigPath,
		"--clusterapi-cloud-config-authoritative",
		// Its status ConfigMap and leader lease, in the workload cluster.
		"--namespace=kube-system",
		"--scale-down-enabled=" + strconv.FormatBool(p.ScaleDownEnabled),
		"--scale-down-unneeded-time=" + p.ScaleDownUnneededTime,
		"--scale-down-delay-after-add=" + p.ScaleDownDelayAfterAdd,
		"--scale-down-utilization-threshold=" + p.ScaleDownUtilizationThreshold,
		"--v=4",
	}
	if v := p.Tag; semver.IsValid(v) && semver.Compare(semver.MajorMinor(v), enforceMinSizeSince) >= 0 {
		// Bring a nodegroup below its minimum (as created, or after a
		// min_node_count raise) up to it, as the reference asks.
		args = append(args, "--enforce-node-group-min-size=true")
	}
	return args
}

// Manifests renders the autoscaler of one cluster, in the order of
// application: ServiceAccount, Role, RoleBinding, Deployment.
func Manifests(p Params) ([]client.Object, error) {
	switch {
	case p.StackID == "":
		return nil, fmt.Errorf("%s: no cluster name", Name)
	case p.Namespace == "":
		return nil, fmt.Errorf("%s: no namespace", Name)
	case p.Tag == "":
		return nil, fmt.Errorf("%s: no image tag (autoscaler_tag, or a kube_tag to derive it from)", Name)
	}
	for flag, v := range map[string]string{
		"scale_down_unneeded_time":         p.ScaleDownUnneededTime,
		"scale_down_delay_after_add":       p.ScaleDownDelayAfterAdd,
		"scale_down_utilization_threshold": p.ScaleDownUtilizationThreshold,
	} {
		if v == "" {
			return nil, fmt.Errorf("%s: %s is empty", Name, flag)
		}
	}
	name := FullName(p.StackID)
	selector := map[string]string{"app.kubernetes.io/instance": p.StackID, "app.kubernetes.io/name": appName}
	meta := metav1.ObjectMeta{Name: name, Namespace: p.Namespace, Labels: selector}
	rbac := "rbac.authorization.k8s.io"
	return []client.Object{
		&corev1.ServiceAccount{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: *meta.DeepCopy(),
		},
		&rbacv1.Role{
			TypeMeta:   metav1.TypeMeta{APIVersion: rbac + "/v1", Kind: "Role"},
			ObjectMeta: *meta.DeepCopy(),
			Rules:      Rules(),
		},
		&rbacv1.RoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: rbac + "/v1", Kind: "RoleBinding"},
			ObjectMeta: *meta.DeepCopy(),
			RoleRef:    rbacv1.RoleRef{APIGroup: rbac, Kind: "Role", Name: name},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: p.Namespace}},
		},
		deployment(p, *meta.DeepCopy(), selector),
	}, nil
}

// Rules are what the autoscaler does in the management cluster's
// namespace (the chart's namespaced clusterapi rules): watch the Cluster
// API scalable resources and their Machines, mark a Machine for deletion
// (update) and resize through the scale subresource; read the
// infrastructure machine templates, which it reads to scale a group from
// zero when the capacity annotations do not say enough. Discovery, which
// it uses to find Cluster API's version, is open to every authenticated
// client. Namespace-wide, not per cluster: the names of a cluster's
// MachineDeployments are chosen by the topology controller, so a rule
// cannot list them; --node-group-auto-discovery keeps it to its cluster.
func Rules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{
			APIGroups: []string{"cluster.x-k8s.io"},
			Resources: []string{"machinedeployments", "machinepools", "machines", "machinesets"},
			Verbs:     []string{"get", "list", "update", "watch"},
		},
		{
			APIGroups: []string{"cluster.x-k8s.io"},
			Resources: []string{"machinedeployments/scale", "machinepools/scale"},
			Verbs:     []string{"get", "patch", "update"},
		},
		{
			APIGroups: []string{"infrastructure.cluster.x-k8s.io"},
			Resources: []string{"openstackmachinetemplates"},
			Verbs:     []string{"get", "list", "watch"},
		},
	}
}

func deployment(p Params, meta metav1.ObjectMeta, selector map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: meta,
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: selector},
				Spec: corev1.PodSpec{
					ServiceAccountName: meta.Name,
					Containers: []corev1.Container{{
						Name:    Name,
						Image:   addons.MirrorImage(p.Prefix, Image) + ":" + p.Tag,
						Command: []string{"./cluster-autoscaler"},
						Args:    Args(p),
						Ports:   []corev1.ContainerPort{{Name: "http", ContainerPort: healthPort, Protocol: corev1.ProtocolTCP}},
						LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
							Path: "/health-check", Port: intstr.FromInt32(healthPort),
						}}},
						VolumeMounts: []corev1.VolumeMount{{Name: "kubeconfig", MountPath: kubeconfigDir, ReadOnly: true}},
						// Nothing it needs is privileged: the restricted
						// Pod Security profile, as a non-root user (the
						// image's nonroot user; older images run as root
						// by default but need no root).
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							ReadOnlyRootFilesystem:   ptr.To(true),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						RunAsUser:      ptr.To[int64](65532),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					// The Secret appears once the workload's control plane
					// is up; until then the pod waits (the reference
					// installed the autoscaler only then).
					Volumes: []corev1.Volume{{Name: "kubeconfig", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
						SecretName: KubeconfigSecret(p.StackID),
						Items:      []corev1.KeyToPath{{Key: kubeconfigKey, Path: kubeconfigKey}},
					}}}},
				},
			},
		},
	}
}
