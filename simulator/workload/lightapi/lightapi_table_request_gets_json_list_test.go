package lightapi

import "testing"

// kubectl get asks for a Table with a JSON list as fallback: a server
// that cannot make tables answers the list, which kubectl prints.
func TestTableRequestGetsJSONList(t *testing.T) {
	ctx, srv := testContext(t), newServer(t)
	rc := srv.clientset(t).CoreV1().RESTClient()
	data, err := rc.Get().AbsPath("/api/v1/namespaces").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json").
		DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	u, err := decodeJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	list, err := u.ToList()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, item := range list.Items {
		names = append(names, item.GetName())
	}
	if list.GetKind() != "NamespaceList" || fmtList(names) != "[default kube-node-lease kube-public kube-system]" {
		t.Fatalf("%s %v", list.GetKind(), names)
	}
}
