package lightapi

import (
	"encoding/json"
	"mime"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// patch applies a JSON, merge, strategic merge or apply patch. Server-side
// apply is simplified: there is no field ownership. Applying creates a
// missing object, and otherwise merges the applied configuration into the
// object (by merge keys for built-in kinds, as a strategic merge patch;
// lists replaced for custom resources, as a merge patch). Fields an
// applier stops applying are therefore not removed, no conflicts are ever
// reported (force changes nothing) and managedFields are not kept.
func (h *handler) patch(c *call) {
	pt, _, _ := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	data, err := c.body()
	if err != nil {
		writeError(c.w, err)
		return
	}
	apply := types.PatchType(pt) == types.ApplyPatchType
	var applied *unstructured.Unstructured
	if apply {
		if applied, err = c.appliedObject(data); err != nil {
			writeError(c.w, err)
			return
		}
	}
	o, created, err := h.s.write(c.res, c.rp.namespace, c.rp.name, c.rp.sub, c.dry(), apply,
		func(cur *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			if cur == nil {
				return applied, nil
			}
			return c.patched(cur, types.PatchType(pt), data)
		})
	if err != nil {
		writeError(c.w, err)
		return
	}
	c.reply(map[bool]int{true: http.StatusCreated, false: http.StatusOK}[created], o)
}

func (c *call) appliedObject(data []byte) (*unstructured.Unstructured, error) {
	u, err := decodeJSON(data)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if u.GetKind() == "" || u.GetAPIVersion() == "" {
		return nil, apierrors.NewBadRequest("apiVersion and kind must be set in an applied configuration")
	}
	if err := c.checkKind(u); err != nil {
		return nil, err
	}
	if u.GetName() == "" {
		u.SetName(c.rp.name)
	}
	return u, c.inPath(u)
}

// patched is cur with the patch applied.
func (c *call) patched(cur *unstructured.Unstructured, pt types.PatchType, patch []byte) (*unstructured.Unstructured, error) {
	orig, err := cur.MarshalJSON()
	if err != nil {
		return nil, err
	}
	out, err := c.applyPatch(orig, pt, patch)
	if err != nil {
		return nil, err
	}
	u, err := decodeJSON(out)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if err := c.checkKind(u); err != nil {
		return nil, err
	}
	return u, c.inPath(u)
}

func (c *call) applyPatch(orig []byte, pt types.PatchType, patch []byte) ([]byte, error) {
	typed, builtin := c.res.typed()
	var out []byte
	var err error
	switch {
	case pt == types.JSONPatchType:
		var p jsonpatch.Patch
		if p, err = jsonpatch.DecodePatch(patch); err == nil {
			out, err = p.Apply(orig)
		}
	case pt == types.MergePatchType || (pt == types.ApplyPatchType && !builtin):
		out, err = jsonpatch.MergePatch(orig, patch)
	case (pt == types.StrategicMergePatchType || pt == types.ApplyPatchType) && builtin:
		out, err = strategicpatch.StrategicMergePatch(orig, patch, typed)
	default: // strategic merge of a custom resource included, as on a real server
		return nil, unsupportedMediaType(pt)
	}
	if err != nil {
		return nil, apierrors.NewBadRequest("the patch does not apply: " + err.Error())
	}
	if !json.Valid(out) {
		return nil, apierrors.NewBadRequest("the patch gives invalid JSON")
	}
	return out, nil
}

func unsupportedMediaType(pt types.PatchType) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
		Reason: metav1.StatusReasonUnsupportedMediaType, Message: "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"}}
}
