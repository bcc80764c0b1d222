package lightapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// object is one stored object, immutable once stored (a change stores a
// new one), so watch history and readers share it without copying. Its
// JSON is split in three so the part identical across clusters (an addon
// CRD's schema, a DaemonSet's spec) is held once per process: metadata
// (names, uid, resourceVersion: per cluster), body (everything else but
// status, interned) and status (per cluster: conditions carry times).
type object struct {
	meta   []byte
	body   *blob
	status []byte
}

// blob is interned content, shared by every object with the same bytes.
type blob struct {
	sum  [sha256.Size]byte
	data []byte
	refs int
}

var interned = struct {
	sync.Mutex
	m map[[sha256.Size]byte]*blob
}{m: map[[sha256.Size]byte]*blob{}}

func intern(data []byte) *blob {
	sum := sha256.Sum256(data)
	interned.Lock()
	defer interned.Unlock()
	bl := interned.m[sum]
	if bl == nil {
		bl = &blob{sum: sum, data: data}
		interned.m[sum] = bl
	}
	bl.refs++
	return bl
}

// release drops one reference; the table forgets content nobody stores.
// Watch history may still point at a released blob: it stays valid, it is
// only no longer shared.
func release(bl *blob) {
	interned.Lock()
	defer interned.Unlock()
	if bl.refs--; bl.refs <= 0 {
		delete(interned.m, bl.sum)
	}
}

// newObject splits u into its stored parts, interning the body.
func newObject(u *unstructured.Unstructured) (*object, error) {
	m := make(map[string]any, len(u.Object))
	for k, v := range u.Object {
		m[k] = v
	}
	meta, err := json.Marshal(m["metadata"])
	if err != nil {
		return nil, err
	}
	var status []byte
	if s, ok := m["status"]; ok && s != nil {
		if status, err = json.Marshal(s); err != nil {
			return nil, err
		}
	}
	delete(m, "metadata")
	delete(m, "status")
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return &object{meta: meta, body: intern(body), status: status}, nil
}

// JSON reassembles the object as the client sees it.
func (o *object) JSON() []byte {
	var buf bytes.Buffer
	buf.Grow(len(o.meta) + len(o.body.data) + len(o.status) + 32)
	buf.WriteString(`{"metadata":`)
	buf.Write(o.meta)
	if inner := o.body.data[1 : len(o.body.data)-1]; len(inner) > 0 {
		buf.WriteByte(',')
		buf.Write(inner)
	}
	if o.status != nil {
		buf.WriteString(`,"status":`)
		buf.Write(o.status)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// decode gives a mutable copy of the object.
func (o *object) decode() *unstructured.Unstructured {
	u, err := decodeJSON(o.JSON())
	if err != nil {
		panic("lightapi: stored object does not decode: " + err.Error())
	}
	return u
}

func decodeJSON(data []byte) (*unstructured.Unstructured, error) {
	m := map[string]any{}
	if err := utiljson.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// metadata decodes only the metadata, which selectors and keys need.
func (o *object) metadata() *unstructured.Unstructured {
	m := map[string]any{}
	if err := utiljson.Unmarshal(o.meta, &m); err != nil {
		panic("lightapi: stored metadata does not decode: " + err.Error())
	}
	return &unstructured.Unstructured{Object: map[string]any{"metadata": m}}
}

func (o *object) free() { release(o.body) }
