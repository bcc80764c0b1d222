package schemas

import (
	"strings"
	"testing"
)

func TestWithDefaults(t *testing.T) {
	c := Default()
	in := map[string]string{"boot_volume_size": "20", "test": "x"}
	got := c.WithDefaults(in)
	if len(in) != 2 {
		t.Fatal("input modified")
	}
	for k, want := range map[string]string{"boot_volume_size": "20", "test": "x", "service_cluster_ip_range": "10.254.0.0/16", "auto_healing_enabled": "true"} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q", k, got[k], want)
		}
	}
	if _, ok := got["cloud_provider_tag"]; ok {
		t.Error("cloud_provider_tag has no static default (it is derived from kube_tag)")
	}
	// Every filled default is valid.
	if vs := validate(t, c, got); len(vs) != 0 {
		t.Errorf("defaults do not validate: %v", vs)
	}
}

func TestTypedAccessors(t *testing.T) {
	c := Default()
	labels := map[string]string{"auto_scaling_enabled": "Yes", "boot_volume_size": " 1_0 ", "audit_log_enabled": "maybe"}
	if b, err := c.Bool(labels, LabelAutoScalingEnabled); err != nil || !b {
		t.Errorf("Bool = %v, %v", b, err)
	}
	if b, err := c.Bool(labels, LabelAutoHealingEnabled); err != nil || !b {
		t.Errorf("Bool default = %v, %v", b, err)
	}
	if _, err := c.Bool(labels, LabelAuditLogEnabled); err == nil || !strings.Contains(err.Error(), "audit_log_enabled") {
		t.Errorf("bad bool: %v", err)
	}
	if n, err := c.Int(labels, LabelBootVolumeSize); err != nil || n != 10 {
		t.Errorf("Int = %d, %v", n, err)
	}
	if n, err := c.Int(nil, LabelAuditLogMaxAge); err != nil || n != 30 {
		t.Errorf("Int default = %d, %v", n, err)
	}
	if _, err := c.Int(nil, LabelMaxNodeCount); err == nil {
		t.Error("Int without value or default succeeded")
	}
	if _, err := c.Int(labels, LabelAutoScalingEnabled); err == nil {
		t.Error("Int of a bool label succeeded")
	}
	if _, err := c.Bool(labels, "no_such_label"); err == nil {
		t.Error("Bool of an unknown label succeeded")
	}
	if s := c.String(nil, LabelDNSClusterDomain); s != "cluster.local" {
		t.Errorf("String default = %q", s)
	}
	if s := c.String(map[string]string{"test": "x"}, "test"); s != "x" {
		t.Errorf("String unknown = %q", s)
	}
}
