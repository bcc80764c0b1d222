package schemas

import (
	"crypto/tls"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestCatalogueLoads(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	ls := c.Labels()
	if len(ls) < 100 {
		t.Fatalf("catalogue has %d labels, want the whole driver catalogue plus Heat-era labels", len(ls))
	}
	if !sort.SliceIsSorted(ls, func(i, j int) bool { return ls[i].Name < ls[j].Name }) {
		t.Error("Labels() is not sorted by name")
	}
	name := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	for _, l := range ls {
		if !name.MatchString(l.Name) {
			t.Errorf("%s: label names are lowercase snake_case", l.Name)
		}
		if l.Doc == "" || strings.Contains(l.Doc, "#Label") {
			t.Errorf("%s: doc %q is not the label's own comment", l.Name, l.Doc)
		}
		if len(l.Scopes) == 0 {
			t.Errorf("%s: no scope", l.Name)
		}
		if !l.Ignored && l.Target == "" {
			t.Errorf("%s: no target", l.Name)
		}
		if l.Type == TypeEnum && len(l.Allowed) == 0 {
			t.Errorf("%s: enum without allowed values", l.Name)
		}
		if l.Default != "" && l.Derived == "" && l.Type == TypeIgnored {
			t.Errorf("%s: ignored labels have no default", l.Name)
		}
		if got, ok := c.Lookup(l.Name); !ok || got.Name != l.Name {
			t.Errorf("Lookup(%s) = %v, %v", l.Name, got, ok)
		}
	}
	if _, ok := c.Lookup("no_such_label"); ok {
		t.Error("Lookup of an unknown label succeeded")
	}
}

// The labels the brief and the driver spec name must be there with their
// mutability.
func TestCatalogueRequiredLabels(t *testing.T) {
	c := Default()
	immutable := []string{LabelOctaviaProvider, LabelAPIServerLBFlavor, LabelAPIServerLBAvailabilityZone,
		LabelMasterLBFloatingIPEnabled, LabelCalicoIpv4pool, LabelCiliumIpv4pool, LabelServiceClusterIPRange,
		LabelDNSClusterDomain, LabelFixedSubnetCIDR}
	for _, n := range immutable {
		if l, ok := c.Lookup(n); !ok || !l.Immutable {
			t.Errorf("%s must be an immutable catalogue label", n)
		}
	}
	for n, typ := range map[string]string{
		LabelKubeTag: TypeVersion, LabelAPIServerLBAllowedCIDRs: TypeCIDRList, LabelBootVolumeSize: TypeInt,
		LabelAutoHealingEnabled: TypeBool, LabelServerGroupPolicies: TypeEnum, LabelHeatContainerAgentTag: TypeIgnored,
		LabelFlannelTag: TypeIgnored, LabelOIDCIssuerURL: TypeURL,
	} {
		if l, ok := c.Lookup(n); !ok || l.Type != typ {
			t.Errorf("%s: type %q, want %q", n, l.Type, typ)
		}
	}
	for n, def := range map[string]string{
		LabelCalicoIpv4pool: "10.100.0.0/16", LabelServiceClusterIPRange: "10.254.0.0/16", LabelDNSClusterDomain: "cluster.local",
		LabelFixedSubnetCIDR: "10.0.0.0/24", LabelAutoHealingEnabled: "true", LabelKeystoneAuthEnabled: "true",
		LabelMasterLBFloatingIPEnabled: "true", LabelCiliumTag: "v1.15.3", LabelCalicoTag: "v3.30.2", LabelAuditLogMaxAge: "30",
	} {
		if l, _ := c.Lookup(n); l.Default != def {
			t.Errorf("%s: default %q, want %q", n, l.Default, def)
		}
	}
	if l, _ := c.Lookup(LabelBootVolumeSize); !l.InScope(ScopeNodeGroup) || l.Min == nil || *l.Min != 0 {
		t.Errorf("boot_volume_size: %+v", l)
	}
	if l, _ := c.Lookup(LabelGrafanaAdminPasswd); !l.Sensitive || !l.Ignored {
		t.Errorf("grafana_admin_passwd must be ignored and sensitive: %+v", l)
	}
}

// labels_gen.go must list exactly the catalogue (it is regenerated from it).
func TestGeneratedNamesMatchCatalogue(t *testing.T) {
	var names []string
	for _, l := range Default().Labels() {
		names = append(names, l.Name)
	}
	if !slices.Equal(names, generatedLabelNames) {
		t.Errorf("labels_gen.go is stale: run go generate ./schemas")
	}
}

// The cipher suites the schema accepts are ones Go (and so Kubernetes)
// considers secure; the CHACHA20 short names are Kubernetes aliases.
func TestCipherSuitesAreSecure(t *testing.T) {
	secure := map[string]bool{
		"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305": true, "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305": true,
	}
	for _, s := range tls.CipherSuites() {
		secure[s.Name] = true
	}
	l, _ := Default().Lookup(LabelAPIServerTLSCipherSuites)
	for _, a := range l.Allowed {
		if !secure[a] {
			t.Errorf("%s is not a secure Go cipher suite", a)
		}
	}
}

func TestKeelAttributeErrors(t *testing.T) {
	for _, src := range []string{
		`labels: zz_label: #Bool & {default: "true", target: "x"} @keel(scope=everywhere)`,
		`labels: zz_label: #Bool & {default: "true", target: "x"} @keel(scope=cluster,frozen)`,
		`labels: zz_label: #Bool & {default: "true", target: "x"} @keel(immutable)`,
		`labels: zz_label: #Ignored @keel(scope=cluster)`,
	} {
		if _, err := Default().WithSite([]byte("// Doc.\n" + src)); err == nil {
			t.Errorf("%s: accepted", src)
		}
	}
	// A well-formed label added by a site is read like the others.
	c, err := Default().WithSite([]byte("// Site label.\nlabels: zz_label: #Bool & {default: \"true\", target: \"x\"} @keel(scope=cluster,immutable)\n"))
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := c.Lookup("zz_label"); !ok || !l.Immutable || l.Doc != "Site label." || l.Default != "true" {
		t.Errorf("site label: %+v", l)
	}
}
