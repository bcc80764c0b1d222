package main

import (
	"testing"

	"github.com/spf13/pflag"
)

// Token validation asks for the caller's catalog exactly when the lookups
// are real (they run as the caller with it); with given lookups nothing
// uses it and ?nocatalog keeps Keystone's answers small.
func TestServeKeystoneCatalogFollowsLookups(t *testing.T) {
	for lookups, wantNoCatalog := range map[string]bool{"real": false, "given": true} {
		o := &serveOptions{lookups: lookups}
		o.keystoneFlags(pflag.NewFlagSet("serve", pflag.ContinueOnError))
		k, err := o.keystoneAuth(nil)
		if err != nil {
			t.Fatal(err)
		}
		if k.NoCatalog != wantNoCatalog {
			t.Errorf("--openstack-lookups %s: NoCatalog %v, want %v", lookups, k.NoCatalog, wantNoCatalog)
		}
	}
}
