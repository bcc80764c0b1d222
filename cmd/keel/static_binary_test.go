package main

import (
	"debug/buildinfo"
	"debug/elf"
	"testing"
)

// keel builds with CGO_ENABLED=0 into a statically linked ELF binary (no
// program interpreter, no shared library needed), as a distroless/static
// or scratch image and ko need; its SQLite driver is the pure-Go one.
func TestKeelBuildsAsAStaticBinary(t *testing.T) {
	bin := keelBinary(t)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the binary has a program interpreter (PT_INTERP): it is dynamically linked")
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	if len(libs) > 0 {
		t.Errorf("the binary needs shared libraries (DT_NEEDED): %v", libs)
	}

	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	deps := map[string]bool{}
	for _, d := range bi.Deps {
		deps[d.Path] = true
	}
	if !deps["modernc.org/sqlite"] {
		t.Error("modernc.org/sqlite (the pure-Go SQLite) is not linked in")
	}
	if deps["github.com/mattn/go-sqlite3"] {
		t.Error("github.com/mattn/go-sqlite3 (cgo) is linked in")
	}
	for _, s := range bi.Settings {
		if s.Key == "CGO_ENABLED" && s.Value != "0" {
			t.Errorf("built with CGO_ENABLED=%s", s.Value)
		}
	}
}
