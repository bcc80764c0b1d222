package workload

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/pki"
)

// Machine is a booted server as its kubelet registers it.
type Machine struct {
	// Name is the server's hostname, hence the Node's name (CAPO names the
	// server after the OpenStackMachine).
	Name         string
	ControlPlane bool
	// IP is the server's private address.
	IP string
	// ProviderID is what the OpenStack cloud controller manager will set
	// (openstack:///<server id>); the kubelet itself does not know it.
	ProviderID string
	// KubeletVersion is the Kubernetes version the machine's image runs.
	KubeletVersion string
	// ClusterConfiguration is the kubeadm ClusterConfiguration YAML `kubeadm
	// init` stores in kube-system/kubeadm-config (first control-plane
	// machine only); empty means a minimal one for KubeletVersion.
	ClusterConfiguration string
	// CA is the Kubernetes CA material a control-plane machine's kubeadm
	// wrote to /etc/kubernetes/pki/ca.crt and ca.key: the <cluster>-ca
	// Secret's tls.crt (a bundle during a CA rotation) and tls.key, as
	// they were when Cluster API made its bootstrap data. Empty means the
	// cluster's keys (SetKeys). Ignored on workers, whose kubelets only
	// trust it.
	CA pki.KeyPair
}

// Labels, taints and names as kubeadm, the kubelet and the OpenStack cloud
// controller manager set them.
const (
	labelControlPlane    = "node-role.kubernetes.io/control-plane"
	taintUninitialized   = "node.cloudprovider.kubernetes.io/uninitialized"
	annotationMirror     = "kubernetes.io/config.mirror"
	kubeadmConfigMap     = "kubeadm-config"
	clusterConfigKey     = "ClusterConfiguration"
	reasonNetworkPlugin  = "NetworkPluginNotReady"
	messageNetworkPlugin = "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"
)

// AnnotationKubeletStopped on a workload cluster's Node stops its simulated
// kubelet (as a crashed kubelet or a server that lost its network): it no
// longer posts the Node's status, and the Node's conditions turn Unknown as
// the node lifecycle controller marks them once the grace period is over
// (here at once). Removing the annotation starts the kubelet again. Its
// value may be an RFC 3339 time: the kubelet went silent then, and the
// conditions turned Unknown at that time (a Node silent for longer than a
// MachineHealthCheck's timeout, without waiting that long).
const AnnotationKubeletStopped = "simulator.keel.openkeel.io/kubelet-stopped"

// What the node lifecycle controller writes on a Node whose kubelet went
// silent.
const (
	reasonNodeStatusUnknown  = "NodeStatusUnknown"
	messageNodeStatusUnknown = "Kubelet stopped posting node status."
)

// Workloads whose presence in a workload cluster the simulated kubelets
// honour: a CNI (Calico's or Cilium's agent DaemonSet, the CNIs keel
// installs) makes Nodes Ready; the OpenStack cloud controller manager sets
// their providerID and removes the uninitialized taint. No pod of them runs
// (nothing schedules pods here): their objects being applied is what counts.
var (
	cniDaemonSets = []string{"calico-node", "cilium"}
	ccmWorkloads  = []string{"openstack-cloud-controller-manager"}
)

// nodeStatusReportFrequency is how often a kubelet posts an unchanged Node
// status (the kubelet's default with node leases): a status that changes
// is posted at once, an unchanged one only this often. Posting it on every
// simulator step made each idle simulated cluster a stream of Node writes
// and Machine reconciles no real cluster produces.
const nodeStatusReportFrequency = 5 * time.Minute

// addons is what the kubelets and the cloud controller manager of one
// workload cluster see of its addons.
type addons struct{ ccm, cni bool }

func presentAddons(ctx context.Context, cl client.Client) (addons, error) {
	ccm, err := anyPresent(ctx, cl, ccmWorkloads, true)
	if err != nil {
		return addons{}, err
	}
	cni, err := anyPresent(ctx, cl, cniDaemonSets, false)
	return addons{ccm: ccm, cni: cni}, err
}

