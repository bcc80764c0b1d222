package capo_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/pki"
)

// keel's cloud-provider ClusterResourceSet, applied by Cluster API's own
// ClusterResourceSet controller into the workload cluster's real API
// server, delivers the OpenStack cloud controller manager (the chart keel
// renders, with the cluster's UUID as --cluster-name and the mirrored image)
// and the kube-system/cloud-config Secret with the cluster's credential; the
// cloud controller manager gives every Node its providerID, so Cluster API
// links every Machine to its Node. A new cloud_provider_tag reaches the
// running DaemonSet (strategy Reconcile).
func TestClusterResourceSetDeliversCloudControllerManager(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	const name, uuid = "kube-occm", "7c2e4d5f-1a2b-4c3d-8e4f-5a6b7c8d9e0f"
	d, err := intent.ParseDocuments([]byte(strings.ReplaceAll(intentFor(name, 1, 1), "6b1f3c6e-9f0e-4d7a-8c55-0a9b8c7d6e5f", uuid)))
	if err != nil {
		t.Fatal(err)
	}
	d.Cluster.Labels["container_infra_prefix"] = "registry.example.com/mirror"
	keys, err := pki.Generate(name, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	in := compiler.Input{Documents: *d, Secrets: &compiler.SecretInput{
		PKI:        keys,
		Cloud:      intent.CloudConfig{AuthURL: "https://keystone.example.org/v3", RegionName: "RegionOne"},
		Credential: &intent.ClusterCredential{ID: "ac-occm", Secret: "s3cr3t", UserID: "u1"},
	}}
	applyCompiled(t, in, true)
	defer deleteCluster(t, name)

	var wc interface{ Client() client.Client }
	eventually(t, 2*time.Minute, "workload cluster running", func() error {
		c := workloads.Cluster(kube.Namespace + "/" + name)
		if c == nil || !c.Running() {
			return errors.New("not running")
		}
		wc = c
		return nil
	})
	dsKey := client.ObjectKey{Namespace: "kube-system", Name: "openstack-cloud-controller-manager"}
	occmImage := func(want string) func() error {
		return func() error {
			var ds appsv1.DaemonSet
			if err := wc.Client().Get(ctx, dsKey, &ds); err != nil {
				return err
			}
			c := ds.Spec.Template.Spec.Containers[0]
			if c.Image != want {
				return fmt.Errorf("image %s, want %s", c.Image, want)
			}
			if !slices.Contains(c.Args, "--cluster-name=$(CLUSTER_NAME)") ||
				!slices.Contains(c.Env, corev1.EnvVar{Name: "CLUSTER_NAME", Value: uuid}) {
				return fmt.Errorf("args %v, env %v: want --cluster-name %s", c.Args, c.Env, uuid)
			}
			return nil
		}
	}
	eventually(t, 2*time.Minute, "OCCM DaemonSet applied by the ClusterResourceSet",
		occmImage("registry.example.com/mirror/openstack-cloud-controller-manager:v1.33.1"))

	var cloudConfig corev1.Secret
	if err := wc.Client().Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "cloud-config"}, &cloudConfig); err != nil {
		t.Fatalf("cloud-config Secret in the workload cluster: %v", err)
	}
	if conf := string(cloudConfig.Data["cloud.conf"]); !strings.Contains(conf, `application-credential-id = "ac-occm"`) {
		t.Fatalf("cloud.conf without the cluster's credential:\n%s", conf)
	}

	eventually(t, 3*time.Minute, "every Machine linked to its Node", func() error {
		var nodes corev1.NodeList
		if err := wc.Client().List(ctx, &nodes); err != nil {
			return err
		}
		for _, n := range nodes.Items {
			if n.Spec.ProviderID == "" {
				return fmt.Errorf("node %s has no providerID", n.Name)
			}
		}
		var machines clusterv1.MachineList
		if err := env.Client.List(ctx, &machines, client.InNamespace(kube.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: name}); err != nil {
			return err
		}
		if len(machines.Items) != 2 || len(nodes.Items) != 2 {
			return fmt.Errorf("%d machines, %d nodes", len(machines.Items), len(nodes.Items))
		}
		for _, m := range machines.Items {
			if !m.Status.NodeRef.IsDefined() {
				return fmt.Errorf("machine %s has no nodeRef", m.Name)
			}
		}
		return nil
	})
	var crs addonsv1.ClusterResourceSet
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: compiler.CloudProviderName(name)}, &crs); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(crs.Status.Conditions, addonsv1.ClusterResourceSetResourcesAppliedCondition); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("ResourcesApplied = %+v", c)
	}

	in.Cluster.Labels["cloud_provider_tag"] = "v1.34.1"
	applyCompiled(t, in, true)
	eventually(t, 2*time.Minute, "the new cloud_provider_tag re-applied",
		occmImage("registry.example.com/mirror/openstack-cloud-controller-manager:v1.34.1"))
}

// deleteCluster deletes a Cluster and waits until it (and so its workload
// cluster) is gone.
func deleteCluster(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	c := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: kube.Namespace, Name: name}}
	if err := env.Client.Delete(ctx, c); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	eventually(t, 2*time.Minute, "cluster deleted", func() error {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), &clusterv1.Cluster{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (%v)", err)
	})
}
