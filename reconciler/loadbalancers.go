package reconciler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/openstack"
)

// LoadBalancerDeleter deletes the Octavia load balancers a cluster's
// cloud controller manager made for its Services, and their floating IPs,
// as keel's service user (openstack.Client). It returns those still being
// deleted; a refusal is an *openstack.ForbiddenError.
type LoadBalancerDeleter interface {
	DeleteClusterLoadBalancers(ctx context.Context, projectID, clusterUUID string) ([]openstack.LoadBalancer, error)
}

// defaultLoadBalancerTimeout bounds one round of waiting for Octavia
// (the reference's pre_delete_lb_timeout is 60 s; Octavia's cascade
// delete of an amphora often takes longer).
const defaultLoadBalancerTimeout = 5 * time.Minute

// lbTeardown is the load balancer step of one folder's teardown.
type lbTeardown struct {
	started  time.Time // of this round
	failures int       // Octavia's errors in this round
	// failed is the last round's failure, reported as DELETE_FAILED and
	// returned until retryAt; the cluster stays DELETE_FAILED until a
	// round succeeds.
	failed  error
	retryAt time.Time
}

// releaseLoadBalancers deletes, before the folder's CAPI Cluster is
// deleted, the load balancers OCCM made for the cluster: CAPO deletes the
// cluster's network with the Cluster, and a load balancer's VIP port on it
// would hang that deletion (and leak the load balancer and its floating
// IP). It reports whether the teardown may go on.
//
// The load balancers are those of the cluster's project (the folder's
// projects/<project>/ segment) whose description names the cluster's UUID.
// While Octavia deletes them the cluster is DELETE_IN_PROGRESS; when a
// round fails (Octavia refuses, fails CredentialAttempts times, or they
// are not gone within LoadBalancerTimeout) the cluster is DELETE_FAILED
// with the reason, the CAPI Cluster is left, and a new round starts after
// RetryMax.
func (r *Reconciler) releaseLoadBalancers(ctx context.Context, id string, inv *Inventory) (bool, error) {
	if r.o.LoadBalancers == nil || inv.ClusterUUID == "" || r.lbCleared.get(id) {
		return true, nil
	}
	project, ok := projectOfUnit(inv.Unit)
	live := false
	if ok {
		var err error
		if live, err = r.undeletedCluster(ctx, inv.Entries); err != nil {
			return false, err
		}
	}
	// Once the Cluster's delete was asked (by this process, or by one
	// before a restart) its load balancers are already gone.
	if !live {
		r.lbCleared.set(id, true)
		r.lbs.delete(id)
		return true, nil
	}
	now := time.Now()
	st := r.lbs.get(id)
	if st == nil {
		st = &lbTeardown{started: now}
		r.lbs.set(id, st)
	}
	if st.failed != nil && now.Before(st.retryAt) {
		return false, st.failed
	}
	if st.failed != nil && st.started.Before(st.retryAt) {
		st.started, st.failures = now, 0 // a new round
	}
	actx, cancel := context.WithTimeout(ctx, credentialTimeout)
	left, err := r.o.LoadBalancers.DeleteClusterLoadBalancers(actx, project, inv.ClusterUUID)
	cancel()
	if err == nil && len(left) == 0 {
		r.o.Log.Info("the cluster has no load balancers left", "cluster", inv.ClusterUUID)
		r.lbs.delete(id)
		r.lbCleared.set(id, true)
		return true, nil
	}
	timedOut := now.Sub(st.started) > r.o.LoadBalancerTimeout
	var fb *openstack.ForbiddenError
	var reason string
	switch {
	case errors.As(err, &fb):
		reason = fmt.Sprintf("Octavia refused to delete the cluster's load balancers (keel's service user needs the admin role): %v.", err)
	case err != nil:
		st.failures++
		if st.failures >= r.o.CredentialAttempts || timedOut {
			reason = fmt.Sprintf("Deleting the cluster's load balancers failed %d times: %v.", st.failures, err)
		}
	case timedOut:
		reason = fmt.Sprintf("Timeout waiting for the load balancers %s to be deleted.", lbNames(left))
	}
	if reason != "" {
		st.failed, st.retryAt = errors.New(reason), now.Add(r.o.RetryMax)
		r.o.Log.Warn("the cluster's load balancers are not deleted; the deletion is retried", "cluster", inv.ClusterUUID,
			"reason", reason, "retry_in", r.o.RetryMax)
		if r.sink != nil {
			r.sink.DeleteFailed(ctx, inv.ClusterUUID, reason)
		}
		return false, st.failed
	}
	if st.failed == nil && r.sink != nil {
		why := "Deleting the load balancers " + lbNames(left) + " of the cluster's Services"
		if err != nil {
			why = "Deleting the load balancers of the cluster's Services: Octavia failed, retrying"
		}
		r.sink.Deleting(ctx, inv.ClusterUUID, why)
	}
	if err != nil {
		return false, fmt.Errorf("deleting the load balancers of cluster %s (attempt %d of %d): %w", inv.ClusterUUID, st.failures, r.o.CredentialAttempts, err)
	}
	return false, nil
}

// undeletedCluster reports whether a CAPI Cluster among entries exists
// and has not been asked to go.
func (r *Reconciler) undeletedCluster(ctx context.Context, entries []Entry) (bool, error) {
	for _, e := range entries {
		if e.Group != "cluster.x-k8s.io" || e.Kind != "Cluster" {
			continue
		}
		c := e.object()
		err := r.client.Get(ctx, client.ObjectKeyFromObject(c), c)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return false, err
		}
		if c.GetDeletionTimestamp() == nil {
			return true, nil
		}
	}
	return false, nil
}

// projectOfUnit is the project of a cluster folder
// (projects/<project>/clusters/<name>-<stack_id>).
func projectOfUnit(unit string) (string, bool) {
	parts := strings.Split(unit, "/")
	if len(parts) != 4 || parts[0] != intent.ProjectsDir || parts[2] != "clusters" || parts[1] == "" {
		return "", false
	}
	return parts[1], true
}

// lbNames names load balancers in a status reason: by name (OCCM's
// kube_service_<cluster>_<ns>_<svc>), else ID; at most five.
func lbNames(lbs []openstack.LoadBalancer) string {
	const most = 5
	var names []string
	for i, lb := range lbs {
		if i == most {
			names = append(names, fmt.Sprintf("and %d more", len(lbs)-most))
			break
		}
		n := lb.Name
		if n == "" {
			n = lb.ID
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}
