package schemas

import (
	"fmt"
	"strings"
	"testing"

	"github.com/openkeel/keel/intent"
)

// validValues derives accepted values of a label from the catalogue itself.
func validValues(l LabelSpec) []string {
	var vs []string
	for _, v := range []string{l.Default, l.Example} {
		if v != "" {
			vs = append(vs, v)
		}
	}
	switch l.Type {
	case TypeBool:
		vs = append(vs, "true", "False", "YES", "no", "on", "Off", "y", "N", "t", "f", "1", "0", " true ")
	case TypeInt:
		if l.Min != nil {
			vs = append(vs, fmt.Sprint(*l.Min), fmt.Sprintf("+%d", *l.Min))
		}
		if l.Max != nil {
			vs = append(vs, fmt.Sprint(*l.Max))
		}
	case TypeEnum, TypeVersion, TypeList:
		vs = append(vs, l.Allowed...)
		if l.Type == TypeList && len(l.Allowed) > 1 {
			vs = append(vs, l.Allowed[0]+","+l.Allowed[1])
		}
		if l.Type == TypeVersion && len(l.Allowed) == 0 {
			vs = append(vs, "v1.2.3", "v0.0.1", "v1.30.0-rc.1")
		}
	case TypeCIDR:
		vs = append(vs, "172.16.0.0/12", "fd00::/64")
	case TypeCIDRList:
		vs = append(vs, "0.0.0.0/0", "198.51.100.0/24,203.0.113.7/32", "2001:db8::/48")
	case TypeIP:
		vs = append(vs, "192.0.2.1", "2001:db8::1")
	case TypeURL:
		vs = append(vs, "https://issuer.example.com", "https://idp.example.com:8443/realms/x")
	case TypeDuration:
		vs = append(vs, "10m", "1h30m", "90s")
	case TypeIgnored:
		vs = append(vs, "", "anything at all", "v1.2.3")
	}
	return vs
}

// invalidValues derives refused values of a label from its type.
func invalidValues(l LabelSpec) []string {
	switch l.Type {
	case TypeBool:
		return []string{"", "maybe", "2", "truee", "yes please", "enabled"}
	case TypeInt:
		vs := []string{"", "ten", "1.5", "1__0", "_1", "1_", "0x10", "++1", "99999999999999999999"}
		if l.Min != nil {
			vs = append(vs, fmt.Sprint(*l.Min-1))
		}
		if l.Max != nil {
			vs = append(vs, fmt.Sprint(*l.Max+1))
		}
		return vs
	case TypeEnum:
		return []string{"", "not-a-value", strings.ToLower(l.Allowed[0]) + "x"}
	case TypeVersion:
		return []string{"", "1.2.3", "v1.2", "latest", "v01.2.3"}
	case TypeCIDR:
		return []string{"", "10.0.0.0", "10.0.0.1/8", "10.0.0.0/33", "cidr"}
	case TypeCIDRList:
		return []string{"", "10.0.0.0/8,", "10.0.0.0/8, 10.1.0.0/16", "10.0.0.1/8", "10.0.0.0/8,10.0.0.0/8", "any"}
	case TypeIP:
		return []string{"", "192.0.2", "host.example.com"}
	case TypeList:
		vs := []string{"", "a,,b", ",a", "a, b"}
		if len(l.Allowed) > 0 {
			vs = append(vs, "not-allowed", l.Allowed[0]+",not-allowed")
		}
		return vs
	case TypeURL:
		return []string{"", "http://issuer.example.com", "issuer.example.com", "https://"}
	case TypeDuration:
		return []string{"", "10", "ten minutes", "10 m"}
	case TypeString:
		if l.Pattern != "" && l.Name != LabelContainerInfraPrefix {
			return []string{"", "has space\tand tab", strings.Repeat("x", 300)}
		}
		if l.Name == LabelContainerInfraPrefix {
			return []string{"registry.example.com/", "UPPER/path/Foo"}
		}
	}
	return nil
}

// Every label: the values its spec promises are accepted, and the values its
// type excludes are refused with a message saying what is allowed.
func TestEveryLabelValidAndInvalidValues(t *testing.T) {
	c := Default()
	for _, l := range c.Labels() {
		t.Run(l.Name, func(t *testing.T) {
			for _, v := range validValues(l) {
				if vs := validate(t, c, map[string]string{l.Name: v}); len(vs) > 0 {
					t.Errorf("%q refused: %v", v, vs)
				}
			}
			for _, v := range invalidValues(l) {
				vs := validate(t, c, map[string]string{l.Name: v})
				if len(vs) != 1 {
					t.Errorf("%q: want one violation, got %v", v, vs)
					continue
				}
				x := vs[0]
				if x.Field != "labels."+l.Name || x.Value != v || !strings.Contains(x.Message, "must") {
					t.Errorf("%q: violation %+v does not name the label, the value and what is allowed", v, x)
				}
			}
		})
	}
}