// Boot registers a machine: `kubeadm init` on the first control-plane
// machine (the API server starts, kubeadm-config is written), `kubeadm join`
// on the others; the kubelet registers its Node, control-plane machines get
// their static pods and an etcd member.
func (c *Cluster) Boot(ctx context.Context, mc Machine) error {
	cl, err := c.join(ctx, mc)
	if err != nil {
		return err
	}
	c.m.mu.Lock()
	c.m.nodes[mc.Name] = c
	c.m.mu.Unlock()

	if mc.ControlPlane {
		if err := c.writeKubeadmConfig(ctx, cl, mc); err != nil {
			return err
		}
		if err := c.etcd.add(mc.Name, mc.IP); err != nil {
			return err
		}
	}
	if err := c.registerNode(ctx, cl, mc); err != nil {
		return err
	}
	if mc.ControlPlane {
		if err := c.writeStaticPods(ctx, cl, mc); err != nil {
			return err
		}
	}
	a, err := presentAddons(ctx, cl)
	if err != nil {
		return err
	}
	return c.syncNode(ctx, cl, mc, a, time.Now())
}

// join is what the machine's kubeadm does to the API server: the first
// control-plane machine starts it (init); a later one that brings other CA
// material restarts it with that material (a CA rotation rolling the
// control plane), once: a machine already booted is only being
// re-reconciled. It returns the admin client to register the machine with.
func (c *Cluster) join(ctx context.Context, mc Machine) (client.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ca := mc.CA
	if len(ca.Cert) == 0 {
		ca = c.spec.CA
	}
	_, booted := c.nodes[mc.Name]
	switch {
	case c.api == nil && !mc.ControlPlane:
		return nil, fmt.Errorf("%s cannot join: %w", mc.Name, ErrNotInitialized)
	case c.api == nil:
		if err := c.startAPIServerLocked(ctx, ca); err != nil {
			return nil, err
		}
	case mc.ControlPlane && !booted && !ca.Equal(c.ca):
		if err := c.restartLocked(ctx, ca); err != nil {
			return nil, fmt.Errorf("%s joining with a new CA: %w", mc.Name, err)
		}
	}
	c.nodes[mc.Name] = mc
	return c.client, nil
}

