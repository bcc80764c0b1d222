package reconciler

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/fluxcd/pkg/ssa"
	ssautils "github.com/fluxcd/pkg/ssa/utils"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// A change that only updates objects this process applied skips
// fluxcd/pkg/ssa's GET and server-side dry run of each: the dry run tells
// whether an apply would change the object, and the object's rendering has
// changed since this process applied it (toApply). Were it the same on the
// server after all (the same edit made there), the apply writes nothing.
// Under a fleet's rollout a Cluster's dry run went through Cluster API's
// webhooks as its apply does, and took as long (issue 30, fix 17).
//
// Everything else still goes through ssa.ApplyAllStaged: a new object (it
// may need its Namespace, CRD or Role applied and ready first), an object
// of those stages, and any apply with options the plain apply would
// ignore (an adopted cluster's field managers to clean up, selectors).

// plainUpdates tells whether the updates todo (toApply) are all of ssa's
// last stage, and opts ask nothing of ssa but the apply.
func plainUpdates(todo []*unstructured.Unstructured, opts ssa.ApplyOptions) bool {
	if !plainApply(opts) {
		return false
	}
	for _, o := range todo {
		if ssautils.IsClusterDefinition(o) || ssautils.IsClassDefinition(o) || ssautils.IsCustomStage(o, opts.CustomStageKinds) {
			return false
		}
	}
	return true
}

// plainApply tells whether opts are ssa's defaults but for the custom
// stages: no cleanup, no selector, no forced recreation.
func plainApply(opts ssa.ApplyOptions) bool {
	c := opts.Cleanup
	return !opts.Force && !opts.MigrateAPIVersion && len(opts.DriftIgnoreRules) == 0 &&
		len(opts.ForceSelector) == 0 && len(opts.ExclusionSelector) == 0 && len(opts.IfNotPresentSelector) == 0 &&
		len(c.Annotations) == 0 && len(c.Labels) == 0 && len(c.FieldManagers) == 0
}

// applyUpdates server-side applies objs one by one, in ssa's order, with
// the field manager ssa applies them with.
func (r *Reconciler) applyUpdates(ctx context.Context, objs []*unstructured.Unstructured) error {
	sorted := slices.Clone(objs)
	sort.Sort(ssa.SortableUnstructureds(sorted))
	for _, o := range sorted {
		ac := client.ApplyConfigurationFromUnstructured(o.DeepCopy())
		if err := r.client.Apply(ctx, ac, client.FieldOwner(kube.FieldManager), client.ForceOwnership); err != nil {
			return fmt.Errorf("%s apply failed: %w", ssautils.FmtUnstructured(o), err)
		}
	}
	return nil
}
