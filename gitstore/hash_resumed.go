package gitstore

import (
	"bytes"
	"encoding"
	"hash/maphash"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/hash"

	"github.com/openkeel/keel/internal/memo"
)

// The SHA-1 of a large object resumes from a kept state where the object
// begins as one hashed before: the addon payloads of two clusters have the
// same size (so the same "blob <size>\0" header) and the same first chunks.
// A SHA-1 state after some bytes is a function of the state before them and
// those bytes alone, so a state is kept with both (compared byte for byte
// on a hit) and what follows them is hashed as if from the start.
//
// The hash stays go-git's, with SHA-1 collision detection (sha1cd): a chunk
// in which it detects an attack (and hardens the hash) is never kept, nor
// any after it, since a saved state does not carry the detection.

type shaStep struct {
	prev, chunk, next []byte // the state before, the chunk, the state after
}

type shaCache = memo.Map[uint64, *shaStep]

type shaState interface {
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
	CollisionResistantSum([]byte) ([]byte, bool)
}

// hashObject is plumbing.ComputeHash(t, data).
func hashObject(t plumbing.ObjectType, data []byte, size int, cache *shaCache) plumbing.Hash {
	d := hash.New(hash.CryptoType)
	st, ok := d.(shaState)
	if !ok || len(data) < size {
		return plumbing.ComputeHash(t, data)
	}
	_, _ = d.Write([]byte(t.String() + " " + strconv.Itoa(len(data)) + "\x00"))
	state, _ := st.MarshalBinary() // never fails
	for len(data) >= size {
		chunk := data[:size]
		k := shaKey(state, chunk)
		if e, ok := cache.Get(k); ok && bytes.Equal(e.prev, state) && bytes.Equal(e.chunk, chunk) {
			if err := st.UnmarshalBinary(e.next); err == nil {
				state = e.next
				data = data[size:]
				continue
			}
		}
		_, _ = d.Write(chunk)
		data = data[size:]
		if _, col := st.CollisionResistantSum(nil); col {
			break
		}
		next, _ := st.MarshalBinary()
		cache.Put(k, &shaStep{prev: state, chunk: bytes.Clone(chunk), next: next})
		state = next
	}
	_, _ = d.Write(data)
	var h plumbing.Hash
	copy(h[:], d.Sum(nil))
	return h
}

// shaKey finds the step from state over chunk.
func shaKey(state, chunk []byte) uint64 {
	var mh maphash.Hash
	mh.SetSeed(chunkSeed)
	_, _ = mh.Write(state)
	_, _ = mh.Write(chunk)
	return mh.Sum64()
}
