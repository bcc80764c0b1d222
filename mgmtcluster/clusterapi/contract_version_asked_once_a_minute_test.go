package clusterapi

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The conversion webhooks' contract apiVersion of a kind is read from its
// CRD once a minute, not at every conversion; a failed read is not kept.
func TestContractVersionAskedOnceAMinute(t *testing.T) {
	gk := schema.GroupKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "OpenStackCluster"}
	asked, fail := 0, false
	c := newContractCache(func(context.Context, schema.GroupKind) (string, error) {
		asked++
		if fail {
			return "", errors.New("no CRD")
		}
		return "infrastructure.cluster.x-k8s.io/v1beta1", nil
	})
	now := time.Now()
	c.now = func() time.Time { return now }
	ask := func(want int) {
		t.Helper()
		v, err := c.APIVersion(context.Background(), gk)
		if (err == nil) == fail || asked != want || (err == nil && v != "infrastructure.cluster.x-k8s.io/v1beta1") {
			t.Fatalf("after %d reads: %q, %v; want the CRD read %d times", asked, v, err, want)
		}
	}
	ask(1)
	now = now.Add(59 * time.Second)
	ask(1)
	now = now.Add(2 * time.Second)
	fail = true
	ask(2)
	ask(3)
	fail = false
	ask(4)
	ask(4)
}
