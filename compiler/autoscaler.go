package compiler

import (
	"bytes"
	"fmt"

	clusterautoscaler "github.com/openkeel/keel/addons/cluster-autoscaler"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/schemas"
)

// AutoscalerFile is the rendered file of a cluster's cluster-autoscaler.
const AutoscalerFile = "cluster-autoscaler.yaml"

// autoscalerDocuments renders, with auto_scaling_enabled, the
// cluster-autoscaler of the cluster: unlike the other addons it runs in
// the management cluster (as the reference runs it), so its objects are
// applied by the reconciler with the Cluster, not delivered by a
// ClusterResourceSet. They carry the cluster-uuid label like the cluster's
// other objects; leaving Git (autoscaling turned off, the cluster
// deleted) prunes them, the Deployment with the Cluster
// (reconciler.deleteOrdered).
//
// Autoscaling is a cluster label, so it covers every worker nodegroup
// (their MachineDeployments get the bounds, topology.go); the control
// plane is never autoscaled.
func autoscalerDocuments(in Input) ([]Document, error) {
	c := &in.Cluster
	cat := in.catalogue()
	labels := in.labels()
	enabled, err := cat.Bool(labels, schemas.LabelAutoScalingEnabled)
	if err != nil || !enabled {
		return nil, err
	}
	scaleDown, err := cat.Bool(labels, schemas.LabelScaleDownEnabled)
	if err != nil {
		return nil, err
	}
	objs, err := clusterautoscaler.Manifests(clusterautoscaler.Params{
		StackID:                       c.StackID,
		Namespace:                     kube.Namespace,
		Tag:                           clusterautoscaler.Tag(labels[schemas.LabelAutoscalerTag], labels[schemas.LabelKubeTag]),
		Prefix:                        labels[schemas.LabelContainerInfraPrefix],
		ScaleDownEnabled:              scaleDown,
		ScaleDownUnneededTime:         labels[schemas.LabelScaleDownUnneededTime],
		ScaleDownDelayAfterAdd:        labels[schemas.LabelScaleDownDelayAfterAdd],
		ScaleDownUtilizationThreshold: labels[schemas.LabelScaleDownUtilizationThreshold],
	})
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", c.UUID, err)
	}
	var b bytes.Buffer
	for i, o := range objs {
		l := o.GetLabels()
		l[LabelClusterUUID] = c.UUID
		o.SetLabels(l)
		data, err := MarshalObject(o)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(data)
	}
	return []Document{NewDocument(AutoscalerFile, b.Bytes())}, nil
}
