package compiler

import (
	"maps"
	"strings"
	"testing"

	"github.com/google/uuid"

	cindercsi "github.com/openkeel/keel/addons/cinder-csi"
	manilacsi "github.com/openkeel/keel/addons/manila-csi"
	occm "github.com/openkeel/keel/addons/openstack-cloud-controller-manager"
	"github.com/openkeel/keel/internal/memo"
)

// The cached cloud-provider payload, with a cluster's UUID substituted, is
// byte for byte what rendering the charts for that UUID gives.
func TestCloudProviderPayloadCacheGivesTheRenderedBytes(t *testing.T) {
	combos := []cloudProviderParams{
		{occm: occm.Params{Tag: "v1.33.1"}},
		{occm: occm.Params{Tag: "v1.33.1", Prefix: "registry.example.com/mirror"}, cinderEnabled: true, cinder: cindercsi.Params{Tag: "v1.33.1", VolumeType: "ssd"}},
		{occm: occm.Params{Tag: "v1.32.0"}, cinderEnabled: true, manilaEnabled: true, manila: manilacsi.Params{Tag: "v1.32.0", ShareNetworkID: "5f0c2a1e-share"}},
	}
	c := uuidPayloadCache[cloudProviderParams]{m: memo.Map[cloudProviderParams, uuidPayload]{Max: 8}}
	for _, p := range combos {
		for range 3 {
			id := uuid.NewString()
			got, err := c.get(p, id, p.render)
			if err != nil {
				t.Fatal(err)
			}
			want, err := p.render(id)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, want) {
				t.Fatalf("%+v, uuid %s: the cached payload differs from the rendered one", p, id)
			}
			if !strings.Contains(got[occm.Name+".yaml"], id) {
				t.Fatalf("uuid %s does not reach OCCM's payload", id)
			}
		}
	}
	if n := c.m.Len(); n != len(combos) {
		t.Fatalf("%d payloads kept, want one per label combination (%d)", n, len(combos))
	}
}

// A renderer that does not use the UUID verbatim is caught by the check
// and rendered per cluster, so the cache never changes what it gives.
func TestUUIDPayloadCacheRefusesANonVerbatimUse(t *testing.T) {
	renders := 0
	render := func(id string) (map[string]string, error) {
		renders++
		return map[string]string{"a.yaml": "name: cluster-" + id[:8] + "\nid: " + id + "\n"}, nil
	}
	c := uuidPayloadCache[string]{m: memo.Map[string, uuidPayload]{Max: 8}}
	for range 3 {
		id := uuid.NewString()
		got, err := c.get("k", id, render)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := render(id)
		if !maps.Equal(got, want) {
			t.Fatalf("uuid %s: got %q, want %q", id, got, want)
		}
	}
	if p, _ := c.m.Get("k"); p.ok {
		t.Fatal("a truncated UUID was taken as substitutable")
	}
}

// UUIDs not in canonical form (hand-written repositories) bypass the cache.
func TestUUIDPayloadCacheBypassesNonCanonicalUUIDs(t *testing.T) {
	c := uuidPayloadCache[string]{m: memo.Map[string, uuidPayload]{Max: 8}}
	render := func(id string) (map[string]string, error) { return map[string]string{"a": id}, nil }
	for _, id := range []string{"my-cluster", strings.ToUpper(uuid.NewString()), uuidLow} {
		got, err := c.get("k", id, render)
		if err != nil || got["a"] != id {
			t.Fatalf("%q: got %q, %v", id, got, err)
		}
	}
	if c.m.Len() != 0 {
		t.Fatalf("kept %d payloads for non-canonical UUIDs", c.m.Len())
	}
}
