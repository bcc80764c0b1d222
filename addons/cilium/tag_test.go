package cilium

import (
	"strings"
	"testing"
)

// cilium_tag is the tag of every image of Cilium's release (agent with its
// init containers, operator, Hubble relay), by tag alone: a digest would
// pin another version. Hubble UI, versioned on its own, keeps the chart's
// tag and digest.
func TestCiliumTagReachesEveryCiliumImage(t *testing.T) {
	for _, tag := range []string{"v1.15.3", "v1.15.19"} {
		p := params()
		p.Tag, p.HubbleUI = tag, true
		seen := map[string]bool{}
		for where, image := range containerImages(t, render(t, p)) {
			repo := strings.SplitN(image, ":", 2)[0]
			switch repo {
			case "quay.io/cilium/cilium", "quay.io/cilium/operator-generic", "quay.io/cilium/hubble-relay":
				if image != repo+":"+tag {
					t.Errorf("cilium_tag %s: %s is %s, want %s:%s", tag, where, image, repo, tag)
				}
			case "quay.io/cilium/hubble-ui", "quay.io/cilium/hubble-ui-backend":
				if !strings.HasPrefix(image, repo+":v0.13.2@sha256:") {
					t.Errorf("%s is %s, want the chart's v0.13.2 by digest", where, image)
				}
			default:
				t.Errorf("%s: unexpected image %s", where, image)
			}
			seen[repo] = true
		}
		if len(seen) != 5 {
			t.Errorf("cilium_tag %s: images of %v, want the agent, operator, relay, UI and its backend", tag, seen)
		}
	}
}
