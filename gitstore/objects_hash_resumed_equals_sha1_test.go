package gitstore

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/hash"
)

// An object's hash resumed from kept SHA-1 states (hash_resumed.go) is
// go-git's hash of it: cold or warm, whether the object shares the first
// chunks of one hashed before or only some of them, whatever its size
// against the chunk boundaries, and when a kept state's key collides.
func TestHashResumedEqualsSHA1(t *testing.T) {
	c := chunkSize
	base := syntheticManifests(4*c + 100)
	changed := func(n, at int) []byte { // n bytes of base, one changed at at
		d := bytes.Clone(base[:n])
		if at < n {
			d[at] ^= 1
		}
		return d
	}
	for _, tc := range []struct {
		name        string
		first, then []byte
		collide     bool // a wrong step kept under each of then's keys
	}{
		{name: "empty", then: nil},
		{name: "one byte", then: base[:1]},
		{name: "chunk-1", then: base[:c-1]},
		{name: "chunk", then: base[:c]},
		{name: "chunk+1", then: base[:c+1]},
		{name: "3 chunks+7, cold", then: base[:3*c+7]},
		{name: "3 chunks+7 after itself", first: base[:3*c+7], then: base[:3*c+7]},
		{name: "same size, last byte differs", first: base[:3*c+7], then: changed(3*c+7, 3*c+6)},
		{name: "same size, second chunk differs", first: base[:3*c+7], then: changed(3*c+7, c+5)},
		{name: "same size, first byte differs", first: base[:3*c+7], then: changed(3*c+7, 0)},
		{name: "other size, same first chunks", first: base[:3*c+7], then: base[:3*c+8]},
		{name: "a blob then the same bytes as a tree", first: base[:2*c], then: base[:2*c]},
		{name: "colliding keys", first: base[:4*c], then: changed(4*c, 2*c+1), collide: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := &shaCache{Max: 64}
			if tc.first != nil {
				if got, want := hashObject(plumbing.BlobObject, tc.first, c, cache), plumbing.ComputeHash(plumbing.BlobObject, tc.first); got != want {
					t.Fatalf("first: %s, want %s", got, want)
				}
			}
			typ := plumbing.BlobObject
			if tc.name == "a blob then the same bytes as a tree" {
				typ = plumbing.TreeObject
			}
			if tc.collide {
				keepWrongSteps(t, typ, tc.then, c, cache)
			}
			if got, want := hashObject(typ, tc.then, c, cache), plumbing.ComputeHash(typ, tc.then); got != want {
				t.Fatalf("%s, want %s", got, want)
			}
		})
	}
}

// keepWrongSteps keeps, under the key of each step of hashing data, a step
// that is not it: from the same state over other bytes, or from another
// state over the same bytes.
func keepWrongSteps(t *testing.T, typ plumbing.ObjectType, data []byte, size int, cache *shaCache) {
	t.Helper()
	d := hash.New(hash.CryptoType)
	_, _ = d.Write([]byte(typ.String() + " " + strconv.Itoa(len(data)) + "\x00"))
	st := d.(shaState)
	for i := 0; len(data) >= size; i++ {
		chunk := data[:size]
		before, _ := st.MarshalBinary()
		other := bytes.Clone(chunk)
		other[0] ^= 0xff
		_, _ = d.Write(other)
		after, _ := st.MarshalBinary()
		if err := st.UnmarshalBinary(before); err != nil {
			t.Fatal(err)
		}
		wrong := &shaStep{prev: before, chunk: other, next: after}
		if i%2 == 1 {
			otherBefore := bytes.Clone(before)
			otherBefore[len(otherBefore)-20] ^= 1
			wrong = &shaStep{prev: otherBefore, chunk: chunk, next: after}
		}
		cache.Put(shaKey(before, chunk), wrong)
		_, _ = d.Write(chunk)
		data = data[size:]
	}
}

// Whatever two objects are hashed one after the other, with whatever chunk
// size, the second's resumed hash is go-git's.
func FuzzHashResumed(f *testing.F) {
	f.Add([]byte("abcdefgh"), []byte("abcdefgX"), uint8(3))
	f.Add([]byte("abcdefgh"), []byte("abcdefghi"), uint8(0))
	f.Add(syntheticManifests(3000), syntheticManifests(3000), uint8(200))
	f.Fuzz(func(t *testing.T, a, b []byte, size uint8) {
		// Long inputs with tiny chunks only slow the search down.
		a, b = a[:min(len(a), 4096)], b[:min(len(b), 4096)]
		cache := &shaCache{Max: 64}
		for _, d := range [][]byte{a, b, a} {
			if got, want := hashObject(plumbing.BlobObject, d, int(size)+1, cache), plumbing.ComputeHash(plumbing.BlobObject, d); got != want {
				t.Fatalf("%q: %s, want %s", d, got, want)
			}
		}
	})
}
