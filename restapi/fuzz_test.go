package restapi

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/body"
)

// Parsers must never panic and must answer a client error for bad input.

func FuzzParseBody(f *testing.F) {
	for _, s := range []string{`{}`, `{"name":"x","node_count":3}`, `{"labels":{"a":1.5,"b":true}}`, `[]`, `null`,
		`{"node_count":"3"}`, `{"master_lb_enabled":"yes"}`, `{"links":[]}`, `{"name":null}`, `{"node_count":1e40}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, fields := range [][]body.Field{clusterFields, templateFields, nodeGroupFields, quotaFields, resizeFields} {
			b, err := body.Parse(raw, "x", fields)
			if err != nil && err.Status != 400 {
				t.Fatalf("status %d for %q", err.Status, raw)
			}
			if err == nil && b == nil {
				t.Fatalf("nil body without error for %q", raw)
			}
		}
	})
}

// The query parsers: microversion negotiation and list parameters.
func FuzzQueryParsers(f *testing.F) {
	for _, s := range []string{"container-infra 1.10", "container-infra latest", "foo 1.x", "", "container-infra 2.1"} {
		f.Add(s, "limit=2&sort_dir=desc&marker=00000000-0000-0000-0000-000000000001")
	}
	gin.SetMode(gin.ReleaseMode)
	f.Fuzz(func(t *testing.T, header, query string) {
		v, _, err := negotiate(header)
		if err == nil && (v.Minor < MinMinor || v.Minor > MaxMinor) {
			t.Fatalf("%q negotiated %v", header, v)
		}
		if err != nil && err.Status != 406 {
			t.Fatalf("%q: status %d", header, err.Status)
		}
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		c.Request = httptest.NewRequest("GET", "/v1/clusters", nil)
		c.Request.URL.RawQuery = strings.ReplaceAll(query, " ", "")
		type view struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
			UUID string `json:"uuid"`
		}
		items := []view{{UUID: "00000000-0000-0000-0000-000000000001", Name: "a", ID: 1}, {UUID: "00000000-0000-0000-0000-000000000002", Name: "b", ID: 2}}
		page, _, perr := paginate(c, items, 1000, "clusters")
		if perr != nil {
			if e, ok := perr.(*apierr.Error); !ok || (e.Status != 400 && e.Status != 404) {
				t.Fatalf("paginate: %v", perr)
			}
		} else if len(page) > 2 {
			t.Fatalf("page of %d", len(page))
		}
		if _, _, perr := paginateBy(c, []quotaView{{ID: 1}, {ID: 2}}, 1000, quotaPager); perr != nil {
			if e, ok := perr.(*apierr.Error); !ok || (e.Status != 400 && e.Status != 404) {
				t.Fatalf("paginateBy(quotas): %v", perr)
			}
		}
	})
}
