package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// keel render --site compiles with a site file's defaults; without it the
// catalogue's apply.
func TestRenderSiteFlag(t *testing.T) {
	site := filepath.Join(t.TempDir(), "site.cue")
	if err := os.WriteFile(site, []byte("site: defaults: boot_volume_size: \"50\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	render := func(args ...string) string {
		t.Helper()
		cmd := renderCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(append([]string{"-f", "../../compiler/testdata/calico-basic.input.yaml"}, args...))
		if err := cmd.Execute(); err != nil {
			t.Fatalf("render %v: %v\n%s", args, err, out.String())
		}
		return out.String()
	}
	const bootVolume = "- name: bootVolume\n      value:\n        size: "
	if out := render(); !strings.Contains(out, bootVolume+"0\n") {
		t.Errorf("render without --site: no bootVolume size 0:\n%s", out)
	}
	if out := render("--site", site); !strings.Contains(out, bootVolume+"50\n") {
		t.Errorf("render --site: no bootVolume size 50:\n%s", out)
	}
}
