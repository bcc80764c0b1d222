package openstack

import (
	"context"
	"strings"
	"testing"
)

// Against the real Nova: a server that Nova scheduled and put in ERROR (no
// host left for a hard anti-affinity group) has a fault, and ServerFault
// reads its message as keel's service user; a server that is gone has
// none.
func TestRealOpenStackServerFaultReadsNovasMessage(t *testing.T) {
	t.Parallel() // each in a project of its own: the server waits overlap the rest
	cloud, c := realCloud(t)
	p := cloud.NewProject(t)
	id := p.ServerWithNoValidHost(t)
	got, err := c.ServerFault(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if want := "No valid host was found"; !strings.Contains(got, want) {
		t.Fatalf("fault %q, want it to contain %q", got, want)
	}
	if got, err := c.ServerFault(context.Background(), "00000000-0000-0000-0000-000000000000"); err != nil || got != "" {
		t.Fatalf("a server that does not exist: fault %q, %v; want none", got, err)
	}
}
