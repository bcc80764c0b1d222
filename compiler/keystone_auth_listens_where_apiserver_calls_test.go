package compiler

import (
	"context"
	"encoding/base64"
	"net/url"
	"path"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/addons"
	keystoneauth "github.com/openkeel/keel/addons/k8s-keystone-auth"
)

// The kube-apiserver that Cluster API makes from the ClusterClass (patches
// applied) calls its authentication and authorization webhooks where the
// k8s-keystone-auth DaemonSet of the same cluster listens: the webhook
// kubeconfig it is given (a file on every control-plane node, in a
// directory mounted into the apiserver's pod) names https on the
// DaemonSet's --listen address and the path k8s-keystone-auth serves, and
// the DaemonSet serves TLS on the host network of those nodes. With
// keystone_auth_enabled off, neither the flags nor the DaemonSet are
// there. Changing one side alone fails here.
func TestKeystoneAuthListensWhereAPIServerCalls(t *testing.T) {
	for _, enabled := range []string{"true", "false"} {
		in := testInputs(t)["calico-basic"]
		in.Cluster.Labels["keystone_auth_enabled"] = enabled
		cl := renderedCluster(t, in)
		st, err := classFor(t, cl.Spec.Topology.ClassRef.Name).Generate(context.Background(), cl)
		if err != nil {
			t.Fatal(err)
		}
		var kcp controlplanev1.KubeadmControlPlane
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(st.ControlPlane.Object.Object, &kcp); err != nil {
			t.Fatal(err)
		}
		spec := kcp.Spec.KubeadmConfigSpec
		args := map[string]string{}
		for _, a := range spec.ClusterConfiguration.APIServer.ExtraArgs {
			args[a.Name] = *a.Value
		}
		ds := keystoneAuthDaemonSet(t, in)
		if enabled == "false" {
			if args["authentication-token-webhook-config-file"] != "" || args["authorization-webhook-config-file"] != "" || ds != nil {
				t.Errorf("disabled: apiserver args %v, DaemonSet %v", args, ds != nil)
			}
			continue
		}

		file := args["authentication-token-webhook-config-file"]
		if file == "" || args["authorization-webhook-config-file"] != file {
			t.Fatalf("apiserver args %v: want both webhook config files, the same", args)
		}
		if !slices.Contains(strings.Split(args["authorization-mode"], ","), "Webhook") {
			t.Errorf("authorization-mode %q has no Webhook", args["authorization-mode"])
		}
		mounted := false
		for _, v := range spec.ClusterConfiguration.APIServer.ExtraVolumes {
			mounted = mounted || (v.HostPath == v.MountPath && strings.HasPrefix(file, strings.TrimSuffix(v.MountPath, "/")+"/"))
		}
		if !mounted {
			t.Errorf("%s is not in a host directory mounted into the apiserver: %v", file, spec.ClusterConfiguration.APIServer.ExtraVolumes)
		}
		var kubeconfig []byte
		for _, f := range spec.Files {
			if f.Path == file {
				if kubeconfig, err = base64.StdEncoding.DecodeString(f.Content); err != nil {
					t.Fatal(err)
				}
			}
		}
		cfg, err := clientcmd.Load(kubeconfig)
		if err != nil || cfg.Contexts[cfg.CurrentContext] == nil {
			t.Fatalf("webhook kubeconfig %s: %v\n%s", file, err, kubeconfig)
		}
		server, err := url.Parse(cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster].Server)
		if err != nil {
			t.Fatal(err)
		}

		if ds == nil {
			t.Fatal("no k8s-keystone-auth DaemonSet in the <uuid> payload")
		}
		pod := ds.Spec.Template.Spec
		c := pod.Containers[0]
		listen, tls := "", false
		for i, a := range c.Args {
			if a == "--listen" && i+1 < len(c.Args) {
				listen = c.Args[i+1]
			}
			tls = tls || a == "--tls-cert-file"
		}
		if server.Scheme != "https" || !tls {
			t.Errorf("apiserver calls %s, DaemonSet serves TLS: %v", server.Scheme, tls)
		}
		if server.Host != listen || path.Clean(server.Path) != keystoneauth.WebhookPath {
			t.Errorf("apiserver calls %s, DaemonSet listens on %s and serves %s", server, listen, keystoneauth.WebhookPath)
		}
		if !pod.HostNetwork || !strings.HasPrefix(listen, "127.0.0.1:") {
			t.Errorf("DaemonSet on the host network %v, listening on %s: the apiserver calls its own node's loopback", pod.HostNetwork, listen)
		}
	}
}

// keystoneAuthDaemonSet is the k8s-keystone-auth DaemonSet of the
// cluster's <uuid> payload, or nil.
func keystoneAuthDaemonSet(t *testing.T, in Input) *appsv1.DaemonSet {
	t.Helper()
	docs, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Path != "configmap-addons.yaml" {
			continue
		}
		var cm corev1.ConfigMap
		if err := yaml.Unmarshal(d.Bytes(), &cm); err != nil {
			t.Fatal(err)
		}
		objs, err := addons.Decode(cm.Data[keystoneauth.Name+".yaml"])
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			if o.GetKind() == "DaemonSet" && o.GetName() == keystoneauth.Name {
				ds := &appsv1.DaemonSet{}
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, ds); err != nil {
					t.Fatal(err)
				}
				return ds
			}
		}
	}
	return nil
}
