package server

import (
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
)

// startRealKeelWith is startKeelWith on a management cluster of the test's
// own (the embedded one) where Cluster API's own controllers provision the
// clusters (--cluster-api=real): for the tests whose clusters must
// progress. Microversion mv; edit changes the defaults.
func startRealKeelWith(t *testing.T, mv string, edit func(*Options)) (*Instance, *gophercloud.ServiceClient) {
	t.Helper()
	return startKeelWith(t, mv, func(o *Options) {
		o.Config, o.RealClusterAPI, o.SimulateStep = nil, true, 200*time.Millisecond
		if edit != nil {
			edit(o)
		}
	})
}

// realWait is how long a real-Cluster-API test waits for one status change
// (a create, a resize, a delete): minutes on a loaded 2-core machine.
const realWait = 5 * time.Minute
