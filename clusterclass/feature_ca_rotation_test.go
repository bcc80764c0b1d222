package clusterclass

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openkeel/keel/intent"
)

// Without a marker nothing changes; each phase adds the marker file to
// the control plane and every worker (so that every machine rolls), and
// the sign phase alone has the control plane serve the cross-signed CA
// with its certificate.
func TestCARotation(t *testing.T) {
	none := generate(t, tc{})
	noneKCT, _ := md(t, none, "default-worker")
	for _, c := range []struct {
		marker  string
		command bool
	}{
		{"", false},
		{"1-trust", false},
		{"1-sign", true},
		{"1-finish", false},
		{"12-sign", true},
	} {
		t.Run(c.marker, func(t *testing.T) {
			st := generate(t, tc{vars: map[string]any{VarCARotation: c.marker}})
			kct, _ := md(t, st, "default-worker")
			for _, x := range []struct {
				got, none   *unstructured.Unstructured
				spec, files string
			}{{kcp(st), kcp(none), kcpSpecPath, kcpFiles}, {kct, noneKCT, kctSpecPath, kctFiles}} {
				checkMarkerFile(t, x.got, x.none, x.spec, x.files, c.marker)
			}
			cmds := strings_(t, kcp(st), "spec.kubeadmConfigSpec.postKubeadmCommands")
			if want := map[bool][]string{true: {appendCrossToAPIServerCert}}[c.command]; !reflect.DeepEqual(cmds, want) {
				t.Errorf("control plane postKubeadmCommands = %q, want %q", cmds, want)
			}
			absent(t, kct, "spec.template.spec.postKubeadmCommands")
		})
	}
}

// The kubeadm configuration of the control plane and of the workers (the
// objects' names are random).
const (
	kcpSpecPath = "spec.kubeadmConfigSpec"
	kctSpecPath = "spec.template.spec"
)

// checkMarkerFile asserts that got's kubeadm configuration is none's plus,
// with a marker, the marker file (and, in the sign phase, the control
// plane's command).
func checkMarkerFile(t *testing.T, got, none *unstructured.Unstructured, spec, files, marker string) {
	t.Helper()
	noneSpec := get(t, none, spec)
	if marker == "" {
		if contains(filePaths(t, got, files), CARotationMarkerPath) || !reflect.DeepEqual(get(t, got, spec), noneSpec) {
			t.Errorf("%s: changed without a CA rotation", got.GetKind())
		}
		return
	}
	if c := fileContent(t, got, files, CARotationMarkerPath); c != marker {
		t.Errorf("%s: marker %q, want %q", got.GetKind(), c, marker)
	}
	stripped := got.DeepCopy()
	list, _, _ := unstructured.NestedSlice(stripped.Object, strings.Split(files, ".")...)
	var kept []any
	for _, f := range list {
		m := f.(map[string]any)
		if m["path"] != CARotationMarkerPath {
			kept = append(kept, f)
			continue
		}
		if m["owner"] != "root:root" || m["permissions"] != "0644" || m["encoding"] != nil {
			t.Errorf("%s: marker file %v", got.GetKind(), m)
		}
	}
	_ = unstructured.SetNestedSlice(stripped.Object, kept, strings.Split(files, ".")...)
	unstructured.RemoveNestedField(stripped.Object, "spec", "kubeadmConfigSpec", "postKubeadmCommands")
	if !reflect.DeepEqual(get(t, stripped, spec), noneSpec) {
		t.Errorf("%s: changed beyond the marker file", got.GetKind())
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