func TestLabelMessagesNameAllowedValues(t *testing.T) {
	c := Default()
	for _, tc := range []struct{ label, value, want string }{
		{LabelServerGroupPolicies, "spread", "must be one of: soft-anti-affinity, anti-affinity, soft-affinity, affinity"},
		{LabelBootVolumeSize, "-1", "must be an integer between 0 and 65536"},
		{LabelAutoHealingEnabled, "maybe", "must be a boolean: true/false, yes/no, on/off, y/n, t/f or 1/0"},
		{LabelCalicoIpv4pool, "10.100.0.1/16", "must be written as its network address 10.100.0.0/16"},
		{LabelAPIServerLBAllowedCIDRs, "10.0.0.0/8,foo", `item 2 "foo" must be a CIDR`},
		{LabelAPIServerLBAllowedCIDRs, "10.0.0.0/8,10.0.0.0/8", `item 2 "10.0.0.0/8" repeats item 1`},
		{LabelKubeletTLSCipherSuites, "TLS_RSA_WITH_RC4_128_SHA", `item 1 "TLS_RSA_WITH_RC4_128_SHA" must be one of: TLS_ECDHE`},
		{LabelKubeTag, "1.32.4", "must be a version tag vMAJOR.MINOR.PATCH"},
		{LabelCalicoTag, "v3.0.0", "must be one of: v3.28.5, v3.30.2"},
	} {
		x := violationFor(t, validate(t, c, map[string]string{tc.label: tc.value}), "labels."+tc.label)
		if !strings.Contains(x.Message, tc.want) {
			t.Errorf("%s=%q: message %q, want it to contain %q", tc.label, tc.value, x.Message, tc.want)
		}
	}
}

// Rules across labels: ovn needs SOURCE_IP_PORT, the two allowed-CIDR names
// must agree, networks must not overlap (blaming the label actually set).
func TestCrossLabelRules(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		labels map[string]string
		field  string
		want   string
	}{
		{map[string]string{"octavia_provider": "ovn", "octavia_lb_algorithm": "ROUND_ROBIN"}, "labels.octavia_lb_algorithm", "only SOURCE_IP_PORT"},
		{map[string]string{"api_server_lb_allowed_cidrs": "10.0.0.0/8", "master_lb_allowed_cidrs": "10.0.0.0/16"}, "labels.master_lb_allowed_cidrs", "differs"},
		{map[string]string{"service_cluster_ip_range": "10.100.0.0/24"}, "labels.service_cluster_ip_range", "overlaps the pod network calico_ipv4pool=10.100.0.0/16"},
		{map[string]string{"cilium_ipv4pool": "10.254.0.0/20"}, "labels.cilium_ipv4pool", "overlaps the service network"},
		{map[string]string{"fixed_subnet_cidr": "10.100.5.0/24"}, "labels.fixed_subnet_cidr", "overlaps the pod network"},
		{map[string]string{"min_node_count": "5", "max_node_count": "2"}, "labels.max_node_count", "lower than min_node_count"},
	} {
		x := violationFor(t, validate(t, c, tc.labels), tc.field)
		if !strings.Contains(x.Message, tc.want) {
			t.Errorf("%v: %q, want %q", tc.labels, x.Message, tc.want)
		}
	}
	// Consistent settings pass: a cilium pool moved away from the default
	// does not collide with a service range inside the calico default.
	for _, ok := range []map[string]string{
		{"octavia_provider": "ovn", "octavia_lb_algorithm": "SOURCE_IP_PORT"},
		{"octavia_provider": "amphora", "octavia_lb_algorithm": "LEAST_CONNECTIONS"},
		{"api_server_lb_allowed_cidrs": "10.0.0.0/8", "master_lb_allowed_cidrs": "10.0.0.0/8"},
		{"cilium_ipv4pool": "172.16.0.0/16", "service_cluster_ip_range": "10.100.0.0/16", "fixed_subnet_cidr": "192.168.0.0/24"},
		{"service_cluster_ip_range": "fd00:10::/108"},
	} {
		if vs := validate(t, c, ok); len(vs) > 0 {
			t.Errorf("%v refused: %v", ok, vs)
		}
	}
}

// Label values are strings; YAML numbers and booleans in a document are
// refused with a hint to quote them (Magnum would store "True", not true).
func TestLabelValuesMustBeStrings(t *testing.T) {
	doc := []byte("apiVersion: keel.openkeel.io/v1alpha1\nkind: Cluster\nuuid: 3fa85f64-5717-4562-b3fc-2c963f66afa6\nname: a\nproject_id: p\ncluster_template_id: 3fa85f64-5717-4562-b3fc-2c963f66afa7\nstack_id: kube-abcde\nlabels:\n  boot_volume_size: 20\n  test: true\n")
	vs := Default().ValidateDocument(intent.KindCluster, doc)
	for _, f := range []string{"labels.boot_volume_size", "labels.test"} {
		if x := violationFor(t, vs, f); !strings.Contains(x.Message, "quote") {
			t.Errorf("%s: %q", f, x.Message)
		}
	}
}
