package clusterclass

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openkeel/keel/intent"
)

// Without a marker nothing changes. Every phase writes the control
// plane's marker file (so that every phase rolls the control plane); the
// workers' marker stays the trust phase's in the sign phase (so that sign
// rolls no worker). The sign phase alone gives the control plane the
// ca-signer files and kube-controller-manager's signing flags; workers
// never get them.
func TestCARotation(t *testing.T) {
	none := generate(t, tc{})
	noneKCT, _ := md(t, none, "default-worker")
	for _, c := range []struct {
		name, marker, worker string
		signer               bool
	}{
		{"never rotated", "", "", false},
		{"trust", "1-trust", "1-trust", false},
		{"sign", "1-sign", "1-trust", true},
		{"finish", "1-finish", "1-finish", false},
		{"sign of a later rotation", "12-sign", "12-trust", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := generate(t, tc{vars: map[string]any{VarCARotation: c.marker}})
			kct, _ := md(t, st, "default-worker")
			cp := stripCARotation(t, kcp(st), kcpFiles, c.marker, c.signer)
			sameSpec(t, cp, kcp(none), kcpSpecPath)
			workers := stripCARotation(t, kct, kctFiles, c.worker, false)
			sameSpec(t, workers, noneKCT, kctSpecPath)
		})
	}
}

// The kubeadm configuration of the control plane and of the workers (the
// objects' names are random), and kube-controller-manager's arguments.
const (
	kcpSpecPath           = "spec.kubeadmConfigSpec"
	kctSpecPath           = "spec.template.spec"
	controllerManagerArgs = "spec.kubeadmConfigSpec.clusterConfiguration.controllerManager.extraArgs"
)

// stripCARotation asserts that u carries the marker file with marker (none
// for "") and, when signer, the ca-signer files and flags (none
// otherwise), and returns u without them.
func stripCARotation(t *testing.T, u *unstructured.Unstructured, files, marker string, signer bool) *unstructured.Unstructured {
	t.Helper()
	out := u.DeepCopy()
	got := removeListItems(out, files, func(f map[string]any) bool {
		return f["path"] == CARotationMarkerPath || f["contentFrom"] != nil
	})
	want := caSignerFiles(signer)
	if marker != "" {
		want = append(want, map[string]any{"path": CARotationMarkerPath, "owner": "root:root", "permissions": "0644", "content": marker})
	}
	if !reflect.DeepEqual(byPath(got), byPath(want)) {
		t.Errorf("%s: CA rotation files %v, want %v", u.GetKind(), got, want)
	}
	checkSignerArgs(t, out, signer)
	return out
}

// caSignerFiles are the files CABPK fills from the test cluster's
// (kube-abcde) ca-signer Secret.
func caSignerFiles(signer bool) []map[string]any {
	if !signer {
		return nil
	}
	from := func(key string) map[string]any {
		return map[string]any{"secret": map[string]any{"name": "kube-abcde-ca-signer", "key": key}}
	}
	return []map[string]any{
		{"path": CASignerCertPath, "owner": "root:root", "permissions": "0644", "contentFrom": from("tls.crt")},
		{"path": CASignerKeyPath, "owner": "root:root", "permissions": "0600", "contentFrom": from("tls.key")},
	}
}

// checkSignerArgs asserts and removes kube-controller-manager's signing
// flags (present only when signer).
func checkSignerArgs(t *testing.T, u *unstructured.Unstructured, signer bool) {
	t.Helper()
	got := removeListItems(u, controllerManagerArgs, func(a map[string]any) bool {
		return strings.HasPrefix(a["name"].(string), "cluster-signing-")
	})
	var want []map[string]any
	if signer {
		want = []map[string]any{
			{"name": "cluster-signing-cert-file", "value": CASignerCertPath},
			{"name": "cluster-signing-key-file", "value": CASignerKeyPath},
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: kube-controller-manager signing flags %v, want %v", u.GetKind(), got, want)
	}
}

// removeListItems removes the items of the list at path that match, and
// returns them.
func removeListItems(u *unstructured.Unstructured, path string, match func(map[string]any) bool) []map[string]any {
	fields := strings.Split(path, ".")
	list, ok, _ := unstructured.NestedSlice(u.Object, fields...)
	if !ok {
		return nil
	}
	var kept []any
	var removed []map[string]any
	for _, x := range list {
		if m := x.(map[string]any); match(m) {
			removed = append(removed, m)
		} else {
			kept = append(kept, x)
		}
	}
	_ = unstructured.SetNestedSlice(u.Object, kept, fields...)
	return removed
}

func byPath(files []map[string]any) map[any]map[string]any {
	out := map[any]map[string]any{}
	for _, f := range files {
		out[f["path"]] = f
	}
	return out
}

// sameSpec asserts that got's kubeadm configuration is none's.
func sameSpec(t *testing.T, got, none *unstructured.Unstructured, spec string) {
	t.Helper()
	if !reflect.DeepEqual(get(t, got, spec), get(t, none, spec)) {
		t.Errorf("%s: changed beyond the CA rotation's files and flags", got.GetKind())
	}
}

// The variable is the cluster's rotation marker, left out (the class
// default "") for a cluster never rotated.
func TestCARotationValues(t *testing.T) {
	for _, c := range []struct {
		rotation *intent.CARotation
		want     map[string]any
	}{
		{nil, nil},
		{&intent.CARotation{Generation: 1, Phase: intent.CAPhaseTrust}, map[string]any{VarCARotation: "1-trust"}},
		{&intent.CARotation{Generation: 2, Phase: intent.CAPhaseSign}, map[string]any{VarCARotation: "2-sign"}},
		{&intent.CARotation{Generation: 2, Phase: intent.CAPhaseFinish}, map[string]any{VarCARotation: "2-finish"}},
	} {
		got, err := caRotationValues(&Inputs{Documents: &intent.Documents{Cluster: intent.Cluster{CARotation: c.rotation}}})
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: %v, %v; want %v", c.rotation, got, err, c.want)
		}
	}
}
