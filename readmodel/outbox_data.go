package readmodel

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/notify/oslo"
	"github.com/openkeel/keel/status"
)

// clusterData is Magnum's cluster_data attachment for c: its document, the
// counts of its nodegroups in Git and what the observer saw (capi).
func clusterData(ctx context.Context, ex sqlx.QueryerContext, q func(string) string, c *intent.Cluster, res status.Result, capi string) (oslo.ClusterData, error) {
	d := oslo.ClusterData{
		Status: res.Status, StatusReason: optional(res.StatusReason), ProjectID: c.ProjectID,
		CreatedAt: magnumTime(&c.CreatedAt), UpdatedAt: magnumTime(c.UpdatedAt),
		ClusterTemplateID: c.ClusterTemplateID, Keypair: c.Keypair, DockerVolumeSize: c.DockerVolumeSize,
		Labels: c.Labels, MasterFlavorID: c.MasterFlavorID, FlavorID: c.FlavorID, StackID: c.StackID,
		HealthStatus: c.HealthStatus, CreateTimeout: c.CreateTimeout, DiscoveryURL: c.DiscoveryURL,
		NodeAddresses: []string{}, MasterAddresses: []string{},
	}
	if d.Labels == nil {
		d.Labels = map[string]string{}
	}
	var docs []string
	if err := sqlx.SelectContext(ctx, ex, &docs, q(`SELECT doc FROM nodegroups WHERE cluster_uuid = ?`), c.UUID); err != nil {
		return d, err
	}
	for _, doc := range docs {
		var ng intent.NodeGroup
		if err := json.Unmarshal([]byte(doc), &ng); err != nil {
			return d, err
		}
		switch {
		case ng.Role == intent.RoleMaster:
			d.MasterCount += ng.NodeCount
		case ng.IsDefault:
			// Magnum's cluster.node_count is its default worker's.
			d.NodeCount = ng.NodeCount
		}
	}
	var o *status.Observation
	if capi != "" && json.Unmarshal([]byte(capi), &o) == nil && o != nil {
		d.APIAddress = optional(o.APIAddress)
		d.NodeAddresses, d.MasterAddresses = orEmpty(o.NodeAddresses), orEmpty(o.MasterAddresses)
	}
	// The health the API shows, observed or set by the auto-healer.
	d.HealthStatus, _ = Health(c, res, o, false)
	return d, nil
}

// magnumTime is how oslo's to_primitive writes a datetime.
func magnumTime(t *time.Time) *string {
	if t == nil || t.IsZero() {
		return nil
	}
	s := t.UTC().Format("2006-01-02T15:04:05.000000")
	return &s
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
