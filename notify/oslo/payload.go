package oslo

// The CADF payload, as pycadf's Event.as_dict() gives it for Magnum's
// notify_about_cluster_operation.

const (
	cadfEventType     = "http://schemas.dmtf.org/cloud/audit/1.0/event"
	cadfUser          = "service/security/account/user"
	clusterTypeURI    = "service/magnum/cluster"
	cadfTimeLayout    = "2006-01-02T15:04:05.000000+0000"
	clusterDataName   = "cluster_data"
	nodeGroupTypeURI  = "service/magnum/nodegroup"
	nodeGroupDataName = "nodegroup_data"
	commitName        = "commit"
	healthName        = "health"
	commitTypeURI     = "data/git/commit"
	eventTypeActvity  = "activity"
)

// ClusterData is the cluster_data attachment's content, the fields (and
// names) Magnum's _get_event_target copies from the cluster object, with
// its "docker_volume_size:" key as Magnum spells it. Absent values are
// JSON null, as Magnum's None.
type ClusterData struct {
	Status            string            `json:"status"`
	StatusReason      *string           `json:"status_reason"`
	ProjectID         string            `json:"project_id"`
	CreatedAt         *string           `json:"created_at"`
	UpdatedAt         *string           `json:"updated_at"`
	ClusterTemplateID string            `json:"cluster_template_id"`
	Keypair           *string           `json:"keypair"`
	DockerVolumeSize  *int64            `json:"docker_volume_size:"`
	Labels            map[string]string `json:"labels"`
	MasterFlavorID    *string           `json:"master_flavor_id"`
	FlavorID          *string           `json:"flavor_id"`
	StackID           string            `json:"stack_id"`
	HealthStatus      *string           `json:"health_status"`
	CreateTimeout     int64             `json:"create_timeout"`
	APIAddress        *string           `json:"api_address"`
	DiscoveryURL      *string           `json:"discovery_url"`
	NodeAddresses     []string          `json:"node_addresses"`
	MasterAddresses   []string          `json:"master_addresses"`
	NodeCount         int64             `json:"node_count"`
	MasterCount       int64             `json:"master_count"`
}

// NodeGroupData is the nodegroup_data attachment's content: the fields
// of Magnum's NodeGroup object, named as its API names them.
type NodeGroupData struct {
	UUID             string            `json:"uuid"`
	Name             string            `json:"name"`
	ClusterID        string            `json:"cluster_id"`
	ProjectID        string            `json:"project_id"`
	DockerVolumeSize *int64            `json:"docker_volume_size"`
	Labels           map[string]string `json:"labels"`
	FlavorID         *string           `json:"flavor_id"`
	ImageID          *string           `json:"image_id"`
	NodeAddresses    []string          `json:"node_addresses"`
	NodeCount        int64             `json:"node_count"`
	Role             string            `json:"role"`
	MaxNodeCount     *int64            `json:"max_node_count"`
	MinNodeCount     int64             `json:"min_node_count"`
	IsDefault        bool              `json:"is_default"`
	StackID          string            `json:"stack_id"`
	Status           string            `json:"status"`
	StatusReason     *string           `json:"status_reason"`
	Version          *string           `json:"version"`
	CreatedAt        *string           `json:"created_at"`
	UpdatedAt        *string           `json:"updated_at"`
}

type resource struct {
	ID          string       `json:"id"`
	TypeURI     string       `json:"typeURI"`
	Name        string       `json:"name,omitempty"`
	UserID      string       `json:"user_id,omitempty"`
	ProjectID   string       `json:"project_id,omitempty"`
	DomainID    string       `json:"domain_id,omitempty"`
	Attachments []attachment `json:"attachments,omitempty"`
}

type attachment struct {
	TypeURI string `json:"typeURI"`
	Content any    `json:"content"`
	Name    string `json:"name"`
}

type cadfEvent struct {
	TypeURI   string   `json:"typeURI"`
	ID        string   `json:"id"`
	EventType string   `json:"eventType"`
	EventTime string   `json:"eventTime"`
	Action    string   `json:"action"`
	Outcome   string   `json:"outcome"`
	Initiator resource `json:"initiator"`
	Target    resource `json:"target"`
	Observer  resource `json:"observer"`
}

func payload(e *Event) *cadfEvent {
	target := resource{ID: e.ClusterUUID, TypeURI: clusterTypeURI, Name: e.ClusterName}
	if ng := e.NodeGroup; ng != nil {
		target = resource{ID: ng.UUID, TypeURI: nodeGroupTypeURI, Name: ng.Name,
			Attachments: []attachment{{TypeURI: nodeGroupTypeURI, Content: ng, Name: nodeGroupDataName}}}
	}
	target.Attachments = append(target.Attachments, attachment{TypeURI: clusterTypeURI, Content: &e.Cluster, Name: clusterDataName})
	if e.Commit != nil {
		target.Attachments = append(target.Attachments, attachment{TypeURI: commitTypeURI, Content: e.Commit, Name: commitName})
	}
	if e.Health != nil {
		target.Attachments = append(target.Attachments, attachment{TypeURI: clusterTypeURI, Content: e.Health, Name: healthName})
	}
	return &cadfEvent{
		TypeURI:   cadfEventType,
		ID:        derivedID(e, "event"),
		EventType: eventTypeActvity,
		EventTime: e.Time.UTC().Format(cadfTimeLayout),
		Action:    e.Action,
		Outcome:   e.Outcome,
		Initiator: resource{
			ID: derivedID(e, "initiator"), TypeURI: cadfUser, Name: e.Initiator.Name,
			UserID: e.Initiator.UserID, ProjectID: e.Initiator.ProjectID, DomainID: e.Initiator.DomainID,
		},
		Target:   target,
		Observer: resource{ID: derivedID(e, "observer"), TypeURI: target.TypeURI},
	}
}
