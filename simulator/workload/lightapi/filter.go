package lightapi

import (
	"fmt"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// filter is a list's or watch's namespace and selectors.
type filter struct {
	ns     string
	labels labels.Selector
	fields fields.Selector
}

func newFilter(ns string, q url.Values) (filter, error) {
	f := filter{ns: ns}
	var err error
	if f.labels, err = labels.Parse(q.Get("labelSelector")); err != nil {
		return f, apierrors.NewBadRequest(err.Error())
	}
	if f.fields, err = fields.ParseSelector(q.Get("fieldSelector")); err != nil {
		return f, apierrors.NewBadRequest(err.Error())
	}
	return f, nil
}

func (f filter) matches(o *object) bool {
	if f.labels.Empty() && f.fields.Empty() {
		return true
	}
	m := o.metadata()
	if !f.labels.Matches(labels.Set(m.GetLabels())) {
		return false
	}
	return f.fields.Empty() || f.fields.Matches(objectFields{o.decode()})
}

// objectFields selects on any field path of the object (metadata.name,
// spec.nodeName, status.phase, type...): a superset of the few fields a
// real server indexes per kind, which answers 400 for the others.
type objectFields struct{ u *unstructured.Unstructured }

func (f objectFields) Has(string) bool { return true }

func (f objectFields) Get(path string) string {
	v, ok, _ := unstructured.NestedFieldNoCopy(f.u.Object, strings.Split(path, ".")...)
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}
