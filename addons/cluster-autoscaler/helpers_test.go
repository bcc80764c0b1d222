package clusterautoscaler

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

var defaults = Params{
	StackID: "kube-ab12c", Namespace: "magnum-system", Tag: "v1.33.5",
	ScaleDownEnabled: true, ScaleDownUnneededTime: "10m", ScaleDownDelayAfterAdd: "10m", ScaleDownUtilizationThreshold: "0.5",
}

// deploymentOf renders p and returns its Deployment.
func deploymentOf(t *testing.T, p Params) *appsv1.Deployment {
	t.Helper()
	objs, err := Manifests(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if d, ok := o.(*appsv1.Deployment); ok {
			return d
		}
	}
	t.Fatal("no Deployment")
	return nil
}

func hasArg(args []string, want string) bool {
	for _, a := range args {
		if a == want {
			return true
		}
	}
	return false
}
