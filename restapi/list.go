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

	"github.com/openkeel/keel/restapi/apierr"
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

// paginate applies Magnum's list rules (sort_key, sort_dir, marker = the
// UUID of the previous page's last item, limit capped at max_limit) and
// returns the page and, when the page is full, the `next` URL. Items are
// views (or gin.H maps); sort_key and the marker name their JSON fields.
func paginate[T any](c *gin.Context, items []T, maxLimit int, resource string) ([]T, string, error) {
	q := c.Request.URL.Query()
	limit := maxLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, "", apierr.BadRequest("Invalid input for field/attribute limit. Value: '%s'. unable to convert to int", v)
		}
		if n <= 0 {
			return nil, "", apierr.BadRequest("Limit must be positive")
		}
		limit = min(n, maxLimit)
	}
	dir := q.Get("sort_dir")
	if dir == "" {
		dir = "asc"
	}
	if dir != "asc" && dir != "desc" {
		return nil, "", apierr.BadRequest("Invalid sort direction: %s. Acceptable values are 'asc' or 'desc'", dir)
	}
	key := q.Get("sort_key")
	if key == "" {
		key = "id"
	}
	if key != "id" {
		if len(items) > 0 {
			if v, ok := jsonField(items[0], key); !ok || isComplex(v) {
				return nil, "", apierr.BadRequest(`The sort_key value "%s" is an invalid field for sorting`, key)
			}
		}
		sort.SliceStable(items, func(i, j int) bool {
			a, _ := jsonField(items[i], key)
			b, _ := jsonField(items[j], key)
			return less(a, b)
		})
	}
	if dir == "desc" {
		for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
			items[i], items[j] = items[j], items[i]
		}
	}
	if m := q.Get("marker"); m != "" {
		if !uuidLike.MatchString(m) {
			return nil, "", apierr.BadRequest("Expected a uuid but received %s.", m)
		}
		found := -1
		for i, it := range items {
			if id, _ := jsonField(it, "uuid"); strings.EqualFold(fmt.Sprint(id), m) {
				found = i
				break
			}
		}
		if found < 0 {
			return nil, "", apierr.NotFound("Marker %s could not be found.", m)
		}
		items = items[found+1:]
	}
	if len(items) > limit {
		items = items[:limit]
	}
	next := ""
	if len(items) == limit && len(items) > 0 {
		v := url.Values{}
		v.Set("sort_key", key)
		v.Set("sort_dir", dir)
		v.Set("limit", strconv.Itoa(limit))
		id, _ := jsonField(items[len(items)-1], "uuid")
		v.Set("marker", fmt.Sprint(id))
		next = appURL(c) + "/v1/" + resource + "?" + v.Encode()
	}
	return items, next, nil
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

// jsonField is the field of a view (a struct, embedded structs included,
// or a gin.H) that marshals as key; not ok when the view has no such field
// or omits it (omitempty and zero), as its JSON would.
func jsonField(item any, key string) (any, bool) {
	if m, ok := item.(gin.H); ok {
		v, ok := m[key]
		return v, ok
	}
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
