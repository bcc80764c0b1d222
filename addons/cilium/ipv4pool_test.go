package cilium

import "testing"

// cilium_ipv4pool is the pool Cilium's cluster-pool IPAM hands pod CIDRs
// out of.
func TestIPv4PoolReachesCiliumConfig(t *testing.T) {
	for _, pool := range []string{"10.100.0.0/16", "172.30.0.0/15"} {
		p := params()
		p.IPv4Pool = pool
		cfg := config(t, render(t, p))
		if cfg["ipam"] != "cluster-pool" || cfg["cluster-pool-ipv4-cidr"] != pool {
			t.Errorf("pool %s: ipam %q, cluster-pool-ipv4-cidr %q", pool, cfg["ipam"], cfg["cluster-pool-ipv4-cidr"])
		}
	}
}
