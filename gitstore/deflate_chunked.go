package gitstore

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/adler32"
	"hash/maphash"
	"sync"

	"github.com/openkeel/keel/internal/memo"
)

// Large blobs are compressed in chunks so that the bulk they share with
// blobs written before is not compressed again. Every cluster's addon
// payload is half a megabyte of the same manifests ending with its own
// name; compressing it was a sixth of a create's CPU.
//
// A zlib stream is a header, deflate blocks and the Adler-32 of the
// content. Each chunk of the content, cut from the content's start (not the
// object's "blob <size>\0" header, whose length varies), is deflated by a
// fresh compressor ending with a sync flush: a byte-aligned output that
// refers to nothing before it, so the outputs of chunks concatenate into
// one valid deflate stream and each can be kept, by content, in a bounded
// cache. The price is space: each chunk starts with no history to refer
// to, and Calico's manifests come out 10% larger (92 KB, not 83) than as
// one stream; `git gc` packs them again anyway. Larger chunks lose less but
// recompress more of each payload's tail.
const (
	chunkedMin  = 64 << 10 // blobs from this size on are compressed in chunks
	chunkSize   = 64 << 10
	maxChunks   = 64 // kept compressed chunks: about 5 MB (the chunk and its output)
	adlerModulo = 65521
)

// chunkKey finds a kept chunk; the entry's bytes are compared on a hit,
// so a collision of the 64-bit hash costs a compression, never a wrong
// object.
type chunkKey struct {
	sum uint64
	n   int
}

type chunkEntry struct {
	raw   []byte // the chunk, for the comparison on a hit
	z     []byte // its deflate output, ending with a sync flush
	adler uint32 // its Adler-32
}

type chunkCache = memo.Map[chunkKey, *chunkEntry]

var chunkSeed = maphash.MakeSeed()

// flaters are deflate compressors at zlib's fastest level, as the
// whole-stream writers (deflaters, blobs.go) and Git's own loose objects
// (core.looseCompression defaults to 1, best speed; Git reads any level).
var flaters = sync.Pool{New: func() any {
	f := &flater{}
	f.w, _ = flate.NewWriter(&f.buf, flate.BestSpeed) // a valid level: no error
	return f
}}

type flater struct {
	w   *flate.Writer
	buf bytes.Buffer
}

// appendZlibChunked appends to dst the zlib stream of hdr followed by data,
// data deflated in chunks of size bytes kept in cache.
func appendZlibChunked(dst, hdr, data []byte, size int, cache *chunkCache) []byte {
	// 0x78: deflate with a 32 KiB window; 0x01: the fastest level, and
	// 0x7801 is a multiple of 31 as the header's check requires.
	dst = append(dst, 0x78, 0x01)
	// The header as a stored (uncompressed) block: BFINAL 0, BTYPE 00,
	// padded to the byte, then LEN and its complement.
	dst = append(dst, 0)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(hdr)))
	dst = binary.LittleEndian.AppendUint16(dst, ^uint16(len(hdr)))
	dst = append(dst, hdr...)
	sum := adler32.Checksum(hdr)
	for len(data) > 0 {
		n := min(size, len(data))
		e := deflateChunk(data[:n], cache)
		dst = append(dst, e.z...)
		sum = adler32Combine(sum, e.adler, n)
		data = data[n:]
	}
	// The final block: fixed Huffman codes, only the end-of-block code.
	dst = append(dst, 0x03, 0x00)
	return binary.BigEndian.AppendUint32(dst, sum)
}

// deflateChunk returns chunk deflated on its own, from the cache or
// compressed and kept.
func deflateChunk(chunk []byte, cache *chunkCache) *chunkEntry {
	k := chunkKey{sum: maphash.Bytes(chunkSeed, chunk), n: len(chunk)}
	if e, ok := cache.Get(k); ok && bytes.Equal(e.raw, chunk) {
		return e
	}
	f := flaters.Get().(*flater)
	defer flaters.Put(f)
	f.buf.Reset()
	f.w.Reset(&f.buf) // a fresh state: nothing refers to an earlier chunk
	_, _ = f.w.Write(chunk)
	_ = f.w.Flush() // writes to a bytes.Buffer: no error
	e := &chunkEntry{
		raw:   bytes.Clone(chunk),
		z:     bytes.Clone(f.buf.Bytes()),
		adler: adler32.Checksum(chunk),
	}
	cache.Put(k, e)
	return e
}

// adler32Combine is the Adler-32 of a||b from that of a, that of b and b's
// length (zlib's adler32_combine).
func adler32Combine(a, b uint32, lenB int) uint32 {
	rem := uint32(lenB % adlerModulo)
	s1 := a & 0xffff
	s2 := (rem * s1) % adlerModulo
	s1 += (b & 0xffff) + adlerModulo - 1
	s2 += (a >> 16) + (b >> 16) + adlerModulo - rem
	if s1 >= adlerModulo {
		s1 -= adlerModulo
	}
	if s1 >= adlerModulo {
		s1 -= adlerModulo
	}
	if s2 >= adlerModulo<<1 {
		s2 -= adlerModulo << 1
	}
	if s2 >= adlerModulo {
		s2 -= adlerModulo
	}
	return s2<<16 | s1
}
