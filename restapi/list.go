package restapi

import (
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/body"
)

// checkQuery refuses query parameters a route does not take, as WSME does.
func checkQuery(c *gin.Context, allowed ...string) error {
	for k := range c.Request.URL.Query() {
		if !slices.Contains(allowed, k) {
			return apierr.BadRequest(`Unknown argument: "%s"`, k)
		}
	}
	return nil
}

// pager is how a list pages: its resource (the path of its next link) and
// its marker, the uuid of the previous page's last item (Magnum's), or for
// quotas their integer id.
type pager[T any] struct {
	resource string
	// marker is an item's marker; parseMarker checks the query's marker
	// and gives it in the form marker compares with (case aside).
	marker      func(item T) string
	parseMarker func(m string) (string, error)
	// field is an item's sort_key field (jsonField when nil).
	field func(item T, key string) (any, bool)
}

// byUUID pages views by their JSON uuid field.
func byUUID[T any](resource string) pager[T] {
	return pager[T]{
		resource: resource,
		marker: func(item T) string {
			id, _ := jsonField(item, "uuid")
			return fmt.Sprint(id)
		},
		parseMarker: func(m string) (string, error) {
			if !uuidLike.MatchString(m) {
				return "", apierr.BadRequest("Expected a uuid but received %s.", m)
			}
			return m, nil
		},
	}
}

// parseBody reads the body of a route that takes no query parameter
// (Magnum's write routes), with its fields' rules.
func parseBody(c *gin.Context, name string, fields []body.Field) (body.Body, error) {
	if err := checkQuery(c); err != nil {
		return nil, err
	}
	raw, _ := c.GetRawData()
	b, perr := body.Parse(raw, name, fields)
	if perr != nil {
		return nil, perr
	}
	return b, nil
}

// paginate is paginateBy for the lists whose marker is the uuid.
func paginate[T any](c *gin.Context, items []T, maxLimit int, resource string) ([]T, string, error) {
	return paginateBy(c, items, maxLimit, byUUID[T](resource))
}

// paginateBy applies Magnum's list rules (sort_key, sort_dir, marker,
// limit capped at max_limit) and returns the page and, when the page is
// full, the `next` URL. sort_key names a JSON field of the views.
func paginateBy[T any](c *gin.Context, items []T, maxLimit int, p pager[T]) ([]T, string, error) {
	q := c.Request.URL.Query()
	limit, err := pageLimit(q.Get("limit"), maxLimit)
	if err != nil {
		return nil, "", err
	}
	key, dir, err := p.sort(items, q.Get("sort_key"), q.Get("sort_dir"))
	if err != nil {
		return nil, "", err
	}
	if m := q.Get("marker"); m != "" {
		if items, err = p.after(items, m); err != nil {
			return nil, "", err
		}
	}
	if len(items) > limit {
		items = items[:limit]
	}
	next := ""
	if len(items) == limit && len(items) > 0 {
		next = nextURL(c, p.resource, key, dir, limit, p.marker(items[len(items)-1]))
	}
	return items, next, nil
}

// nextURL is the `next` link of a full page whose last item is marker.
func nextURL(c *gin.Context, resource, key, dir string, limit int, marker string) string {
	v := url.Values{}
	v.Set("sort_key", key)
	v.Set("sort_dir", dir)
	v.Set("limit", strconv.Itoa(limit))
	v.Set("marker", marker)
	return appURL(c) + "/v1/" + resource + "?" + v.Encode()
}