// Shutdown is the server going away: its kubelet stops reporting and its
// etcd member stops answering. The Node object stays, as on a real cloud,
// until someone deletes it (Cluster API's Machine controller does).
func (c *Cluster) Shutdown(ctx context.Context, name string) error {
	c.mu.Lock()
	_, ok := c.nodes[name]
	delete(c.nodes, name)
	cl := c.client
	c.mu.Unlock()
	if !ok {
		return nil
	}
	c.etcd.stop(name)
	if cl == nil {
		return nil
	}
	n := &corev1.Node{}
	if err := cl.Get(ctx, client.ObjectKey{Name: name}, n); err != nil {
		return client.IgnoreNotFound(err)
	}
	before := n.DeepCopy()
	setCondition(n, corev1.NodeReady, corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.")
	return client.IgnoreNotFound(cl.Status().Patch(ctx, n, client.MergeFrom(before)))
}

// Sync plays every kubelet and the cloud controller manager of the cluster
// once: heartbeats, Ready once a CNI is present, providerID once the cloud
// controller manager is; and the rollouts of kube-system's workloads
// (rollOut). The simulator calls it periodically.
func (c *Cluster) Sync(ctx context.Context) error {
	now := time.Now()
	rev, quiet := c.quiet(now)
	if quiet {
		return nil
	}
	played, err := c.sync(ctx, now)
	if err == nil && played {
		c.mu.Lock()
		c.synced = syncMark{rev: rev, at: now}
		c.mu.Unlock()
	}
	return err
}

// syncMark is what a light cluster's last complete Sync saw: the store's
// revision, and when.
type syncMark struct {
	rev uint64
	at  time.Time
}

// quietPeriod is the longest a light cluster where nothing changed goes
// without a Sync: well within the kubelets' 5-minute report of an
// unchanged status (nodeStatusReportFrequency).
const quietPeriod = time.Minute

// quiet reports that Sync would change nothing: a light cluster whose
// store has not changed since its last complete Sync (every input of a
// kubelet's status is in the store: the addons, the Node and its
// annotations; Boot and Shutdown write there too), not due for its
// periodic report. With a thousand clusters, syncing every idle one every
// step was most of the simulator's cost. A real API server's clusters are
// always synced: their revision is not known here.
func (c *Cluster) quiet(now time.Time) (uint64, bool) {
	if c.store == nil {
		return 0, false
	}
	rev := c.store.Revision()
	c.mu.Lock()
	defer c.mu.Unlock()
	return rev, c.synced.rev == rev && now.Sub(c.synced.at) < quietPeriod
}

// sync is one pass of Sync; played says it also played the rollouts, so
// that nothing in the store is left unlooked at.
func (c *Cluster) sync(ctx context.Context, now time.Time) (played bool, err error) {
	c.mu.Lock()
	cl := c.client
	machines := make([]Machine, 0, len(c.nodes))
	for _, mc := range c.nodes {
		machines = append(machines, mc)
	}
	c.mu.Unlock()
	if cl == nil || len(machines) == 0 {
		return false, nil
	}
	a, err := presentAddons(ctx, cl)
	if err != nil {
		return false, err
	}
	for _, mc := range machines {
		if err := c.syncNode(ctx, cl, mc, a, now); err != nil {
			return false, err
		}
	}
	// Less often than the kubelets: four lists of a cluster's workloads at
	// every step would double what an idle simulated cluster costs.
	c.mu.Lock()
	due := now.Sub(c.rolledOut) >= rolloutPeriod
	c.mu.Unlock()
	if !due {
		return false, nil
	}
	if err := rollOut(ctx, cl); err != nil {
		return false, err
	}
	c.mu.Lock()
	c.rolledOut = now
	c.mu.Unlock()
	return true, nil
}

// rolloutPeriod is how often Sync plays the rollouts of kube-system.
const rolloutPeriod = 5 * time.Second

func (c *Cluster) registerNode(ctx context.Context, cl client.Client, mc Machine) error {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: mc.Name,
		Labels: map[string]string{
			"kubernetes.io/hostname": mc.Name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
			"beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64",
		},
		Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
	}}
	// --cloud-provider=external: the kubelet taints its Node until the cloud
	// controller manager has initialised it.
	n.Spec.Taints = []corev1.Taint{{Key: taintUninitialized, Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	if mc.ControlPlane {
		n.Labels[labelControlPlane] = ""
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: labelControlPlane, Effect: corev1.TaintEffectNoSchedule})
	}
	if err := cl.Create(ctx, n); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("registering node %s: %w", mc.Name, err)
	}
	return nil
}

