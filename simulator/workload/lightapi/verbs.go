package lightapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// call is one request on a resource.
type call struct {
	w   http.ResponseWriter
	r   *http.Request
	res *resource
	rp  reqPath
	q   url.Values
}

func (c *call) dry() bool { return c.q.Get("dryRun") == "All" }

func (c *call) apiVersion() string { return c.res.apiVersion(c.rp.version) }

func (h *handler) serveResource(w http.ResponseWriter, r *http.Request, rp reqPath) {
	res := h.s.lookup(rp.group, rp.version, rp.resource)
	if res == nil || !res.namespaced && rp.namespace != "" || !subresourceServed(res, rp.sub) {
		writeError(w, notFoundResource())
		return
	}
	c := &call{w: w, r: r, res: res, rp: rp, q: r.URL.Query()}
	verb := h.verbs()[r.Method+kindOfPath(rp, c.q)]
	if verb == nil {
		writeError(w, apierrors.NewMethodNotSupported(qualified(res), r.Method))
		return
	}
	verb(c)
}

func notFoundResource() error {
	err := apierrors.NewNotFound(schema.GroupResource{}, "")
	err.ErrStatus.Message = "the server could not find the requested resource"
	return err
}

func subresourceServed(r *resource, sub string) bool {
	return sub == "" || sub == "status" && r.hasStatus || sub == "eviction" && r.gr() == "/pods"
}

// kindOfPath tells collection, object and subresource requests apart.
func kindOfPath(rp reqPath, q url.Values) string {
	switch {
	case rp.name == "" && (rp.watch || q.Get("watch") == "true" || q.Get("watch") == "1"):
		return " watch"
	case rp.name == "":
		return " collection"
	case rp.sub == "eviction":
		return " eviction"
	}
	return " object"
}

func (h *handler) verbs() map[string]func(*call) {
	return map[string]func(*call){
		"GET object":        h.get,
		"GET collection":    h.list,
		"GET watch":         h.watch,
		"POST collection":   h.create,
		"POST eviction":     h.evict,
		"PUT object":        h.update,
		"PATCH object":      h.patch,
		"DELETE object":     h.delete,
		"DELETE collection": h.deleteCollection,
	}
}

// maxBody is a real server's request size limit.
const maxBody = 3 << 20

// body reads the request as JSON (YAML converted).
func (c *call) body() ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(c.r.Body, maxBody+1))
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if len(data) > maxBody {
		return nil, apierrors.NewRequestEntityTooLargeError("limit is 3145728")
	}
	if strings.HasPrefix(c.r.Header.Get("Content-Type"), protobufType) {
		return fromProtobuf(data)
	}
	if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		if data, err = yaml.YAMLToJSON(data); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	}
	return data, nil
}

// object decodes the request's object, defaulting apiVersion and kind from
// the path as a real server's decoder does and refusing another kind.
func (c *call) object() (*unstructured.Unstructured, error) {
	data, err := c.body()
	if err != nil {
		return nil, err
	}
	u, err := decodeJSON(data)
	if err != nil {
		return nil, apierrors.NewBadRequest("the object provided is unrecognized: " + err.Error())
	}
	return u, c.checkKind(u)
}

func (c *call) checkKind(u *unstructured.Unstructured) error {
	if u.GetKind() == "" {
		u.SetKind(c.res.kind)
	}
	if u.GetAPIVersion() == "" {
		u.SetAPIVersion(c.apiVersion())
	}
	if u.GetKind() != c.res.kind || !c.res.serves(u.GroupVersionKind().Version) || u.GroupVersionKind().Group != c.res.group {
		return apierrors.NewBadRequest("the API version in the data (" + u.GetAPIVersion() + ") and kind (" + u.GetKind() + ") do not match the expected " + c.apiVersion() + " " + c.res.kind)
	}
	if u.Object["metadata"] == nil {
		u.Object["metadata"] = map[string]any{}
	}
	if _, ok := u.Object["metadata"].(map[string]any); !ok {
		return apierrors.NewBadRequest("metadata must be an object")
	}
	return nil
}