// idPage is the query's page when the list is in its default order
// (sort_key id, or none), which the read model can page itself; not
// inOrder for another sort key, which needs every item. Its refusals are
// paginateBy's, in the same order.
func idPage(c *gin.Context, maxLimit int) (pg readmodel.Page, inOrder bool, err error) {
	q := c.Request.URL.Query()
	if k := q.Get("sort_key"); k != "" && k != "id" {
		return pg, false, nil
	}
	if pg.Limit, err = pageLimit(q.Get("limit"), maxLimit); err != nil {
		return pg, false, err
	}
	switch dir := q.Get("sort_dir"); dir {
	case "", "asc":
	case "desc":
		pg.Desc = true
	default:
		return pg, false, apierr.BadRequest("Invalid sort direction: %s. Acceptable values are 'asc' or 'desc'", dir)
	}
	if pg.Marker = q.Get("marker"); pg.Marker != "" && !uuidLike.MatchString(pg.Marker) {
		return pg, false, apierr.BadRequest("Expected a uuid but received %s.", pg.Marker)
	}
	return pg, true, nil
}

// pageDir is a page's sort_dir.
func pageDir(pg readmodel.Page) string {
	if pg.Desc {
		return "desc"
	}
	return "asc"
}

// pageLimit is the query's limit, at most maxLimit (maxLimit without one).
func pageLimit(v string, maxLimit int) (int, error) {
	if v == "" {
		return maxLimit, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, apierr.BadRequest("Invalid input for field/attribute limit. Value: '%s'. unable to convert to int", v)
	}
	if n <= 0 {
		return 0, apierr.BadRequest("Limit must be positive")
	}
	return min(n, maxLimit), nil
}

// sort orders items by key (id: as listed) in dir; it returns both with
// their defaults.
func (p pager[T]) sort(items []T, key, dir string) (string, string, error) {
	if dir == "" {
		dir = "asc"
	}
	if dir != "asc" && dir != "desc" {
		return "", "", apierr.BadRequest("Invalid sort direction: %s. Acceptable values are 'asc' or 'desc'", dir)
	}
	if key == "" {
		key = "id"
	}
	field := p.field
	if field == nil {
		field = func(item T, key string) (any, bool) { return jsonField(item, key) }
	}
	if key != "id" {
		if len(items) > 0 {
			if v, ok := field(items[0], key); !ok || isComplex(v) {
				return "", "", apierr.BadRequest(`The sort_key value "%s" is an invalid field for sorting`, key)
			}
		}
		sort.SliceStable(items, func(i, j int) bool {
			a, _ := field(items[i], key)
			b, _ := field(items[j], key)
			return less(a, b)
		})
	}
	if dir == "desc" {
		slices.Reverse(items)
	}
	return key, dir, nil
}

// after is what follows the marker m in items (a 404 when m is none of them).
func (p pager[T]) after(items []T, m string) ([]T, error) {
	want, err := p.parseMarker(m)
	if err != nil {
		return nil, err
	}
	for i, it := range items {
		if strings.EqualFold(p.marker(it), want) {
			return items[i+1:], nil
		}
	}
	return nil, apierr.NotFound("Marker %s could not be found.", m)
}

// isComplex reports whether a field is a map, list or object (no sort key).
func isComplex(v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Struct:
		return true
	}
	return false
}

// jsonField is the field of a view (a struct, embedded structs included)
// that marshals as key; not ok when the view has no such field or omits it
// (omitempty and zero), as its JSON would.
func jsonField(item any, key string) (any, bool) {
	rv := reflect.ValueOf(item)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, false
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil, false
	}
	return structField(rv, key)
}

func structField(rv reflect.Value, key string) (any, bool) {
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if v, ok := structField(rv.Field(i), key); ok {
				return v, true
			}
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != key || !f.IsExported() {
			continue
		}
		v := rv.Field(i)
		if strings.Contains(opts, "omitempty") && v.IsZero() {
			return nil, false
		}
		return v.Interface(), true
	}
	return nil, false
}

func less(a, b any) bool {
	a, b = deref(a), deref(b)
	if x, ok := a.(int64); ok {
		if y, ok := b.(int64); ok {
			return x < y
		}
	}
	return fmt.Sprint(a) < fmt.Sprint(b)
}

func deref(v any) any {
	switch x := v.(type) {
	case *string:
		if x == nil {
			return ""
		}
		return *x
	case *int64:
		if x == nil {
			return int64(0)
		}
		return *x
	}
	return v
}
