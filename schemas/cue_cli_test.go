package schemas

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCueVetAgreesWithVet runs the real cue CLI (cuelang.org/go/cmd/cue
// v0.17.1) on every corpus file, the way docs/schema.md tells users to:
//
//	cue vet -c schemas/*.cue <repo>/site.cue <file> -d '#Document'
//
// and checks it gives the same verdict as Vet. Without cue on PATH the test
// skips, unless KEEL_REQUIRE_CUE=1 (CI), where it fails.
func TestCueVetAgreesWithVet(t *testing.T) {
	cue, err := exec.LookPath("cue")
	if err != nil {
		if os.Getenv("KEEL_REQUIRE_CUE") == "1" {
			t.Fatal("KEEL_REQUIRE_CUE=1 but cue is not on PATH: go install cuelang.org/go/cmd/cue@v0.17.1")
		}
		t.Skip("cue not on PATH (go install cuelang.org/go/cmd/cue@v0.17.1)")
	}
	schema, err := filepath.Glob("*.cue")
	if err != nil || len(schema) == 0 {
		t.Fatalf("schema files: %v %v", schema, err)
	}
	for _, repo := range []string{corpus, "../examples/cluster-repo"} {
		files, err := intentFiles(repo)
		if err != nil {
			t.Fatal(err)
		}
		failed, _, _ := vetVerdicts(t, repo, VetOptions{})
		for _, f := range files {
			args := append([]string{"vet", "-c"}, schema...)
			if _, err := os.Stat(filepath.Join(repo, DefaultSiteFile)); err == nil {
				args = append(args, filepath.Join(repo, DefaultSiteFile))
			}
			args = append(args, filepath.Join(repo, f), "-d", "#Document")
			out, err := exec.Command(cue, args...).CombinedOutput()
			cueFailed := err != nil
			if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
				t.Fatalf("running cue: %v", err)
			}
			if cueFailed != failed[f] {
				t.Errorf("%s/%s: cue vet refused=%v, Vet refused=%v\n%s", repo, f, cueFailed, failed[f], out)
			}
		}
	}
}
