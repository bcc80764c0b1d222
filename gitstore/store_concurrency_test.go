package gitstore

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Concurrent writers that each increment a counter never lose an update:
// every Update is recomputed on the HEAD it commits onto.
func TestUpdateNeverLosesConcurrentWrites(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const writers = 20
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := s.Update(context.Background(), func(sn *Snapshot) (*Commit, error) {
				n := 0
				if b, err := sn.ReadFile("counter"); err == nil {
					n, _ = strconv.Atoi(string(b))
				}
				return &Commit{
					Subject: fmt.Sprintf("writer %d", i),
					Author:  Signature{Name: "t", Email: "t@example.org"},
					Changes: []Change{
						{Path: "counter", Data: []byte(strconv.Itoa(n + 1))},
						{Path: fmt.Sprintf("writers/%02d", i), Data: []byte("x")},
					},
				}, nil
			})
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	sn, err := s.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	b, err := sn.ReadFile("counter")
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != strconv.Itoa(writers) {
		t.Fatalf("counter = %s, want %d", b, writers)
	}
	entries, _ := sn.List("writers")
	if len(entries) != writers {
		t.Fatalf("%d writer files, want %d", len(entries), writers)
	}
	// The git CLI sees one commit per writer plus the initial one.
	out, err := exec.Command("git", "-C", s.Dir(), "rev-list", "--count", Branch).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != strconv.Itoa(writers+1) {
		t.Fatalf("git rev-list --count = %s, want %d", got, writers+1)
	}
}
