package gitstore

import (
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// The record of when commits were written keeps the latest
// maxWrittenTimes and forgets the oldest first.
func TestWrittenTimesBounded(t *testing.T) {
	var w writtenTimes
	hash := func(i int) plumbing.Hash { return plumbing.Hash{byte(i), byte(i >> 8), 1} }
	start := time.Now()
	for i := range maxWrittenTimes + 10 {
		w.add(hash(i), start.Add(time.Duration(i)))
	}
	w.add(hash(maxWrittenTimes+9), start) // written once: the first time stays
	if len(w.at) != maxWrittenTimes || len(w.order) != maxWrittenTimes {
		t.Fatalf("%d times kept (%d in order), want %d", len(w.at), len(w.order), maxWrittenTimes)
	}
	if _, ok := w.at[hash(9)]; ok {
		t.Fatal("the oldest commits are still recorded")
	}
	if got := w.at[hash(maxWrittenTimes+9)]; !got.Equal(start.Add(maxWrittenTimes + 9)) {
		t.Fatalf("the newest commit's time is %v, want its first", got)
	}
}
