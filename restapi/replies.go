package restapi

// Typed replies of the API's smaller answers. Their fields are declared in
// the order of their JSON names, so that a reply is byte for byte what the
// map it replaces marshalled to.

// link is one of a resource's links (self, bookmark).
type link struct {
	Href string `json:"href"`
	Rel  string `json:"rel"`
}

// uuidReply answers an accepted change of a cluster, as Magnum does:
// only the cluster's uuid.
type uuidReply struct {
	UUID string `json:"uuid"`
}

// statsView is GET /v1/stats.
type statsView struct {
	Clusters int64 `json:"clusters"`
	Nodes    int64 `json:"nodes"`
}

// certificateView is a cluster's CA certificate (GET) or a signed one
// (POST: with the CSR, and the CA type when the request named it).
type certificateView struct {
	CACertType  *string `json:"ca_cert_type,omitempty"`
	ClusterUUID string  `json:"cluster_uuid"`
	CSR         *string `json:"csr,omitempty"`
	Links       []link  `json:"links"`
	PEM         string  `json:"pem"`
}

// mserviceView is one magnum-service (keel's replicas).
type mserviceView struct {
	Binary         string  `json:"binary"`
	CreatedAt      *string `json:"created_at"`
	Disabled       bool    `json:"disabled"`
	DisabledReason *string `json:"disabled_reason"`
	Host           string  `json:"host"`
	ID             int64   `json:"id"`
	ReportCount    int64   `json:"report_count"`
	State          string  `json:"state"`
	UpdatedAt      *string `json:"updated_at"`
}

// mservicesView is GET /v1/mservices.
type mservicesView struct {
	MServices []mserviceView `json:"mservices"`
}
