package reconciler

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/schemas"
	"github.com/openkeel/keel/status"
)

// Stalled reasons.
const (
	ReasonDowngrade       = "KubernetesDowngrade"
	ReasonImmutableChange = "ImmutableFieldChanged"
)

// siteCatalogue is the catalogue the API validates the snapshot's changes
// with (its site.cue), so that the site's defaults decide whether an
// immutable label's effective value changes, for a push as for an API
// write. A site file that does not load falls back to the embedded schema:
// its rules still bind, and the API reports the broken file (it refuses
// every write until it is fixed).
func siteCatalogue(sn *gitstore.Snapshot) *schemas.Catalogue {
	cat, err := schemas.SiteCatalogue(sn)
	if err != nil {
		return schemas.Default()
	}
	return cat
}

// guard refuses, before anything is applied, a change of a live cluster that
// Cluster API cannot make: a Kubernetes version lower than the running one
// (e.g. a `git revert` of an upgrade), or a change of an immutable field or
// label since the revision last applied, judged with the snapshot's
// site.cue as the API judges it. Applying half of such a change, or
// retrying it forever, would leave the cluster worse off.
func (r *Reconciler) guard(ctx context.Context, sn *gitstore.Snapshot, unit string, objs []*unstructured.Unstructured, inv *Inventory) error {
	for _, o := range objs {
		if o.GroupVersionKind().Group != clusterv1.GroupVersion.Group || o.GetKind() != "Cluster" {
			continue
		}
		want, _, _ := unstructured.NestedString(o.Object, "spec", "topology", "version")
		var live clusterv1.Cluster
		err := r.client.Get(ctx, client.ObjectKey{Namespace: o.GetNamespace(), Name: o.GetName()}, &live)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if have := live.Spec.Topology.Version; have != "" && want != "" {
			hv, err1 := utilversion.ParseSemantic(have)
			wv, err2 := utilversion.ParseSemantic(want)
			if err1 == nil && err2 == nil && wv.LessThan(hv) {
				return &status.Stalled{Reason: ReasonDowngrade, Message: fmt.Sprintf(
					"Kubernetes %s runs on cluster %s and cannot be downgraded to %s; nothing was applied. Change the cluster back to %s or later in Git.",
					have, o.GetName(), want, have)}
			}
		}
	}
	if inv == nil || inv.Revision == "" || !strings.HasPrefix(unit, intent.ProjectsDir+"/") {
		return nil
	}
	old, err := r.store.ReadFileInTree(plumbing.NewHash(inv.Revision), intent.ClusterFile)
	if err != nil {
		return nil // the applied revision is not in this repository's history
	}
	cur, err := sn.ReadFile(path.Join(unit, intent.ClusterFile))
	if err != nil {
		return err
	}
	vs, err := siteCatalogue(sn).ImmutableDocumentChanges(intent.KindCluster, old, cur)
	if err != nil || len(vs) == 0 {
		return err
	}
	msgs := make([]string, len(vs))
	for i, v := range vs {
		msgs[i] = v.String()
	}
	return &status.Stalled{Reason: ReasonImmutableChange, Message: "cannot change a running cluster: " + strings.Join(msgs, "; ") + "; nothing was applied"}
}
