package addons

import (
	"strings"
	"testing"
	"testing/fstest"
)

// A chart that depends on Bitnami's common library renders with keel's
// stand-in: its standard labels, the release's namespace, and Lists
// flattened; an empty document and null fields are dropped.
func TestChartWithCommonLibrary(t *testing.T) {
	files := fstest.MapFS{
		"c/Chart.yaml":  {Data: []byte("apiVersion: v2\nname: demo\nversion: 1.2.3\ndependencies:\n- name: common\n  version: 2.14.1\n  repository: https://charts.bitnami.com/bitnami\n")},
		"c/values.yaml": {Data: []byte("greeting: hello\n")},
		"c/templates/cm.yaml": {Data: []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
  labels: {{- include "common.labels.standard" . | nindent 4 }}
  annotations:
data:
  greeting: {{ .Values.greeting }}
---
# nothing
`)},
		"c/templates/list.yaml": {Data: []byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ServiceAccount\n  metadata:\n    name: sa\n")},
	}
	objs, err := RenderChart(files, "c", Release{Name: "r", Namespace: "kube-system"}, map[string]any{"greeting": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Marshal(objs)
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: v1
kind: ServiceAccount
metadata:
  name: sa
---
apiVersion: v1
data:
  greeting: hi
kind: ConfigMap
metadata:
  labels:
    app.kubernetes.io/instance: r
    app.kubernetes.io/managed-by: Helm
    app.kubernetes.io/name: demo
    helm.sh/chart: demo-1.2.3
  name: r
  namespace: kube-system
`
	if string(out) != want {
		t.Fatalf("rendered:\n%s\nwant:\n%s", out, want)
	}
	if strings.Contains(string(out), "null") {
		t.Error("null left in the output")
	}
}
