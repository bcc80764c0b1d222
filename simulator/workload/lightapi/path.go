package lightapi

import (
	"errors"
	"strings"
)

// reqPath is a parsed API path. A path naming no resource is discovery
// (resource empty): /api, /api/v1, /apis, /apis/{g}, /apis/{g}/{v}.
type reqPath struct {
	group, version      string
	legacy              bool // /api rather than /apis
	namespace, resource string
	name, sub           string
	watch               bool // the deprecated /watch/ prefix
}

var errBadPath = errors.New("not an API path")

// parsePath parses /api/v1/... and /apis/{g}/{v}/...
func parsePath(p string) (reqPath, error) {
	segs := strings.Split(strings.TrimSuffix(strings.TrimPrefix(p, "/"), "/"), "/")
	var rp reqPath
	for _, s := range segs {
		if s == "" {
			return rp, errBadPath
		}
	}
	switch {
	case segs[0] == "api":
		rp.legacy, segs = true, segs[1:]
	case segs[0] == "apis" && len(segs) == 1:
		return rp, nil
	case segs[0] == "apis":
		rp.group, segs = segs[1], segs[2:]
	default:
		return rp, errBadPath
	}
	if len(segs) == 0 {
		return rp, nil
	}
	rp.version, segs = segs[0], segs[1:]
	return rp.parseResource(segs)
}

func (rp reqPath) parseResource(segs []string) (reqPath, error) {
	if len(segs) > 0 && segs[0] == "watch" {
		rp.watch, segs = true, segs[1:]
	}
	if len(segs) >= 3 && segs[0] == "namespaces" && !(len(segs) == 3 && (segs[2] == "status" || segs[2] == "finalize")) {
		rp.namespace, segs = segs[1], segs[2:]
	}
	if len(segs) > 3 {
		return rp, errBadPath
	}
	for i, p := range []*string{&rp.resource, &rp.name, &rp.sub} {
		if i < len(segs) {
			*p = segs[i]
		}
	}
	if rp.watch && (rp.resource == "" || rp.sub != "") {
		return rp, errBadPath
	}
	return rp, nil
}
