package cilium

import "testing"

// cilium_hubble_ui_enabled adds Hubble relay and UI; without it Hubble
// stays on each agent's local socket, listening on no port.
func TestHubbleUIToggleRelayAndUI(t *testing.T) {
	objects := []struct{ kind, name string }{
		{"Deployment", "hubble-relay"}, {"Service", "hubble-relay"}, {"ConfigMap", "hubble-relay-config"},
		{"Deployment", "hubble-ui"}, {"Service", "hubble-ui"}, {"ServiceAccount", "hubble-ui"},
	}
	for _, c := range []struct {
		enabled bool
		listen  string
	}{{false, ""}, {true, ":4244"}} {
		p := params()
		p.HubbleUI = c.enabled
		objs := render(t, p)
		for _, o := range objects {
			if got := find(objs, o.kind, o.name) != nil; got != c.enabled {
				t.Errorf("hubble UI %v: %s %s rendered %v", c.enabled, o.kind, o.name, got)
			}
		}
		cfg := config(t, objs)
		if cfg["enable-hubble"] != "true" || cfg["hubble-listen-address"] != c.listen {
			t.Errorf("hubble UI %v: enable-hubble %q, hubble-listen-address %q, want true, %q",
				c.enabled, cfg["enable-hubble"], cfg["hubble-listen-address"], c.listen)
		}
	}
}