// syncNode writes the Node's status as its kubelet would (when it changed,
// or nodeStatusReportFrequency after the last post), and its providerID as
// the cloud controller manager would.
func (c *Cluster) syncNode(ctx context.Context, cl client.Client, mc Machine, a addons, now time.Time) error {
	n := &corev1.Node{}
	if err := cl.Get(ctx, client.ObjectKey{Name: mc.Name}, n); err != nil {
		if apierrors.IsNotFound(err) {
			// Deleted (e.g. by Cluster API): a running kubelet re-registers.
			return c.registerNode(ctx, cl, mc)
		}
		return err
	}
	if _, stopped := n.Annotations[AnnotationKubeletStopped]; stopped {
		return markUnknown(ctx, cl, n)
	}
	if a.ccm && n.Spec.ProviderID == "" && mc.ProviderID != "" {
		before := n.DeepCopy()
		n.Spec.ProviderID = mc.ProviderID
		var taints []corev1.Taint
		for _, t := range n.Spec.Taints {
			if t.Key != taintUninitialized {
				taints = append(taints, t)
			}
		}
		n.Spec.Taints = taints
		if err := cl.Patch(ctx, n, client.MergeFrom(before)); err != nil {
			return fmt.Errorf("node %s: setting providerID: %w", mc.Name, err)
		}
	}
	before := n.DeepCopy()
	n.Status.Addresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: mc.IP},
		{Type: corev1.NodeHostName, Address: mc.Name},
		// Where kube-apiserver reaches this kubelet (see apiserver.go).
		{Type: corev1.NodeInternalDNS, Address: "127.0.0.1"},
	}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = c.m.kubelet.port
	n.Status.NodeInfo = corev1.NodeSystemInfo{
		KubeletVersion:  mc.KubeletVersion,
		OperatingSystem: "linux", Architecture: "amd64", OSImage: "Ubuntu 24.04 LTS (simulated)",
		ContainerRuntimeVersion: "containerd://2.1.4",
	}
	n.Status.Capacity = corev1.ResourceList{}
	for _, t := range []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
		setCondition(n, t, corev1.ConditionFalse, "KubeletHas"+strings.TrimPrefix(string(t), "Node"), "")
	}
	if a.cni {
		setCondition(n, corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status")
	} else {
		setCondition(n, corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady", messageNetworkPlugin)
	}
	if last := nodeCondition(before, corev1.NodeReady); last != nil && now.Sub(last.LastHeartbeatTime.Time) < nodeStatusReportFrequency &&
		equality.Semantic.DeepEqual(withoutHeartbeats(before.Status), withoutHeartbeats(n.Status)) {
		return nil
	}
	for i := range n.Status.Conditions {
		n.Status.Conditions[i].LastHeartbeatTime = metav1.NewTime(now)
	}
	if err := cl.Status().Patch(ctx, n, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("node %s: status: %w", mc.Name, err)
	}
	return nil
}

// markUnknown is the node lifecycle controller's view of a silent kubelet:
// every condition Unknown, no heartbeat.
func markUnknown(ctx context.Context, cl client.Client, n *corev1.Node) error {
	before := n.DeepCopy()
	since := metav1.Now()
	if t, err := time.Parse(time.RFC3339, n.Annotations[AnnotationKubeletStopped]); err == nil && t.Before(since.Time) {
		since = metav1.NewTime(t)
	}
	changed := false
	for _, t := range []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
		c := nodeCondition(n, t)
		switch {
		case c == nil:
			setCondition(n, t, corev1.ConditionUnknown, reasonNodeStatusUnknown, messageNodeStatusUnknown)
			nodeCondition(n, t).LastTransitionTime = since
		case c.Status != corev1.ConditionUnknown:
			// The last heartbeat stays the kubelet's last one.
			c.Status, c.Reason, c.Message, c.LastTransitionTime = corev1.ConditionUnknown, reasonNodeStatusUnknown, messageNodeStatusUnknown, since
		default:
			continue
		}
		changed = true
	}
	if !changed {
		return nil
	}
	if err := cl.Status().Patch(ctx, n, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("node %s: status: %w", n.Name, err)
	}
	return nil
}

// withoutHeartbeats is a Node status with its conditions' heartbeat times
// cleared: what tells a changed status from a mere heartbeat.
func withoutHeartbeats(st corev1.NodeStatus) corev1.NodeStatus {
	st = *st.DeepCopy()
	for i := range st.Conditions {
		st.Conditions[i].LastHeartbeatTime = metav1.Time{}
	}
	return st
}

