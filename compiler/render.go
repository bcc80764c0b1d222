package compiler

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/memo"
	"github.com/openkeel/keel/internal/yamlenc"
)

// KustomizationFile is the kustomization of every rendered folder, so that
// the folder is also consumable by a real Flux kustomize-controller.
const KustomizationFile = "kustomization.yaml"

func marshalClean(o client.Object) ([]byte, error) {
	m, err := objectContent(o)
	if err != nil {
		return nil, err
	}
	return yamlenc.MarshalOrFallback(m)
}

// objectContent is o's unstructured content without the fields the API
// server owns.
func objectContent(o client.Object) (map[string]any, error) {
	var m map[string]any
	if u, ok := o.(runtime.Unstructured); ok {
		m = runtime.DeepCopyJSON(u.UnstructuredContent())
	} else {
		var err error
		if m, err = runtime.DefaultUnstructuredConverter.ToUnstructured(o); err != nil {
			return nil, fmt.Errorf("converting %T: %w", o, err)
		}
	}
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
	}
	return m, nil
}

// withKustomization appends a kustomization.yaml listing the documents.
func withKustomization(docs []Document) []Document {
	sort.Slice(docs, func(i, j int) bool { return docs[i].Path < docs[j].Path })
	var b strings.Builder
	b.WriteString("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n")
	for _, d := range docs {
		fmt.Fprintf(&b, "- %s\n", d.Path)
	}
	return append(docs, NewDocument(KustomizationFile, []byte(b.String())))
}

func lowerKind(kind string) string { return strings.ToLower(kind) }

// WithKustomization sorts documents by path and appends the
// kustomization.yaml listing them (for tools that assemble a rendered folder
// from the compiler's documents and others, e.g. encrypted Secrets).
func WithKustomization(docs []Document) []Document { return withKustomization(docs) }

// marshalPayloadConfigMap encodes an addon payload ConfigMap. The payloads
// are large (Calico's is half a megabyte) and YAML-encoding them costs tens
// of milliseconds per cluster, on every API write; a payload that YAML
// writes as a plain literal block is written so directly, giving the bytes
// MarshalObject gives (payload_configmap_encoding_test.go), in a fraction
// of the time. Anything else takes the general path.
//
// known are literal blocks computed ahead, in pieces, for keys of cm.Data
// whose value need not be given then (see uuidPayloadCache.getBlocks); the
// keys must be literal keys.
func marshalPayloadConfigMap(cm *corev1.ConfigMap, known map[string]literal) ([][]byte, error) {
	// The placeholders go into a shallow copy: the payload texts are
	// shared with the payload caches and never copied here but once, into
	// the result.
	small := *cm
	small.Data = make(map[string]string, len(cm.Data))
	type block struct {
		key  string
		text literal
	}
	blocks := map[string]block{} // by the line the placeholder is on
	for k, v := range cm.Data {
		small.Data[k] = v
		text, ok := known[k]
		if !ok && literalKey(k) {
			var b []byte
			b, ok = literalBlock(v)
			text = literal{b}
		}
		if ok {
			small.Data[k] = "keel-literal-" + k
			blocks["  "+k+": keel-literal-"+k] = block{k, text}
		}
	}
	out, err := MarshalObject(&small)
	if err != nil || len(blocks) == 0 {
		return [][]byte{out}, err
	}
	// The result is slices of out and the kept blocks, which are shared
	// with the caches and never copied: a payload is half a megabyte.
	var pieces [][]byte
	run := 0 // start of the lines of out not yet in pieces
	for i := 0; i < len(out); {
		n := bytes.IndexByte(out[i:], '\n')
		if n < 0 {
			break // MarshalObject ends every line, the last too
		}
		blk, ok := blocks[string(out[i:i+n])]
		if ok {
			pieces = append(pieces, out[run:i], []byte("  "+blk.key+": |\n"))
			pieces = append(pieces, blk.text...)
			run = i + n + 1
		}
		i += n + 1
	}
	return append(pieces, out[run:]), nil
}

// literal is a literal block in pieces, which joined are the block.
type literal [][]byte

// literalBlocks keeps the literal blocks of the payloads last encoded, by
// their text: a repository's clusters share a handful of payloads (Calico's
// is half a megabyte), and checking and indenting one is most of the cost
// of encoding its ConfigMap. Looking one up hashes and compares the text,
// an order of magnitude cheaper. nil marks a text that is not literal-safe.
// The blocks are never handed out, only copied into results.
var literalBlocks = memo.Map[string, []byte]{Max: 32}

// literalBlock returns v as the indented body of a literal block, or false
// when YAML would not write v as one.
func literalBlock(v string) ([]byte, bool) {
	blk, found := literalBlocks.Get(v)
	if !found {
		if literalBlockSafe(v) {
			blk = indentBlock(v)
		}
		literalBlocks.Put(v, blk)
	}
	return blk, blk != nil
}

// indentBlock indents every non-empty line of v by four spaces, as the
// YAML encoder writes a literal block under a two-space-indented key.
func indentBlock(v string) []byte {
	b := make([]byte, 0, len(v)+strings.Count(v, "\n")*4)
	for l := range strings.Lines(v) {
		if l != "\n" {
			b = append(b, "    "...)
		}
		b = append(b, l...)
	}
	return b
}

// literalKey: k is a plain word, which YAML writes as it is.
func literalKey(k string) bool {
	return k != "" && !strings.ContainsFunc(k, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	})
}

// literalBlockSafe: v is a text the YAML encoder
// writes as a clipped literal block: printable, no tabs or carriage
// returns, no trailing spaces, no leading space or blank first line, one
// final newline.
func literalBlockSafe(v string) bool {
	if len(v) < 2 || v[0] == ' ' || v[0] == '\n' || !strings.HasSuffix(v, "\n") || strings.HasSuffix(v, "\n\n") {
		return false
	}
	// One pass over the bytes (the payloads are large): printable ASCII
	// and newlines, no space before a newline; anything else beyond ASCII
	// is checked rune by rune.
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\n':
			if i > 0 && v[i-1] == ' ' {
				return false
			}
		case c < 0x20 || c == 0x7f:
			return false
		case c >= 0x80:
			return utf8.ValidString(v) && !strings.ContainsFunc(v, func(r rune) bool {
				return r != '\n' && (r < 0x20 || r == 0x7f || r == 0xfeff || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029)
			}) && !strings.Contains(v, " \n")
		}
	}
	return true
}
