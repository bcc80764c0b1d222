package restapi

// The version documents (GET / and GET /v1), typed; fields in the order of
// their JSON names, as the maps they replace marshalled.

// rootView is GET /: the API's versions.
type rootView struct {
	Description string        `json:"description"`
	Name        string        `json:"name"`
	Versions    []versionView `json:"versions"`
}

// versionView is one API version of rootView.
type versionView struct {
	ID         string `json:"id"`
	Links      []link `json:"links"`
	MaxVersion string `json:"max_version"`
	MinVersion string `json:"min_version"`
	Status     string `json:"status"`
}

// typedLink is a link with a media type (describedby).
type typedLink struct {
	Href string `json:"href"`
	Rel  string `json:"rel"`
	Type string `json:"type,omitempty"`
}

// mediaType is one media type v1 speaks.
type mediaType struct {
	Base string `json:"base"`
	Type string `json:"type"`
}

// v1View is GET /v1: the resources' links.
type v1View struct {
	Certificates     []link      `json:"certificates"`
	Clusters         []link      `json:"clusters"`
	ClusterTemplates []link      `json:"clustertemplates"`
	Credentials      []link      `json:"credentials"`
	Federations      []link      `json:"federations"`
	ID               string      `json:"id"`
	Links            []typedLink `json:"links"`
	MediaTypes       []mediaType `json:"media_types"`
	MServices        []link      `json:"mservices"`
	NodeGroups       []link      `json:"nodegroups"`
	Quotas           []link      `json:"quotas"`
	Stats            []link      `json:"stats"`
}

func newRootView(base string) rootView {
	return rootView{
		Name:        "OpenStack Magnum API",
		Description: "Magnum is an OpenStack project which aims to provide container cluster management.",
		Versions: []versionView{{ID: "v1", Status: "CURRENT", MinVersion: "1.1", MaxVersion: "1.14",
			Links: []link{{Href: base + "/v1/", Rel: "self"}}}},
	}
}

func newV1View(base string) v1View {
	res := func(name string) []link {
		return []link{{Href: base + "/v1/" + name + "/", Rel: "self"}, {Href: base + "/" + name + "/", Rel: "bookmark"}}
	}
	return v1View{
		ID:         "v1",
		MediaTypes: []mediaType{{Base: "application/json", Type: "application/vnd.openstack.magnum.v1+json"}},
		Links: []typedLink{
			{Href: base + "/v1/", Rel: "self"},
			{Href: "http://docs.openstack.org/developer/magnum/dev/api-spec-v1.html", Rel: "describedby", Type: "text/html"},
		},
		ClusterTemplates: res("clustertemplates"), Clusters: res("clusters"), Quotas: res("quotas"),
		Certificates: res("certificates"), MServices: res("mservices"), Stats: res("stats"),
		Federations: res("federations"), Credentials: res("credentials"),
		NodeGroups: []link{
			{Href: base + "/v1/clusters/{cluster_id}/nodegroups", Rel: "self"},
			{Href: base + "/clusters/{cluster_id}/nodegroups", Rel: "bookmark"},
		},
	}
}
