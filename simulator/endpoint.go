package simulator

import (
	"context"
	"fmt"
	"hash/fnv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// defaultAPIServerPort is CAPO's port when the OpenStackCluster sets none.
const defaultAPIServerPort = 6443

// apiServerPort is the port CAPO gives the control plane endpoint: the
// OpenStackCluster's spec.apiServerPort, else 6443. The simulator's
// OpenStackCluster is not patched by the ClusterClass, so the Cluster's
// clusterNetwork.apiServerPort, which keel's compiler sets to the same
// apiserver_port, stands in for the patched field.
func apiServerPort(c *clusterv1.Cluster, infra *infrav1.OpenStackCluster) int32 {
	if p := ptr.Deref(infra.Spec.APIServerPort, 0); p > 0 {
		return int32(p)
	}
	if p := c.Spec.ClusterNetwork.APIServerPort; p > 0 {
		return p
	}
	return defaultAPIServerPort
}

// ensureEndpoint sets spec.controlPlaneEndpoint once the infrastructure is
// ready, as CAPO's OpenStackCluster reports its API server address and CAPI
// copies it to the Cluster.
func (r *reconciler) ensureEndpoint(ctx context.Context, obs *observed, mem *clusterMemory) error {
	c := obs.cluster
	if obs.infra == nil || !infraReady(obs.infra) || c.Spec.ControlPlaneEndpoint.IsValid() {
		return nil
	}
	host, err := r.reserveEndpoint(ctx, c, mem)
	if err != nil {
		return err
	}
	port := apiServerPort(c, obs.infra)
	// Server-side apply of that one field under the simulator's own manager,
	// never forced: keel's applies (manager "keel") neither see nor remove it.
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": clusterv1.GroupVersion.String(),
		"kind":       "Cluster",
		"metadata":   map[string]any{"name": c.Name, "namespace": c.Namespace},
		"spec": map[string]any{"controlPlaneEndpoint": map[string]any{
			"host": host, "port": int64(port),
		}},
	}}
	if err := r.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldManager)); err != nil {
		return fmt.Errorf("setting the control plane endpoint of cluster %s: %w", c.Name, err)
	}
	c.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: host, Port: port}
	return nil
}

// reserveEndpoint picks the control plane host of a cluster: an address of
// TEST-NET-1 (192.0.2.0/24, RFC 5737), which is never routed, so nothing can
// ever try to reach a real host through it. Hosts are unique among the
// namespace's clusters while fewer than 254 exist, then reused.
func (r *reconciler) reserveEndpoint(ctx context.Context, c *clusterv1.Cluster, mem *clusterMemory) (string, error) {
	var list clusterv1.ClusterList
	if err := r.client.List(ctx, &list, client.InNamespace(c.Namespace)); err != nil {
		return "", fmt.Errorf("listing clusters: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if mem.endpoint != "" {
		return mem.endpoint, nil
	}
	used := map[string]bool{}
	for i := range list.Items {
		used[list.Items[i].Spec.ControlPlaneEndpoint.Host] = true
	}
	for uid, m := range r.clusters {
		if uid != c.UID && m.endpoint != "" {
			used[m.endpoint] = true
		}
	}
	for n := 1; n <= 254; n++ {
		if h := fmt.Sprintf("192.0.2.%d", n); !used[h] {
			mem.endpoint = h
			return h, nil
		}
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(c.UID))
	mem.endpoint = fmt.Sprintf("192.0.2.%d", 1+h.Sum32()%254)
	return mem.endpoint, nil
}
