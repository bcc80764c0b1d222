package gitstore

import (
	"bytes"
	"compress/zlib"
	"io"
	"testing"
)

// Whatever the content and the chunk size, the chunked stream is one valid
// zlib stream (header, blocks, Adler-32) of the header and the content,
// including when chunks come from the cache of earlier inputs.
func FuzzZlibChunked(f *testing.F) {
	f.Add([]byte(""), uint8(1))
	f.Add([]byte("a"), uint8(1))
	f.Add([]byte("abcabcabcabcabcabcabcabc"), uint8(4))
	f.Add(bytes.Repeat([]byte{0xff}, 1000), uint8(255))
	f.Add(syntheticManifests(5000), uint8(77))
	cache := &chunkCache{Max: 16}
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		// Long inputs with tiny chunks only slow the search down.
		data = data[:min(len(data), 4096)]
		hdr := []byte("blob 123\x00")
		z := appendZlibChunked(nil, hdr, data, int(size)+1, cache)
		r, err := zlib.NewReader(bytes.NewReader(z))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if want := append(hdr, data...); !bytes.Equal(got, want) {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}
