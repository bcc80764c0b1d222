package addons

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// workloadKinds are the kinds whose pod template changes roll their pods.
var workloadKinds = map[string]bool{"Deployment": true, "DaemonSet": true, "StatefulSet": true}

// AnnotatePodTemplates sets an annotation on the pod template of each
// workload among objs (Deployments, DaemonSets, StatefulSets), so that a
// change of its value rolls their pods: the way to restart a workload that
// reads its configuration only when it starts, when that configuration
// changes (as Helm charts do with a checksum annotation).
func AnnotatePodTemplates(objs []*unstructured.Unstructured, key, value string) error {
	for _, o := range objs {
		if !workloadKinds[o.GetKind()] {
			continue
		}
		path := []string{"spec", "template", "metadata", "annotations"}
		ann, _, err := unstructured.NestedStringMap(o.Object, path...)
		if err != nil {
			return err
		}
		if ann == nil {
			ann = map[string]string{}
		}
		ann[key] = value
		if err := unstructured.SetNestedStringMap(o.Object, ann, path...); err != nil {
			return err
		}
	}
	return nil
}
