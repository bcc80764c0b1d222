package capo

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/simulator/workload"
)

// machineReconciler plays CAPO's OpenStackMachine controller and the
// server's first boot: once the Machine's bootstrap data exists, the server
// is created (one step), then boots and runs kubeadm (one more step), which
// registers its Node in the workload cluster.
type machineReconciler struct {
	client client.Client
	o      Options
}

// annotationServerCreated records when the server was created, so that a
// restarted simulator keeps its timeline.
const annotationServerCreated = "simulator.keel.openkeel.io/server-created"

func (r *machineReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	osm := &infrav1.OpenStackMachine{}
	if err := r.client.Get(ctx, req.NamespacedName, osm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	clusterName := osm.Labels[clusterv1.ClusterNameLabel]
	key := osm.Namespace + "/" + clusterName
	if !osm.DeletionTimestamp.IsZero() {
		// Deleting the server takes a step; its kubelet and etcd member
		// stop with it.
		if wait := due(osm.DeletionTimestamp.Time, r.o.StepDelay); wait > 0 {
			return reconcile.Result{RequeueAfter: wait}, nil
		}
		if wc := r.o.Workloads.Cluster(key); wc != nil {
			if err := wc.Shutdown(ctx, osm.Name); err != nil {
				r.o.Logger.V(1).Info("server shutdown", "machine", osm.Name, "error", err.Error())
			}
		}
		if controllerutil.RemoveFinalizer(osm, finalizerMachine) {
			return reconcile.Result{}, client.IgnoreNotFound(r.client.Update(ctx, osm))
		}
		return reconcile.Result{}, nil
	}
	machine, cluster, err := r.owners(ctx, osm)
	if err != nil || machine == nil || cluster == nil {
		return reconcile.Result{RequeueAfter: r.o.StepDelay}, err
	}
	if ptr.Deref(cluster.Spec.Paused, false) {
		return reconcile.Result{}, nil
	}
	if controllerutil.AddFinalizer(osm, finalizerMachine) {
		if err := r.client.Update(ctx, osm); err != nil {
			return reconcile.Result{}, err
		}
	}
	if osm.Status.FailureReason != nil {
		return reconcile.Result{}, nil // a failed server stays failed, as in CAPO
	}
	// CAPO waits for the cluster's network and the bootstrap data, and
	// says so on the machine; the Machine and Cluster changes wake us
	// (owner watch below).
	if !ptr.Deref(cluster.Status.Initialization.InfrastructureProvisioned, false) {
		return reconcile.Result{}, r.waiting(ctx, osm, infrav1.WaitingForClusterInfrastructureReason)
	}
	if machine.Spec.Bootstrap.DataSecretName == nil {
		return reconcile.Result{}, r.waiting(ctx, osm, infrav1.WaitingForBootstrapDataReason)
	}
	created := osm.Annotations[annotationServerCreated]
	if created == "" {
		if msg := cluster.Annotations[AnnotationFailMachines]; msg != "" {
			return reconcile.Result{}, r.fail(ctx, osm, msg)
		}
		if msg := cluster.Annotations[AnnotationRefuseServers]; msg != "" {
			return reconcile.Result{}, r.refuse(ctx, osm, msg)
		}
		orig := osm.DeepCopy()
		if osm.Annotations == nil {
			osm.Annotations = map[string]string{}
		}
		osm.Annotations[annotationServerCreated] = time.Now().UTC().Format(time.RFC3339Nano)
		if err := r.client.Patch(ctx, osm, client.MergeFrom(orig)); err != nil {
			return reconcile.Result{}, err
		}
		return reconcile.Result{RequeueAfter: r.o.StepDelay}, nil
	}
	since, _ := time.Parse(time.RFC3339Nano, created)
	if wait := due(since, r.o.StepDelay); wait > 0 {
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	ip := privateIP(osm.UID)
	id := stableUUID(osm.UID, "server")
	if !osm.Status.Ready {
		if err := r.markActive(ctx, osm, id, ip); err != nil {
			return reconcile.Result{}, err
		}
	}
	return r.boot(ctx, osm, machine, cluster, key, "openstack:///"+id, ip)
}

// boot runs kubeadm on the server: init on the first control-plane machine,
// join on the others (retried until the API server answers, as kubeadm
// join retries its discovery).
func (r *machineReconciler) boot(ctx context.Context, osm *infrav1.OpenStackMachine, m *clusterv1.Machine, cluster *clusterv1.Cluster, key, providerID, ip string) (reconcile.Result, error) {
	wc := r.o.Workloads.Cluster(key)
	if wc == nil {
		return reconcile.Result{RequeueAfter: r.o.StepDelay}, nil // the OpenStackCluster registers it
	}
	_, controlPlane := m.Labels[clusterv1.MachineControlPlaneLabel]
	mc := workload.Machine{Name: osm.Name, ControlPlane: controlPlane, IP: ip, ProviderID: providerID, KubeletVersion: m.Spec.Version}
	if err := r.keysAtBoot(ctx, wc, cluster, &mc); err != nil {
		return reconcile.Result{}, fmt.Errorf("booting %s: %w", osm.Name, err)
	}
	data, err := r.bootstrapData(ctx, m)
	if err != nil {
		return reconcile.Result{}, err
	}
	mc.ClusterConfiguration = clusterConfiguration(data)
	err = wc.Boot(ctx, mc)
	if errors.Is(err, workload.ErrNotInitialized) {
		return reconcile.Result{RequeueAfter: r.o.StepDelay}, nil
	}
	return reconcile.Result{}, err
}

// keysAtBoot reads the key material a machine boots with: the cluster's
// keys while its API server has not started (the first control-plane
// machine's kubeadm init), and for every control-plane machine the
// Kubernetes CA it joins with. kubeadm writes ca.crt and ca.key from the
// bootstrap data Cluster API made of the <cluster>-ca Secret; reading the
// Secret at boot instead is the simulation's simplification. A CA
// rotation's material thus reaches the API server with the control-plane
// machines its rollout creates (workload.Machine.CA).
func (r *machineReconciler) keysAtBoot(ctx context.Context, wc *workload.Cluster, cluster *clusterv1.Cluster, mc *workload.Machine) error {
	if !mc.ControlPlane && wc.Running() {
		return nil
	}
	keys, err := clusterKeys(ctx, r.client, cluster)
	if err != nil {
		return err
	}
	if mc.ControlPlane {
		mc.CA = keys.CA
	}
	return wc.SetKeys(keys.CA, keys.EtcdCA, keys.ServiceAccount)
}

// markActive is Nova reporting the server ACTIVE: CAPO sets the
// providerID, the addresses and Ready.
func (r *machineReconciler) markActive(ctx context.Context, osm *infrav1.OpenStackMachine, id, ip string) error {
	orig := osm.DeepCopy()
	osm.Spec.ProviderID = ptr.To("openstack:///" + id)
	if err := r.client.Patch(ctx, osm, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("OpenStackMachine %s: providerID: %w", osm.Name, err)
	}
	orig = osm.DeepCopy()
	now := time.Now()
	osm.Status.Ready = true
	osm.Status.Initialization = &infrav1.MachineInitialization{Provisioned: true}
	osm.Status.InstanceID = ptr.To(id)
	// As CAPO v0.14: the instance state stays on its OpenStackServer, and
	// Nova's addresses plus the server's name as InternalDNS.
	osm.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}, {Type: corev1.NodeInternalDNS, Address: osm.Name}}
	osm.Status.Conditions = clusterv1beta1.Conditions{trueCondition("Ready", now), trueCondition("InstanceReady", now)}
	if _, ok := osm.Labels[clusterv1.MachineControlPlaneLabel]; ok {
		// As CAPO: a control-plane server is a member of the API load
		// balancer's pool (the simulated cluster always has one).
		osm.Status.Conditions = append(osm.Status.Conditions, trueCondition("APIServerIngressReadyCondition", now))
	}
	if err := r.client.Status().Patch(ctx, osm, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("OpenStackMachine %s: status: %w", osm.Name, err)
	}
	return nil
}

