package restapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// The views of clusters, nodegroups and templates keep Magnum's wire
// shape: the same keys, present or absent, and null where Magnum gives
// null (clients rely on both), in lists, detailed lists and shows.
func TestViewsWireShape(t *testing.T) {
	a := newTestAPI(t)
	tm := a.template(member, "t1", nil)
	id := a.cluster(member, "c1", tm.UUID, 2)
	a.complete(id)
	shape := func(path, mv, list string) string {
		t.Helper()
		r := a.do(member, mv, "GET", path, nil)
		if r.status != 200 {
			t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
		var obj map[string]any
		if list == "" {
			obj = r.json(t)
		} else {
			var m map[string][]map[string]any
			if err := json.Unmarshal(r.body, &m); err != nil || len(m[list]) == 0 {
				t.Fatalf("GET %s: %v %s", path, err, r.body)
			}
			obj = m[list][0]
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			kind := "null"
			switch obj[k].(type) {
			case string:
				kind = "string"
			case float64:
				kind = "number"
			case bool:
				kind = "bool"
			case map[string]any:
				kind = "object"
			case []any:
				kind = "array"
			}
			parts = append(parts, fmt.Sprintf("%s:%s", k, kind))
		}
		return strings.Join(parts, " ")
	}
	for _, tc := range []struct{ path, mv, list, want string }{
		{"/v1/clusters", "1.12", "clusters", "cluster_template_id:string create_timeout:number docker_volume_size:null flavor_id:string health_status:null keypair:null labels:object links:array master_count:number master_flavor_id:string merge_labels:bool name:string node_count:number stack_id:string status:string uuid:string"},
		{"/v1/clusters", "1.13", "clusters", "cluster_id:string cluster_template_id:string create_timeout:number docker_volume_size:null flavor_id:string health_status:null keypair:null labels:object links:array master_count:number master_flavor_id:string merge_labels:bool name:string node_count:number status:string uuid:string"},
		{"/v1/clusters/detail", "1.13", "clusters", "api_address:string cluster_id:string cluster_template_id:string coe_version:string container_version:null create_timeout:number created_at:string discovery_url:null docker_volume_size:null fixed_network:null fixed_subnet:null flavor_id:string floating_ip_enabled:bool health_status:null health_status_reason:object keypair:null labels:object labels_added:object labels_overridden:object labels_skipped:object links:array master_addresses:array master_count:number master_flavor_id:string master_lb_enabled:bool merge_labels:bool name:string node_addresses:array node_count:number project_id:string status:string status_reason:null updated_at:string user_id:string uuid:string"},
		{"/v1/clusters/c1", "1.13", "", "api_address:string cluster_id:string cluster_template_id:string coe_version:string container_version:null create_timeout:number created_at:string discovery_url:null docker_volume_size:null fixed_network:null fixed_subnet:null flavor_id:string floating_ip_enabled:bool health_status:null health_status_reason:object keypair:null labels:object labels_added:object labels_overridden:object labels_skipped:object links:array master_addresses:array master_count:number master_flavor_id:string master_lb_enabled:bool merge_labels:bool name:string node_addresses:array node_count:number project_id:string status:string status_reason:null updated_at:string user_id:string uuid:string"},
		{"/v1/clusters/c1/nodegroups", "1.13", "nodegroups", "flavor_id:string image_id:string is_default:bool max_node_count:null merge_labels:bool min_node_count:number name:string node_count:number role:string stack_id:string status:string uuid:string"},
		{"/v1/clusters/c1/nodegroups/default-worker", "1.13", "", "cluster_id:string created_at:string docker_volume_size:null flavor_id:string id:number image_id:string is_default:bool labels:object labels_added:object labels_overridden:object labels_skipped:object links:array max_node_count:null merge_labels:bool min_node_count:number name:string node_addresses:array node_count:number node_labels:null node_taints:null project_id:string role:string stack_id:string status:string status_reason:null updated_at:null uuid:string version:string"},
		{"/v1/clustertemplates", "1.13", "clustertemplates", "apiserver_port:null cluster_distro:null coe:string created_at:string dns_nameserver:null docker_storage_driver:null docker_volume_size:null driver:null external_network_id:string fixed_network:null fixed_subnet:null flavor_id:string floating_ip_enabled:bool hidden:bool http_proxy:null https_proxy:null image_id:string insecure_registry:null keypair_id:null labels:object links:array master_flavor_id:string master_lb_enabled:bool name:string network_driver:string no_proxy:null project_id:string public:bool registry_enabled:bool server_type:string tags:null tls_disabled:bool updated_at:null user_id:string uuid:string volume_driver:null"},
		{"/v1/clustertemplates/t1", "1.13", "", "apiserver_port:null cluster_distro:null coe:string created_at:string dns_nameserver:null docker_storage_driver:null docker_volume_size:null driver:null external_network_id:string fixed_network:null fixed_subnet:null flavor_id:string floating_ip_enabled:bool hidden:bool http_proxy:null https_proxy:null image_id:string insecure_registry:null keypair_id:null labels:object links:array master_flavor_id:string master_lb_enabled:bool name:string network_driver:string no_proxy:null project_id:string public:bool registry_enabled:bool server_type:string tags:null tls_disabled:bool updated_at:null user_id:string uuid:string volume_driver:null"},
	} {
		if got := shape(tc.path, tc.mv, tc.list); got != tc.want {
			t.Errorf("%s at %s:\n got %s\nwant %s", tc.path, tc.mv, got, tc.want)
		}
	}
}
