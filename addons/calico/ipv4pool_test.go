package calico

import "testing"

// calico_ipv4pool is the pool calico-node creates (CALICO_IPV4POOL_CIDR,
// once), in every release.
func TestIPv4PoolReachesCalicoNode(t *testing.T) {
	for _, tag := range Releases {
		for _, pool := range []string{"10.100.0.0/16", "172.16.0.0/12"} {
			objs, err := Manifests(Params{Tag: tag, IPv4Pool: pool})
			if err != nil {
				t.Fatal(err)
			}
			var got []any
			for _, e := range nodeContainerEnv(objs) {
				if e := e.(map[string]any); e["name"] == "CALICO_IPV4POOL_CIDR" {
					got = append(got, e["value"])
				}
			}
			if len(got) != 1 || got[0] != pool {
				t.Errorf("%s: CALICO_IPV4POOL_CIDR = %v, want [%s]", tag, got, pool)
			}
		}
	}
}