// waiting writes what CAPO v0.14.7 writes on a machine it cannot start
// yet: InstanceReady False with the reason (severity Info) and the Ready
// summary of it. Nothing else replaces them until the server is ACTIVE, so
// a machine whose server Nova then refuses keeps them for ever.
func (r *machineReconciler) waiting(ctx context.Context, osm *infrav1.OpenStackMachine, reason string) error {
	if c := conditionOf(osm.Status.Conditions, infrav1.InstanceReadyCondition); c != nil && c.Reason == reason {
		return nil
	}
	orig := osm.DeepCopy()
	now := metav1.Now()
	for _, t := range []clusterv1beta1.ConditionType{clusterv1beta1.ReadyCondition, infrav1.InstanceReadyCondition} {
		osm.Status.Conditions = setCondition(osm.Status.Conditions, clusterv1beta1.Condition{
			Type: t, Status: corev1.ConditionFalse, Severity: clusterv1beta1.ConditionSeverityInfo, Reason: reason, LastTransitionTime: now})
	}
	if err := r.client.Status().Patch(ctx, osm, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("OpenStackMachine %s: %s: %w", osm.Name, reason, err)
	}
	return nil
}

// conditionOf finds the condition of type t.
func conditionOf(cs clusterv1beta1.Conditions, t clusterv1beta1.ConditionType) *clusterv1beta1.Condition {
	for i := range cs {
		if cs[i].Type == t {
			return &cs[i]
		}
	}
	return nil
}

