package openstack

import (
	"context"
	"errors"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
)

// LoadBalancerFaults reads what Octavia says of a cluster's API load
// balancer. CAPO v0.14.7 cannot: it waits about six minutes for the load
// balancer to become ACTIVE, then marks the OpenStackCluster not ready
// ("not active after timeout") and waits again, for ever, without ever
// saying that Octavia put the load balancer in ERROR.
type LoadBalancerFaults interface {
	// LoadBalancerFault looks up, among the load balancers of project,
	// those named name (as keel's service user), and describes the first
	// in ERROR; "" when none is (or none exists yet).
	LoadBalancerFault(ctx context.Context, projectID, name string) (string, error)
}

// Given has no LoadBalancerFault: without OpenStack (the embedded
// default's simulated CAPO) there is no Octavia to ask, and the observer
// then asks nothing.
var _ LoadBalancerFaults = (*Client)(nil)

// APILoadBalancerName is the name CAPO v0.14 gives the API server load
// balancer of the Cluster API Cluster namespace/name
// (pkg/cloud/services/loadbalancer getLoadBalancerName with
// names.ClusterResourceName).
func APILoadBalancerName(namespace, clusterName string) string {
	return "k8s-clusterapi-cluster-" + namespace + "-" + clusterName + "-kubeapi"
}

// LoadBalancerFault lists project's load balancers named name (Octavia
// filters by name: one page) and describes the first in ERROR. A cloud
// without Octavia has none.
func (c *Client) LoadBalancerFault(ctx context.Context, projectID, name string) (string, error) {
	s, err := c.loadBalancerServices(ctx)
	if errors.Is(err, errNoOctavia) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	pages, err := loadbalancers.List(s.lb, loadbalancers.ListOpts{ProjectID: projectID, Name: name, Limit: lbPageLimit}).AllPages(ctx)
	if err != nil {
		return "", lbErr(name, "listing load balancers named "+name, err)
	}
	all, err := loadbalancers.ExtractLoadBalancers(pages)
	if err != nil {
		return "", lbErr(name, "listing load balancers named "+name, err)
	}
	for _, lb := range all {
		if lb.ProvisioningStatus == "ERROR" {
			return loadBalancerFault(lb), nil
		}
	}
	return "", nil
}

// loadBalancerFault is what an operator needs to find the load balancer
// and Octavia's logs of it: Octavia's API keeps no error message.
func loadBalancerFault(lb loadbalancers.LoadBalancer) string {
	return fmt.Sprintf("Octavia load balancer %s (%s) is in ERROR: provisioning_status ERROR, operating_status %s "+
		"(Octavia's API keeps no cause: see its worker's log for this load balancer)", lb.Name, lb.ID, lb.OperatingStatus)
}
