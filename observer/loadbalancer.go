package observer

import (
	"context"
	"time"

	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/status"
)

// LoadBalancerFaults asks Octavia about a cluster's API load balancer
// (openstack.Client, as keel's service user). The observer needs it
// because CAPO v0.14.7 never reports a load balancer in ERROR: it waits
// about six minutes for ACTIVE, marks the OpenStackCluster not ready
// ("not active after timeout") and waits again, for ever, so the cluster
// would stay CREATE_IN_PROGRESS until create_timeout with no cause.
type LoadBalancerFaults interface {
	// LoadBalancerFault describes the load balancer of project named
	// name if Octavia put it in ERROR, else "".
	LoadBalancerFault(ctx context.Context, projectID, name string) (string, error)
}

// ProjectSink is a Sink that also knows each cluster's project (the read
// model), which Octavia's load balancers are listed in.
type ProjectSink interface {
	ClusterProjectByStackID(ctx context.Context, stackID string) (string, error)
}

// DefaultLoadBalancerRecheck is how often a cluster whose API load
// balancer is not ready yet is asked about again. Octavia is asked only
// for those clusters (not ready, not deleting), one GET each time: the
// cost is bounded by the clusters being created or repaired.
const DefaultLoadBalancerRecheck = 15 * time.Second

// CheckLoadBalancers makes the observer ask lb about the API load
// balancer of every cluster whose OpenStackCluster is not ready, every
// recheck (DefaultLoadBalancerRecheck when 0); the sink must be a
// ProjectSink. Call it before Run.
func (o *Observer) CheckLoadBalancers(lb LoadBalancerFaults, recheck time.Duration) {
	if recheck <= 0 {
		recheck = DefaultLoadBalancerRecheck
	}
	o.lb, o.lbRecheck = lb, recheck
}

// waitingLoadBalancer is the name of the API load balancer c waits for
// ("" when it has none or it is ready). The name is CAPO's status once
// CAPO has written it; before that (CAPO writes it only after its first
// six-minute wait), the name CAPO gives it.
func waitingLoadBalancer(c *infrav1.OpenStackCluster, stackID string) string {
	if c.Status.Ready || !c.Spec.APIServerLoadBalancer.IsEnabled() {
		return ""
	}
	if lb := c.Status.APIServerLoadBalancer; lb != nil && lb.Name != "" {
		return lb.Name
	}
	return openstack.APILoadBalancerName(kube.Namespace, stackID)
}

// fillLoadBalancer sets the observation's failure from Octavia when the
// cluster's API load balancer name, which is not ready, is in ERROR, and
// asks again later. Octavia's errors are logged and asked again: they
// never hold the rest of the observation back.
func (o *Observer) fillLoadBalancer(ctx context.Context, obs *status.Observation, stackID, name string) error {
	if o.lb == nil || name == "" || obs.Failure != "" || obs.Deleting {
		return nil
	}
	defer o.queue.AddAfter(stackID, o.lbRecheck)
	ps, ok := o.sink.(ProjectSink)
	if !ok {
		return nil
	}
	project, err := ps.ClusterProjectByStackID(ctx, stackID)
	if err != nil || project == "" {
		return err
	}
	fault, err := o.lb.LoadBalancerFault(ctx, project, name)
	if err != nil {
		o.log.Warn("asking Octavia about the cluster's API load balancer", "stack_id", stackID, "load_balancer", name, "err", err)
		return nil
	}
	if fault != "" {
		obs.Failure = "API load balancer: " + fault
	}
	return nil
}
