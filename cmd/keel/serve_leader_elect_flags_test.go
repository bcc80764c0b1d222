package main

import (
	"testing"
	"time"

	"github.com/openkeel/keel/cmd/keel/server"
)

// Leader-election timings client-go's elector would panic on are refused
// with an error at start-up; the defaults and a shorter consistent set pass.
func TestLeaderElectTimingValidated(t *testing.T) {
	for _, c := range []struct {
		o  server.Options
		ok bool
	}{
		{server.Options{}, true},
		{server.Options{LeaseDuration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: time.Second}, true},
		{server.Options{LeaseDuration: 5 * time.Second}, false}, // not longer than the 10 s renew deadline
		{server.Options{RetryPeriod: 9 * time.Second}, false},   // 1.2 × 9 s > the 10 s renew deadline
	} {
		if err := server.ValidateLeaseTiming(c.o); (err == nil) != c.ok {
			t.Errorf("%+v: err = %v, want ok=%v", [3]time.Duration{c.o.LeaseDuration, c.o.RenewDeadline, c.o.RetryPeriod}, err, c.ok)
		}
	}
}
