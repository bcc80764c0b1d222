package gitstore

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// BenchmarkWriteObject writes the new objects of one cluster create: about
// twenty small ones (intent documents, rendered manifests, trees, the
// commit) and the ~530 KB addon payload, which is the same for every
// cluster but for its last lines (the ConfigMap's name). Every object is
// new. Besides wall time it reports the process's user and system CPU per
// create, which is what the write path competes for on a shared machine.
func BenchmarkWriteObject(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "repo.git"))
	if err != nil {
		b.Fatal(err)
	}
	payload := syntheticManifests(530 << 10)
	rng := rand.New(rand.NewPCG(1, 2))
	small := make([][]byte, 19)
	for i := range small {
		small[i] = syntheticManifests(200 + rng.IntN(4000))
	}
	var before syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	n := 0
	for b.Loop() {
		n++
		uid := fmt.Sprintf("kind: ConfigMap\nmetadata:\n  name: %08x-bench\n", n)
		if _, err := s.writeObject(plumbing.BlobObject, append(payload[:len(payload):len(payload)], uid...)); err != nil {
			b.Fatal(err)
		}
		for i, d := range small {
			if _, err := s.writeObject(plumbing.BlobObject, append(d[:len(d):len(d)], fmt.Sprintf("# %d %d\n", n, i)...)); err != nil {
				b.Fatal(err)
			}
		}
	}
	var after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	b.ReportMetric(float64(cpu(after.Utime)-cpu(before.Utime))/float64(n)/1e3, "user-µs/create")
	b.ReportMetric(float64(cpu(after.Stime)-cpu(before.Stime))/float64(n)/1e3, "sys-µs/create")
}

// syntheticManifests is n bytes of Kubernetes-like YAML, as compressible as
// Calico's manifests (about 6:1 at zlib's fastest level), deterministic.
func syntheticManifests(n int) []byte {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	words := strings.Fields("apiVersion kind metadata name namespace labels spec template containers image " +
		"env value valueFrom fieldRef fieldPath configMapKeyRef key volumeMounts mountPath readOnly " +
		"calico-node kube-system type properties description string object boolean integer array items " +
		"openAPIV3Schema x-kubernetes-preserve-unknown-fields required format int-or-string")
	var sb strings.Builder
	for sb.Len() < n {
		sb.WriteString(strings.Repeat("  ", rng.IntN(8)))
		sb.WriteString(words[rng.IntN(len(words))])
		sb.WriteString(": ")
		for range rng.IntN(4) {
			sb.WriteString(words[rng.IntN(len(words))])
			sb.WriteByte(' ')
		}
		if rng.IntN(6) == 0 {
			fmt.Fprintf(&sb, "%d", rng.IntN(100000))
		}
		sb.WriteByte('\n')
	}
	return []byte(sb.String()[:n])
}
