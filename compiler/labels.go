package compiler

// effectiveLabels fills in label defaults. The catalogue (schemas/) is the
// single source of these values; until the compiler reads it (issue 6), the
// few labels the walking skeleton maps are defaulted here.
func effectiveLabels(given map[string]string) map[string]string {
	out := map[string]string{
		"kube_tag":                 "v1.33.4",
		"calico_ipv4pool":          "10.100.0.0/16",
		"cilium_ipv4pool":          "10.100.0.0/16",
		"service_cluster_ip_range": "10.254.0.0/16",
		"dns_cluster_domain":       "cluster.local",
	}
	for k, v := range given {
		out[k] = v
	}
	return out
}
