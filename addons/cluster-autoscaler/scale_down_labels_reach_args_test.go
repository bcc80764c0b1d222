package clusterautoscaler

import "testing"

// The scale_down_* labels become the autoscaler's flags of the same names;
// --enforce-node-group-min-size, which the reference passes, only to
// releases that have it (1.26 on: older ones refuse to start on an unknown
// flag).
func TestScaleDownLabelsReachArgs(t *testing.T) {
	p := defaults
	p.ScaleDownEnabled, p.ScaleDownUnneededTime, p.ScaleDownDelayAfterAdd, p.ScaleDownUtilizationThreshold = false, "5m", "1h30m", "0.7"
	args := deploymentOf(t, p).Spec.Template.Spec.Containers[0].Args
	for _, want := range []string{
		"--scale-down-enabled=false", "--scale-down-unneeded-time=5m",
		"--scale-down-delay-after-add=1h30m", "--scale-down-utilization-threshold=0.7",
	} {
		if !hasArg(args, want) {
			t.Errorf("args %v lack %s", args, want)
		}
	}
	for _, c := range []struct {
		tag     string
		enforce bool
	}{{"v1.25.3", false}, {"v1.22.3", false}, {"v1.26.8", true}, {"v1.33.5", true}, {"v1.40.0", true}} {
		p := defaults
		p.Tag = c.tag
		if got := hasArg(Args(p), "--enforce-node-group-min-size=true"); got != c.enforce {
			t.Errorf("%s: --enforce-node-group-min-size given = %v, want %v", c.tag, got, c.enforce)
		}
	}
	p = defaults
	p.ScaleDownUnneededTime = ""
	if _, err := Manifests(p); err == nil {
		t.Error("rendered with an empty scale_down_unneeded_time")
	}
}
