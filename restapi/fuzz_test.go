package restapi

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
)

// Parsers must never panic and must answer a client error for bad input.

func FuzzParseBody(f *testing.F) {
	for _, s := range []string{`{}`, `{"name":"x","node_count":3}`, `{"labels":{"a":1.5,"b":true}}`, `[]`, `null`,
		`{"node_count":"3"}`, `{"master_lb_enabled":"yes"}`, `{"links":[]}`, `{"name":null}`, `{"node_count":1e40}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, fields := range [][]field{clusterFields, templateFields, nodeGroupFields, quotaFields, resizeFields} {
			b, err := parseBody(raw, "x", fields)
			if err != nil && err.Status != 400 {
				t.Fatalf("status %d for %q", err.Status, raw)
			}
			if err == nil && b == nil {
				t.Fatalf("nil body without error for %q", raw)
			}
		}
	})
}

func FuzzJSONPatch(f *testing.F) {
	for _, s := range []string{
		`[{"op":"replace","path":"/labels","value":"{'a': 'b'}"}]`,
		`[{"op":"add","path":"/labels/x","value":"y"},{"op":"remove","path":"/labels/x"}]`,
		`[{"op":"replace","path":"/node_taints","value":"[{'key': 'k', 'effect': 'NoSchedule'}]"}]`,
		`[{"op":"add","path":"/node_taints/-","value":"x"}]`, `[{"op":"remove","path":"/name"}]`, `{}`, `[1]`,
	} {
		f.Add([]byte(s))
	}
	doc := map[string]any{"name": "n", "labels": map[string]any{"a": "b"}, "node_taints": []any{"t"}, "flavor": nil, "n": nil}
	rules := patchRules{literal: []string{"/labels", "/node_taints"}, mandatory: []string{"/name"}}
	f.Fuzz(func(t *testing.T, raw []byte) {
		ops, err := parsePatch(raw, rules)
		if err != nil {
			if err.Status != 400 {
				t.Fatalf("status %d", err.Status)
			}
			return
		}
		out, err := applyPatch(doc, ops, rules)
		if err != nil && err.Status != 400 {
			t.Fatalf("status %d", err.Status)
		}
		if err == nil && out == nil {
			t.Fatal("nil document")
		}
		if doc["name"] != "n" || doc["labels"].(map[string]any)["a"] != "b" || len(doc["node_taints"].([]any)) != 1 {
			t.Fatal("applyPatch modified its input")
		}
	})
}

func FuzzPyLiteral(f *testing.F) {
	for _, s := range []string{`{'a': 'b'}`, `{"a": 1, 'b': -2.5e3, 'c': None}`, `[(1, 2), 'x' 'y']`, `{'a': true}`,
		`'\x41\u00e9'`, `{`, `"unterminated`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parsePyLiteral(s)
		if err == nil {
			// What parsed renders back into something that parses to the same.
			again, err := parsePyLiteral(pyRepr(v))
			if err != nil || pyRepr(again) != pyRepr(v) {
				t.Fatalf("%q → %s → %v", s, pyRepr(v), err)
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
		items := []gin.H{{"uuid": "00000000-0000-0000-0000-000000000001", "name": "a", "id": int64(1)}, {"uuid": "00000000-0000-0000-0000-000000000002", "name": "b", "id": int64(2)}}
		page, _, perr := paginate(c, items, 1000, "clusters")
		if perr != nil {
			if e, ok := perr.(*Error); !ok || (e.Status != 400 && e.Status != 404) {
				t.Fatalf("paginate: %v", perr)
			}
		} else if len(page) > 2 {
			t.Fatalf("page of %d", len(page))
		}
		if _, _, perr := paginateByID(c, []gin.H{{"id": int64(1)}, {"id": int64(2)}}, 1000, "quotas"); perr != nil {
			if e, ok := perr.(*Error); !ok || (e.Status != 400 && e.Status != 404) {
				t.Fatalf("paginateByID: %v", perr)
			}
		}
	})
}
