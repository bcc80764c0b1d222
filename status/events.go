package status

import (
	"sort"
	"strings"
	"time"
)

// Event is a Kubernetes Event on one of a cluster's objects. Events are the
// least specific cause: they only fill status_reason while an operation is
// in progress and no condition says why, and never fail an operation (a
// Warning is what Cluster API and CAPO emit for causes they keep retrying).
type Event struct {
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
	// Source is the reporting controller (or the source component).
	Source string `json:"source,omitempty"`
	// At is the last time the Event was seen (lastTimestamp, eventTime or
	// series.lastObservedTime, whichever is newest).
	At time.Time `json:"at"`
}

// EventWarning is core/v1's Warning Event type.
const EventWarning = "Warning"

// KeelEventSource is the component keel's reconciler records its Events
// with. They are never a cause: what they say (an apply retried or stalled)
// already reaches the status from the reconciler's own record (ApplyError,
// ApplyStalled), and once the latest revision is applied they are stale.
const KeelEventSource = "keel"

// eventRanks orders the objects Events are about from the most specific (one
// server, in OpenStack's words) to the least (the whole cluster).
var eventRanks = map[string]int{
	"OpenStackMachine":    0,
	"Machine":             1,
	"KubeadmControlPlane": 2,
	"MachineDeployment":   2,
	"OpenStackCluster":    3,
	"Cluster":             4,
}

// Candidate reports whether e can ever be a cause: a Warning, not keel's own,
// on an object of a cluster.
func (e Event) Candidate() bool {
	_, ranked := eventRanks[e.Kind]
	return ranked && e.Type == EventWarning && e.Source != KeelEventSource
}

func (e Event) text() string {
	msg := strings.TrimSpace(e.Message)
	if msg == "" {
		return e.Kind + " " + e.Name + ": " + e.Reason
	}
	return e.Kind + " " + e.Name + ": " + e.Reason + ": " + msg
}

// CompactEvents keeps, of the candidates, the newest per rank, most specific
// first. That is all EventCause needs whatever its since (if the newest of a
// rank is too old, all of that rank are), and it bounds what an observation
// carries however many Events a cluster has.
func CompactEvents(evs []Event) []Event {
	best := map[int]Event{}
	for _, e := range evs {
		if !e.Candidate() {
			continue
		}
		r := eventRanks[e.Kind]
		if b, ok := best[r]; !ok || newer(e, b) {
			best[r] = e
		}
	}
	out := make([]Event, 0, len(best))
	for _, e := range best {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return eventRanks[out[i].Kind] < eventRanks[out[j].Kind] })
	return out
}

// newer orders Events of one rank, newest first (by name on a tie, so the
// choice does not depend on list order).
func newer(a, b Event) bool {
	if !a.At.Equal(b.At) {
		return a.At.After(b.At)
	}
	return a.Kind+"/"+a.Name < b.Kind+"/"+b.Name
}

// EventCause is the status_reason Events give: the newest Warning of the most
// specific object, among those not older than since (the start of the current
// operation, so that an earlier operation's trouble does not resurface).
func EventCause(evs []Event, since time.Time) string {
	cands := make([]Event, 0, len(evs))
	for _, e := range evs {
		if e.Candidate() && (since.IsZero() || !e.At.Before(since)) {
			cands = append(cands, e)
		}
	}
	if len(cands) == 0 {
		return ""
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if ra, rb := eventRanks[a.Kind], eventRanks[b.Kind]; ra != rb {
			return ra < rb
		}
		return newer(a, b)
	})
	return cands[0].text()
}