// setCondition replaces the condition of c's type, or adds it.
func setCondition(cs clusterv1beta1.Conditions, c clusterv1beta1.Condition) clusterv1beta1.Conditions {
	if old := conditionOf(cs, c.Type); old != nil {
		*old = c
		return cs
	}
	return append(cs, c)
}

// fail is Nova putting the server in ERROR (msg is Nova's fault, e.g. "No
// valid host was found"), reported exactly as CAPO v0.14.7 reports it: the
// OpenStackServer in ERROR, InstanceReady False InstanceStateError with no
// message (Nova's fault reaches no CAPO object), and the OpenStackMachine
// waiting for it for ever.
func (r *machineReconciler) fail(ctx context.Context, osm *infrav1.OpenStackMachine, msg string) error {
	r.o.Logger.Info("simulating a server in ERROR", "machine", osm.Name, "fault", msg)
	return r.failedServer(ctx, osm, infrav1.InstanceStateErrorReason, "")
}

// owners finds the Machine that owns the OpenStackMachine and its Cluster.
func (r *machineReconciler) owners(ctx context.Context, osm *infrav1.OpenStackMachine) (*clusterv1.Machine, *clusterv1.Cluster, error) {
	var name string
	for _, ref := range osm.OwnerReferences {
		if ref.Kind == "Machine" && strings.HasPrefix(ref.APIVersion, clusterv1.GroupVersion.Group+"/") {
			name = ref.Name
		}
	}
	if name == "" {
		return nil, nil, nil
	}
	m := &clusterv1.Machine{}
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: osm.Namespace, Name: name}, m); err != nil {
		return nil, nil, client.IgnoreNotFound(err)
	}
	c := &clusterv1.Cluster{}
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: osm.Namespace, Name: m.Spec.ClusterName}, c); err != nil {
		return nil, nil, client.IgnoreNotFound(err)
	}
	return m, c, nil
}

func (r *machineReconciler) bootstrapData(ctx context.Context, m *clusterv1.Machine) ([]byte, error) {
	s := &corev1.Secret{}
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: *m.Spec.Bootstrap.DataSecretName}, s); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return s.Data["value"], nil
}

// clusterConfiguration extracts the kubeadm ClusterConfiguration from the
// bootstrap data (cloud-config written by the kubeadm bootstrap provider:
// /run/kubeadm/kubeadm.yaml), which `kubeadm init` would store in
// kube-system/kubeadm-config. Empty when absent (a join).
func clusterConfiguration(cloudConfig []byte) string {
	var doc struct {
		WriteFiles []struct {
			Path, Content, Encoding string
		} `json:"write_files"`
	}
	if err := yaml.Unmarshal(cloudConfig, &doc); err != nil {
		return ""
	}
	for _, f := range doc.WriteFiles {
		if f.Path != "/run/kubeadm/kubeadm.yaml" {
			continue
		}
		content := f.Content
		if strings.HasPrefix(f.Encoding, "b64") || f.Encoding == "base64" {
			b, err := base64.StdEncoding.DecodeString(content)
			if err != nil {
				return ""
			}
			content = string(b)
		}
		for _, part := range strings.Split(content, "\n---") {
			if strings.Contains(part, "kind: ClusterConfiguration") {
				return strings.TrimPrefix(strings.TrimSpace(part), "---\n")
			}
		}
	}
	return ""
}

// stableUUID derives an OpenStack-looking ID from an object UID, so that a
// restarted simulator reports the same IDs.
func stableUUID(uid types.UID, purpose string) string {
	h := sha256.Sum256([]byte(string(uid) + "/" + purpose))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// privateIP is the server's address on the cluster network (10.6.0.0/16,
// derived from the UID; stable across restarts, collisions unlikely at
// the sizes a simulation reaches).
func privateIP(uid types.UID) string {
	h := sha256.Sum256([]byte(uid))
	return fmt.Sprintf("10.6.%d.%d", h[0], 2+int(h[1])%250)
}

func metaTime(t time.Time) metav1.Time { return metav1.NewTime(t) }