// inPath puts the path's namespace and name on u, refusing others.
func (c *call) inPath(u *unstructured.Unstructured) error {
	if c.res.namespaced && u.GetNamespace() == "" {
		u.SetNamespace(c.rp.namespace)
	}
	if !c.res.namespaced {
		u.SetNamespace("")
	}
	if u.GetNamespace() != c.rp.namespace {
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	if c.rp.name != "" && u.GetName() != c.rp.name {
		return apierrors.NewBadRequest("the name of the object (" + u.GetName() + ") does not match the name on the URL (" + c.rp.name + ")")
	}
	if u.GetName() == "" && u.GetGenerateName() == "" {
		return apierrors.NewInvalid(u.GroupVersionKind().GroupKind(), "",
			field.ErrorList{field.Required(field.NewPath("metadata", "name"), "name or generateName is required")})
	}
	return nil
}

// reply writes o in the version the request named.
func (c *call) reply(code int, o *object) {
	writeRaw(c.w, code, c.render(o))
}

// partial reports a request for metadata only, as client-go's metadata
// client and controller-runtime's metadata-only caches make it.
func (c *call) partial() bool {
	a := c.r.Header.Get("Accept")
	return strings.Contains(a, "as=PartialObjectMetadata") && strings.Contains(a, "g=meta.k8s.io")
}

// render is o as the request asked for it: whole, in the version the path
// names, or its metadata only.
func (c *call) render(o *object) []byte {
	if !c.partial() {
		return versioned(o, c.apiVersion())
	}
	var buf bytes.Buffer
	buf.WriteString(`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":`)
	buf.Write(o.meta)
	buf.WriteByte('}')
	return buf.Bytes()
}

// versioned is o's JSON under apiVersion: CRD versions share storage.
func versioned(o *object, apiVersion string) []byte {
	data := o.JSON()
	if bytes.Contains(o.body.data, []byte(`"apiVersion":"`+apiVersion+`"`)) {
		return data
	}
	u := o.decode()
	u.SetAPIVersion(apiVersion)
	out, _ := u.MarshalJSON()
	return out
}

func (h *handler) get(c *call) {
	o := h.s.getObject(c.res, c.rp.namespace, c.rp.name)
	if o == nil {
		writeError(c.w, apierrors.NewNotFound(qualified(c.res), c.rp.name))
		return
	}
	c.reply(http.StatusOK, o)
}

func (s *Store) getObject(r *resource, ns, name string) *object {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.get(r.gr(), ns, name)
}

// list answers every match at once: limit and continue are ignored, which
// a server may do.
func (h *handler) list(c *call) {
	f, err := newFilter(c.rp.namespace, c.q)
	if err != nil {
		writeError(c.w, err)
		return
	}
	objs, rv := h.s.list(c.res, c.rp.namespace)
	var buf bytes.Buffer
	kind, apiVersion := c.res.kind+"List", c.apiVersion()
	if c.partial() {
		kind, apiVersion = "PartialObjectMetadataList", "meta.k8s.io/v1"
	}
	buf.WriteString(`{"kind":"` + kind + `","apiVersion":"` + apiVersion + `","metadata":{"resourceVersion":"` + strconv.FormatUint(rv, 10) + `"},"items":[`)
	n := 0
	for _, o := range objs {
		if !f.matches(o) {
			continue
		}
		if n++; n > 1 {
			buf.WriteByte(',')
		}
		buf.Write(c.render(o))
	}
	buf.WriteString("]}")
	writeRaw(c.w, http.StatusOK, buf.Bytes())
}

func (s *Store) list(r *resource, ns string) ([]*object, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listLocked(r.gr(), ns), s.rv
}

func (h *handler) create(c *call) {
	u, err := c.object()
	if err == nil {
		err = c.inPath(u)
	}
	if err != nil {
		writeError(c.w, err)
		return
	}
	o, err := h.s.create(c.res, u, c.dry())
	if err != nil {
		writeError(c.w, err)
		return
	}
	c.reply(http.StatusCreated, o)
}

func (s *Store) create(r *resource, u *unstructured.Unstructured, dry bool) (*object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.createLocked(r, u, dry)
}

func (h *handler) update(c *call) {
	u, err := c.object()
	if err == nil {
		err = c.inPath(u)
	}
	if err != nil {
		writeError(c.w, err)
		return
	}
	o, _, err := h.s.write(c.res, c.rp.namespace, c.rp.name, c.rp.sub, c.dry(), false,
		func(*unstructured.Unstructured) (*unstructured.Unstructured, error) { return u, nil })
	if err != nil {
		writeError(c.w, err)
		return
	}
	c.reply(http.StatusOK, o)
}

// write replaces the object with what change makes of it (cur nil when
// missing: then created if create allows it). change must not modify cur,
// which is compared with its result.
func (s *Store) write(r *resource, ns, name, sub string, dry, create bool, change func(cur *unstructured.Unstructured) (*unstructured.Unstructured, error)) (*object, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.get(r.gr(), ns, name)
	if cur == nil && (!create || sub != "") {
		return nil, false, apierrors.NewNotFound(qualified(r), name)
	}
	var curU *unstructured.Unstructured
	if cur != nil {
		curU = cur.decode()
	}
	next, err := change(curU)
	if err != nil {
		return nil, false, err
	}
	if cur == nil {
		o, err := s.createLocked(r, next, dry)
		return o, true, err
	}
	o, err := s.updateLocked(r, cur, curU, next, sub, dry)
	return o, false, err
}

func (h *handler) delete(c *call) {
	opts, err := c.deleteOptions()
	if err != nil {
		writeError(c.w, err)
		return
	}
	o, gone, err := h.s.delete(c.res, c.rp.namespace, c.rp.name, opts.Preconditions, c.dry() || len(opts.DryRun) > 0)
	if err != nil {
		writeError(c.w, err)
		return
	}
	if gone {
		writeJSON(c.w, http.StatusOK, statusSuccess(c.res, c.rp.name))
		return
	}
	c.reply(http.StatusOK, o)
}

func (s *Store) delete(r *resource, ns, name string, pre *metav1.Preconditions, dry bool) (*object, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.get(r.gr(), ns, name)
	if cur == nil {
		return nil, false, apierrors.NewNotFound(qualified(r), name)
	}
	return s.deleteLocked(r, cur, pre, dry)
}

// deleteOptions reads DeleteOptions from the body, where client-go sends
// them; propagationPolicy is accepted and has nothing to cascade to.
func (c *call) deleteOptions() (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	data, err := c.body()
	if err != nil || len(bytes.TrimSpace(data)) == 0 {
		return opts, err
	}
	if err := json.Unmarshal(data, opts); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return opts, nil
}

func (h *handler) deleteCollection(c *call) {
	f, err := newFilter(c.rp.namespace, c.q)
	if err == nil {
		err = h.s.deleteCollection(c.res, f, c.dry())
	}
	if err != nil {
		writeError(c.w, err)
		return
	}
	writeJSON(c.w, http.StatusOK, statusSuccess(c.res, ""))
}

func (s *Store) deleteCollection(r *resource, f filter, dry bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.listLocked(r.gr(), f.ns) {
		if !f.matches(o) {
			continue
		}
		m := o.metadata()
		if cur := s.get(r.gr(), m.GetNamespace(), m.GetName()); cur != nil {
			if _, _, err := s.deleteLocked(r, cur, nil, dry); err != nil {
				return err
			}
		}
	}
	return nil
}

// evict deletes the pod: disruption budgets are not enforced.
func (h *handler) evict(c *call) {
	if _, err := c.body(); err != nil {
		writeError(c.w, err)
		return
	}
	if _, _, err := h.s.delete(c.res, c.rp.namespace, c.rp.name, nil, c.dry()); err != nil {
		writeError(c.w, err)
		return
	}
	writeJSON(c.w, http.StatusCreated, statusSuccess(c.res, c.rp.name))
}

const protobufType = "application/vnd.kubernetes.protobuf"

// fromProtobuf turns a built-in object sent as protobuf (as
// controller-runtime and client-go send them) into JSON.
func fromProtobuf(data []byte) ([]byte, error) {
	obj, gvk, err := codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		return nil, apierrors.NewBadRequest("the protobuf body does not decode: " + err.Error())
	}
	obj.GetObjectKind().SetGroupVersionKind(*gvk)
	return json.Marshal(obj)
}