func nodeCondition(n *corev1.Node, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == t {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// setCondition sets a Node condition, moving its transition time only when
// the status changes, as the kubelet does.
func setCondition(n *corev1.Node, t corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string) {
	now := metav1.Now()
	for i := range n.Status.Conditions {
		cond := &n.Status.Conditions[i]
		if cond.Type != t {
			continue
		}
		if cond.Status != s {
			cond.LastTransitionTime = now
		}
		cond.Status, cond.Reason, cond.Message, cond.LastHeartbeatTime = s, reason, msg, now
		return
	}
	n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{
		Type: t, Status: s, Reason: reason, Message: msg, LastHeartbeatTime: now, LastTransitionTime: now,
	})
}

// anyPresent reports whether one of the named workloads exists in
// kube-system (DaemonSets, and Deployments too if deployments).
func anyPresent(ctx context.Context, cl client.Client, names []string, deployments bool) (bool, error) {
	for _, name := range names {
		key := client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: name}
		if err := cl.Get(ctx, key, &appsv1.DaemonSet{}); err == nil {
			return true, nil
		} else if !apierrors.IsNotFound(err) {
			return false, err
		}
		if deployments {
			if err := cl.Get(ctx, key, &appsv1.Deployment{}); err == nil {
				return true, nil
			} else if !apierrors.IsNotFound(err) {
				return false, err
			}
		}
	}
	return false, nil
}

// writeKubeadmConfig stores kube-system/kubeadm-config as `kubeadm init`
// does; KubeadmControlPlane treats its presence as "control plane
// initialized" and edits it on upgrades.
func (c *Cluster) writeKubeadmConfig(ctx context.Context, cl client.Client, mc Machine) error {
	cfg := mc.ClusterConfiguration
	if cfg == "" {
		host, port := c.Endpoint()
		cfg = fmt.Sprintf("apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: %s\ncontrolPlaneEndpoint: %s:%d\n"+
			"certificatesDir: /etc/kubernetes/pki\nclusterName: %s\nimageRepository: registry.k8s.io\netcd:\n  local:\n    dataDir: /var/lib/etcd\n"+
			"networking:\n  dnsDomain: cluster.local\n  serviceSubnet: %s\n",
			mc.KubeletVersion, host, port, dirName(c.spec.Name), orDefault(c.spec.ServiceCIDR, "10.96.0.0/12"))
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: kubeadmConfigMap},
		Data:       map[string]string{clusterConfigKey: cfg},
	}
	if err := cl.Create(ctx, cm); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("writing kubeadm-config: %w", err)
	}
	return nil
}

// writeStaticPods creates the mirror pods of kubeadm's static pods, Running
// and Ready (their containers are the machine's own processes).
func (c *Cluster) writeStaticPods(ctx context.Context, cl client.Client, mc Machine) error {
	for _, comp := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
		tag := mc.KubeletVersion
		if comp == "etcd" {
			tag = "3.6.6-0"
		}
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Namespace:   metav1.NamespaceSystem,
				Name:        comp + "-" + mc.Name,
				Labels:      map[string]string{"component": comp, "tier": "control-plane"},
				Annotations: map[string]string{annotationMirror: "simulated", "kubernetes.io/config.source": "file"},
			},
			Spec: corev1.PodSpec{
				NodeName:          mc.Name,
				HostNetwork:       true,
				PriorityClassName: "system-node-critical",
				Containers:        []corev1.Container{{Name: comp, Image: "registry.k8s.io/" + comp + ":" + tag}},
				Tolerations:       []corev1.Toleration{{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}},
			},
		}
		if err := cl.Create(ctx, p); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("static pod %s: %w", p.Name, err)
		}
		if err := cl.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
			return err
		}
		before := p.DeepCopy()
		now := metav1.Now()
		p.Status.Phase = corev1.PodRunning
		p.Status.HostIP, p.Status.PodIP = mc.IP, mc.IP
		p.Status.StartTime = &now
		p.Status.Conditions = nil
		for _, t := range []corev1.PodConditionType{corev1.PodScheduled, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
			p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: now})
		}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name: comp, Image: p.Spec.Containers[0].Image, Ready: true, Started: ptrTrue(),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		}}
		if err := cl.Status().Patch(ctx, p, client.MergeFrom(before)); err != nil {
			return fmt.Errorf("static pod %s status: %w", p.Name, err)
		}
	}
	return nil
}

func ptrTrue() *bool { t := true; return &t }

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// httpGetOK is a GET that must answer 200 within two seconds.
func httpGetOK(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}
