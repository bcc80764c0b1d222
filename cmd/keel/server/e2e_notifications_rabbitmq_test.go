package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"

	"github.com/openkeel/keel/internal/testing/rabbitmqtest"
)

// The outage the issue asks keel to ride out: 50 writes while the broker
// is down for a minute.
const (
	outageWrites = 50
	outageLength = 60 * time.Second
)

// Clusters created and deleted through the API reach a real oslo.messaging
// listener on a real RabbitMQ as Magnum's notifications (event types,
// priority, publisher, CADF payload with the caller as initiator and the
// cluster_data attachment); with the broker stopped for a minute the API
// keeps accepting writes, and once it is back every notification arrives,
// once after deduplication, in order per cluster.
func TestNotificationsReachOsloListener(t *testing.T) {
	t.Parallel() // mostly waiting for the broker's outage
	t0 := time.Now()
	rmq := rabbitmqtest.Start(t)
	t.Logf("broker up in %s", time.Since(t0))
	listener := startOsloListener(t, rmq)
	t.Logf("listener up at %s", time.Since(t0))
	_, sc := startKeelWith(t, "1.10", func(o *Options) {
		o.Notifications = &NotificationOptions{URL: strings.Replace(rmq.URL(), "amqp://", "rabbit://", 1), Host: "keel-test"}
	})
	ctx := context.Background()
	tmpl, err := clustertemplates.Create(ctx, sc, clustertemplates.CreateOpts{Name: "k8s", COE: "kubernetes", ImageID: "img",
		FlavorID: "m1.medium", MasterFlavorID: "m1.large", ExternalNetworkID: "public", Labels: map[string]string{"kube_tag": "v1.33.4"}}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	create := func(name string) string {
		t.Helper()
		one := 1
		id, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: name, ClusterTemplateID: tmpl.UUID, MasterCount: &one, NodeCount: &one}).Extract()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	id := create("n1")
	got := listener.waitFor(t, "create pending", func(r []received) bool { return len(r) >= 1 })
	checkMagnumNotification(t, &got[0], "magnum.cluster.create", "pending", id, "p-"+t.Name())
	if err := clusters.Delete(ctx, sc, id).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	got = listener.waitFor(t, "delete pending", func(r []received) bool { return len(r) >= 2 })
	checkMagnumNotification(t, &got[1], "magnum.cluster.delete", "pending", id, "p-"+t.Name())

	t.Logf("API path checked at %s", time.Since(t0))
	start := time.Now()
	rmq.StopApp()
	t.Logf("broker stopped in %s", time.Since(start))
	var outage []string
	for i := range outageWrites / 2 { // answered without the broker
		id := create(fmt.Sprintf("outage-%d", i))
		if err := clusters.Delete(ctx, sc, id).ExtractErr(); err != nil {
			t.Fatal(err)
		}
		outage = append(outage, id)
	}
	t.Logf("%d writes with the broker down took %s", outageWrites, time.Since(start))
	time.Sleep(time.Until(start.Add(outageLength))) // the broker stays down that long
	restart := time.Now()
	rmq.StartApp()
	t.Logf("broker restarted in %s", time.Since(restart))
	got = listener.waitFor(t, "the notifications of the outage", func(r []received) bool { return countPending(r, "outage-") == outageWrites })
	for _, id := range outage {
		if order := clusterEvents(got, id); strings.Join(order, ",") != "magnum.cluster.create,magnum.cluster.delete" {
			t.Errorf("cluster %s: %v, want its create then its delete", id, order)
		}
	}
	t.Logf("all received %s after the restart; %d received twice (deduplicated by message_id)", time.Since(restart), listener.duplicates())
	t.Logf("received after the outage (deduplicated): %q", summary(got))
}

// clusterEvents are the pending event types received for cluster id, in
// arrival order.
func clusterEvents(rs []received, id string) []string {
	var out []string
	for _, r := range rs {
		if r.target()["id"] == id && r.outcome() == "pending" {
			out = append(out, r.EventType)
		}
	}
	return out
}

func countPending(rs []received, prefix string) int {
	n := 0
	for _, r := range rs {
		if r.outcome() == "pending" && strings.HasPrefix(strOf(r.target()["name"]), prefix) {
			n++
		}
	}
	return n
}

// checkMagnumNotification checks what Magnum's
// notify_about_cluster_operation sends for a request of project.
func checkMagnumNotification(t *testing.T, r *received, eventType, outcome, cluster, project string) {
	t.Helper()
	initiator, _ := r.Payload["initiator"].(map[string]any)
	attachments, _ := r.target()["attachments"].([]any)
	if r.EventType != eventType || r.outcome() != outcome || r.Priority != "INFO" || r.PublisherID != "container-infra.keel-test" ||
		r.Payload["eventType"] != "activity" || r.Payload["typeURI"] != "http://schemas.dmtf.org/cloud/audit/1.0/event" ||
		r.target()["id"] != cluster || r.target()["typeURI"] != "service/magnum/cluster" || len(attachments) != 1 ||
		initiator["project_id"] != project || initiator["typeURI"] != "service/security/account/user" ||
		r.Ctxt["project_id"] != project {
		t.Fatalf("%s %s: %+v", eventType, outcome, r)
	}
	data, _ := attachments[0].(map[string]any)
	content, _ := data["content"].(map[string]any)
	if data["name"] != "cluster_data" || content["project_id"] != project || content["node_count"] != 1.0 || content["master_count"] != 1.0 {
		t.Fatalf("%s %s: cluster_data %+v", eventType, outcome, data)
	}
}
