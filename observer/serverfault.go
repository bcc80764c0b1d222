package observer

import (
	"context"
	"sync"

	"k8s.io/utils/ptr"
	infrav1alpha1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1alpha1"
)

// ServerFaults reads Nova's fault of a server (openstack.Client, as keel's
// service user). The observer needs it because for a server that Nova
// scheduled and put in ERROR (no valid host), CAPO v0.14.7's
// OpenStackServer says only InstanceStateError: the cause is on the Nova
// server.
type ServerFaults interface {
	ServerFault(ctx context.Context, serverID string) (string, error)
}

// maxServerFaults bounds the faults remembered: a server in ERROR stays so,
// and its cluster is observed again at each of its changes.
const maxServerFaults = 1024

// serverFaults are the faults read so far, by server ID.
type serverFaults struct {
	nova ServerFaults
	mu   sync.Mutex
	seen map[string]string
}

// ReadServerFaults makes the observer add Nova's fault to the failure of a
// server in ERROR. Call it before Run.
func (o *Observer) ReadServerFaults(nova ServerFaults) {
	o.faults = &serverFaults{nova: nova, seen: map[string]string{}}
}

// novaFault is ": Nova: <fault>" for the server of s, or "" (no reader, no
// server, no fault, or Nova's error, which is logged: the failure is
// reported without it).
func (o *Observer) novaFault(ctx context.Context, s *infrav1alpha1.OpenStackServer) string {
	id := ptr.Deref(s.Status.InstanceID, "")
	if o.faults == nil || id == "" {
		return ""
	}
	f := o.faults
	f.mu.Lock()
	msg, ok := f.seen[id]
	f.mu.Unlock()
	if !ok {
		var err error
		if msg, err = f.nova.ServerFault(ctx, id); err != nil {
			o.log.Warn("reading Nova's fault of a server in ERROR", "server", id, "err", err)
			return ""
		}
		f.mu.Lock()
		if len(f.seen) >= maxServerFaults {
			clear(f.seen)
		}
		f.seen[id] = msg
		f.mu.Unlock()
	}
	if msg == "" {
		return ""
	}
	return ": Nova: " + msg
}
