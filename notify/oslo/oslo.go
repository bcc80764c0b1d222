// Package oslo renders Magnum's cluster notifications as oslo.messaging
// sends them: a CADF activity event (pycadf) in a notification message,
// wrapped in the 2.0 envelope the rabbit driver publishes. It is pure: the
// event's facts come in (from the read model's outbox), bytes go out, so a
// resend after a crash or a broker outage is the same message, byte for
// byte, and consumers can deduplicate it by message_id.
package oslo

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Actions and outcomes: pycadf's taxonomy values Magnum uses.
const (
	ActionCreate = "create"
	ActionUpdate = "update"
	ActionDelete = "delete"

	OutcomePending = "pending"
	OutcomeSuccess = "success"
	OutcomeFailure = "failure"
)

// Event is one cluster notification's facts, recorded when the change
// happened. IDs are fixed then too, so that rendering is deterministic.
type Event struct {
	// MessageID is oslo.messaging's message_id, the key consumers
	// deduplicate on; the CADF ids below are derived from it.
	MessageID string    `json:"message_id"`
	Action    string    `json:"action"`
	Outcome   string    `json:"outcome"`
	Time      time.Time `json:"time"`
	Initiator Initiator `json:"initiator"`
	// RequestID is the API request that made the change (empty for a
	// status the observer saw settle).
	RequestID string `json:"request_id,omitempty"`
	// System marks an event keel's own status sync sends, as Magnum's
	// periodic task does with an admin context; Initiator then still
	// names who started the operation (an addition, docs/api.md).
	System bool `json:"system,omitempty"`
	// The target: the cluster's uuid and name, and its data then.
	ClusterUUID string      `json:"cluster_uuid"`
	ClusterName string      `json:"cluster_name"`
	Cluster     ClusterData `json:"cluster"`
	// Commit, for a change that did not come through the API, is the
	// commit it came with (an addition, the attachment "commit").
	Commit *Commit `json:"commit,omitempty"`
	// NodeGroup makes this a nodegroup's notification (an addition:
	// magnum.nodegroup.<action>, the nodegroup as its target, with its
	// nodegroup_data and its cluster's cluster_data).
	NodeGroup *NodeGroupData `json:"nodegroup,omitempty"`
	// Health makes this a change of the cluster's health status (an
	// addition: magnum.cluster.health, action update, outcome success,
	// always priority INFO so that it lands where consumers listen), with
	// the attachment "health".
	Health *HealthChange `json:"health,omitempty"`
}

// HealthChange is a cluster's health status, before and now.
type HealthChange struct {
	Previous string            `json:"previous"`
	Status   string            `json:"health_status"`
	Reason   map[string]string `json:"health_status_reason"`
}

// Commit is the Git commit a change came with when it came from outside
// the API (a merged pull request, a revert, a push): the audit trail of
// who changed the repository, and what for. ID is the commit the read
// model projected; a push of several commits is notified once, at its
// last one.
type Commit struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	Author  string `json:"author"`
}

// Initiator is who made the change: a Keystone user, or, for a commit
// that did not come through the API, the commit's author (Name).
type Initiator struct {
	UserID    string `json:"user_id,omitempty"`
	ProjectID string `json:"project_id,omitempty"`
	DomainID  string `json:"domain_id,omitempty"`
	Name      string `json:"name,omitempty"`
}

// Publisher is who sends: publisher_id is container-infra.<Host>, as
// Magnum's rpc.get_notifier makes it.
type Publisher struct{ Host string }

// EventType is Magnum's magnum.cluster.<action>, or
// magnum.nodegroup.<action> for a nodegroup, magnum.cluster.health for a
// health change.
func (e *Event) EventType() string {
	switch {
	case e.NodeGroup != nil:
		return "magnum.nodegroup." + e.Action
	case e.Health != nil:
		return "magnum.cluster.health"
	}
	return "magnum.cluster." + e.Action
}

// Priority is ERROR for a failure (Magnum calls notifier.error), INFO
// otherwise.
func (e *Event) Priority() string {
	if e.Outcome == OutcomeFailure {
		return "ERROR"
	}
	return "INFO"
}

// RoutingKey is the key oslo.messaging publishes to for topic:
// <topic>.<priority in lower case>.
func (e *Event) RoutingKey(topic string) string {
	return topic + "." + strings.ToLower(e.Priority())
}

// Render returns the AMQP message body: {"oslo.version": "2.0",
// "oslo.message": "<the message as a JSON string>"}, as the rabbit
// driver's serialize_msg makes it.
func Render(e *Event, p Publisher) ([]byte, error) {
	msg, err := json.Marshal(message(e, p))
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{"oslo.version": "2.0", "oslo.message": string(msg)})
}

// message is the notification message: the Notifier's fields, the
// driver's _unique_id and the context packed as _context_* keys.
func message(e *Event, p Publisher) map[string]any {
	m := map[string]any{
		"message_id":   e.MessageID,
		"publisher_id": "container-infra." + p.Host,
		"event_type":   e.EventType(),
		"priority":     e.Priority(),
		"payload":      payload(e),
		// oslo's str(timeutils.utcnow()): naive UTC with microseconds.
		"timestamp": e.Time.UTC().Format("2006-01-02 15:04:05.000000"),
		// The rabbit driver's duplicate check (the last 16 per
		// listener): fixed per message, so a resend is recognised too.
		"_unique_id": strings.ReplaceAll(e.MessageID, "-", ""),
	}
	for k, v := range requestContext(e) {
		m["_context_"+k] = v
	}
	return m
}

// derivedID is a stable CADF id for one part of the event (pycadf makes
// random uuid5s; stable ones make a resend identical).
func derivedID(e *Event, part string) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("urn:keel:notification:"+e.MessageID+":"+part)).String()
}
