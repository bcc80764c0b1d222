package keystoneauth

import (
	"net"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// k8s-keystone-auth runs where kube-apiserver calls it: on every
// control-plane node (whatever its taints, before the node is Ready), on
// the host's network, listening with TLS on the loopback address and port
// the webhook kubeconfig names, with the node's apiserver key pair mounted
// read-only and nothing else of /etc/kubernetes/pki.
func TestRunsBesideAPIServer(t *testing.T) {
	ds := daemonSetOf(t, defaults)
	spec := ds.Spec.Template.Spec
	if !spec.HostNetwork {
		t.Error("not on the host network: kube-apiserver calls 127.0.0.1")
	}
	c := spec.Containers[0]
	host, port, err := net.SplitHostPort(flag(c.Args, "--listen"))
	if err != nil || host != "127.0.0.1" || net.JoinHostPort(host, port) != ListenAddress {
		t.Errorf("--listen %q, want %s", flag(c.Args, "--listen"), ListenAddress)
	}
	if len(c.Ports) != 1 || c.Ports[0].HostPort != 8443 || c.Ports[0].ContainerPort != 8443 {
		t.Errorf("ports %v: want host port 8443 (the scheduler then keeps another 8443 off the node)", c.Ports)
	}
	if flag(c.Args, "--tls-cert-file") != TLSCertFile || flag(c.Args, "--tls-private-key-file") != TLSKeyFile {
		t.Errorf("args %v: want the apiserver's key pair", c.Args)
	}
	mounted := map[string]bool{}
	for _, m := range c.VolumeMounts {
		if !m.ReadOnly {
			t.Errorf("mount %s is writable", m.MountPath)
		}
		mounted[m.MountPath] = true
	}
	for _, v := range spec.Volumes {
		if v.HostPath != nil && !slices.Contains([]string{TLSCertFile, TLSKeyFile}, v.HostPath.Path) {
			t.Errorf("host path %s mounted: only the serving key pair is needed", v.HostPath.Path)
		}
	}
	if !mounted[TLSCertFile] || !mounted[TLSKeyFile] {
		t.Errorf("mounts %v lack the key pair", c.VolumeMounts)
	}

	// Control-plane nodes only.
	terms := spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	for _, node := range []struct {
		labels map[string]string
		want   bool
	}{
		{map[string]string{"node-role.kubernetes.io/control-plane": ""}, true},
		{map[string]string{"node-role.kubernetes.io/master": ""}, true},
		{map[string]string{"node.cluster.x-k8s.io/nodegroup": "default-worker"}, false},
	} {
		if got := matches(terms, node.labels); got != node.want {
			t.Errorf("node %v selected: %v, want %v", node.labels, got, node.want)
		}
	}
	// Whatever the control-plane node's taints.
	for _, taint := range []corev1.Taint{
		{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.cloudprovider.kubernetes.io/uninitialized", Value: "true", Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/not-ready", Effect: corev1.TaintEffectNoExecute},
	} {
		tolerated := false
		for _, tol := range spec.Tolerations {
			tolerated = tolerated || tol.ToleratesTaint(klog.Background(), &taint, false)
		}
		if !tolerated {
			t.Errorf("taint %s:%s not tolerated", taint.Key, taint.Effect)
		}
	}
}

// matches: a node selector's terms are ORed, a term's expressions ANDed
// (only Exists is used here).
func matches(terms []corev1.NodeSelectorTerm, labels map[string]string) bool {
	for _, term := range terms {
		ok := true
		for _, e := range term.MatchExpressions {
			_, has := labels[e.Key]
			ok = ok && e.Operator == corev1.NodeSelectorOpExists && has
		}
		if ok {
			return true
		}
	}
	return false
}
