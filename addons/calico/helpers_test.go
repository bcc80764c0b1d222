package calico

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

func unstructuredSlice(obj map[string]any, fields ...string) ([]any, bool, error) {
	return unstructured.NestedSlice(obj, fields...)
}

// nodeContainerEnv is the env of the calico-node container.
func nodeContainerEnv(objs []*unstructured.Unstructured) []any {
	for _, o := range objs {
		if o.GetKind() != "DaemonSet" || o.GetName() != NodeDaemonSet {
			continue
		}
		cs, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		for _, c := range cs {
			if c := c.(map[string]any); c["name"] == "calico-node" {
				env, _ := c["env"].([]any)
				return env
			}
		}
	}
	return nil
}
