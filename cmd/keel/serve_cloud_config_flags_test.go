package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// --os-region, --os-interface and --os-cacert reach what every cluster's
// clouds.yaml and cloud.conf say about the cloud; an interface OpenStack
// does not have, or a CA bundle that cannot be read, stops keel at start.
func TestServeCloudConfigFlags(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, env := range []string{"OS_REGION_NAME", "OS_INTERFACE", "OS_ENDPOINT_TYPE", "OS_CACERT"} {
		t.Setenv(env, "")
	}
	for _, c := range []struct {
		args                []string
		region, iface, cert string
		err                 string
	}{
		{args: nil},
		{args: []string{"--os-region", "RegionTwo", "--os-interface", "internalURL", "--os-cacert", ca}, region: "RegionTwo", iface: "internal", cert: "MIIB"},
		{args: []string{"--os-interface", "admin"}, iface: "admin"},
		{args: []string{"--os-interface", "private"}, err: "--os-interface"},
		{args: []string{"--os-cacert", ca + ".missing"}, err: "--os-cacert"},
	} {
		o := &serveOptions{}
		f := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		o.keystoneFlags(f)
		f.StringVar(&o.region, "os-region", "", "")
		if err := f.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		cc, err := o.cloudConfig()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: err %v, want one naming %s", c.args, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if cc.RegionName != c.region || cc.Interface != c.iface || !strings.Contains(cc.CACert, c.cert) || (c.cert == "") != (cc.CACert == "") {
			t.Errorf("%v: %+v", c.args, cc)
		}
	}
}
