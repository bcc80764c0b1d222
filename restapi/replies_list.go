package restapi

// The lists' replies, typed: one page of views and, when the page is full,
// the next page's URL. Fields in the order of their JSON names, as the maps
// they replace marshalled.

// clustersView is GET /v1/clusters (summaries) or /v1/clusters/detail.
type clustersView struct {
	Clusters []any  `json:"clusters"`
	Next     string `json:"next,omitempty"`
}

// templatesView is GET /v1/clustertemplates(/detail).
type templatesView struct {
	ClusterTemplates []templateView `json:"clustertemplates"`
	Next             string         `json:"next,omitempty"`
}

// nodeGroupsView is GET /v1/clusters/{ident}/nodegroups.
type nodeGroupsView struct {
	Next       string             `json:"next,omitempty"`
	NodeGroups []nodeGroupSummary `json:"nodegroups"`
}

// quotasView is GET /v1/quotas.
type quotasView struct {
	Next   string      `json:"next,omitempty"`
	Quotas []quotaView `json:"quotas"`
}

// federationsView is GET /v1/federations: keel has no federations.
type federationsView struct {
	Federations []struct{} `json:"federations"`
}

// quotaView is a quota row. Its timestamps are absent from the default
// quota a project without one is shown (defaultQuotaView).
type quotaView struct {
	CreatedAt *string `json:"created_at"`
	HardLimit int64   `json:"hard_limit"`
	ID        int64   `json:"id"`
	ProjectID string  `json:"project_id"`
	Resource  string  `json:"resource"`
	UpdatedAt *string `json:"updated_at"`
}

// defaultQuotaView is the configured default Magnum shows for a project
// without a quota of its own.
type defaultQuotaView struct {
	HardLimit int64  `json:"hard_limit"`
	ProjectID string `json:"project_id"`
	Resource  string `json:"resource"`
}
