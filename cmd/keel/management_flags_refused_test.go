package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// keel management refuses a bad flag with an error naming it, before it
// starts anything.
func TestManagementFlagsRefused(t *testing.T) {
	ok := managementOptions{dataDir: t.TempDir(), workloadAPIServers: "light", logLevel: "info", simulateStep: time.Second}
	for _, c := range []struct {
		flag string
		set  func(o *managementOptions)
	}{
		{"--log-level", func(o *managementOptions) { o.logLevel = "loud" }},
		{"--workload-apiservers", func(o *managementOptions) { o.workloadAPIServers = "heavy" }},
		{"--simulate-step", func(o *managementOptions) { o.simulateStep = -time.Second }},
		{"--profiler-address", func(o *managementOptions) { o.profiler = "not an address" }},
	} {
		o := ok
		c.set(&o)
		err := runManagement(context.Background(), &o)
		if err == nil || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%s: err = %v, want an error naming the flag", c.flag, err)
		}
	}
}
