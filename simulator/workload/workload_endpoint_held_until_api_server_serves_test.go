package workload

import (
	"fmt"
	"net"
	"strconv"
	"testing"
)

// A light cluster's endpoint is held from registration until its API
// server serves on it: no other cluster is given the same port, and no
// other socket can bind it meanwhile (a port only looked up and let go
// was once handed to a second cluster, whose machines then met the first
// cluster's certificate).
func TestEndpointHeldUntilAPIServerServes(t *testing.T) {
	ports := map[int32]string{}
	for i := range 50 {
		c, _ := newCluster(t, fmt.Sprintf("held-%d", i))
		host, port := c.Endpoint()
		if other, dup := ports[port]; dup {
			t.Fatalf("clusters %s and %s share the endpoint port %d", other, c.Name(), port)
		}
		ports[port] = c.Name()
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(int(port))))
		if err == nil {
			_ = ln.Close()
			t.Fatalf("cluster %s: its endpoint %s:%d is free for anyone to bind before its API server starts", c.Name(), host, port)
		}
	}
}
