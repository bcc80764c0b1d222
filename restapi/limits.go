package restapi

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"net/http"
	"slices"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/jsonpatch"
)

// Limits on what one request may carry, so that its cost (parsing, schema
// validation, the commit it holds the repository for) is bounded. Magnum has
// none of these (docs/api.md, "Limits"); each is far above what a real
// template, cluster or patch needs.
const (
	// MaxBodyBytes is the largest request body (a CSR is about 1 KiB, a
	// template with every label about 5 KiB).
	MaxBodyBytes = 256 << 10
	// MaxLabels is the most labels one object may have (the catalogue
	// knows about 140; unknown labels are kept for compatibility).
	MaxLabels = 200
	// MaxLabelKeyLen and MaxLabelValueLen bound one label.
	MaxLabelKeyLen   = 128
	MaxLabelValueLen = 4096
	// MaxPatchOps is the most operations of one JSON patch.
	MaxPatchOps = jsonpatch.MaxOps
)

// limitBody reads the request body once, refusing with a 413 in Magnum's
// format a body over MaxBodyBytes before any handler parses it.
func limitBody() gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.Body == nil || c.Request.Body == http.NoBody {
			c.Next()
			return
		}
		data, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, MaxBodyBytes))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			apierr.Abort(c, apierr.Errorf(http.StatusRequestEntityTooLarge, "Request body too large: at most %d bytes are accepted.", MaxBodyBytes))
			return
		case err != nil:
			apierr.Abort(c, apierr.BadRequest("Request body could not be read: %v", err))
			return
		}
		c.Request.Body = io.NopCloser(bytes.NewReader(data))
		c.Next()
	}
}

// checkLabelLimits refuses a label set over the limits, or with a key or
// value that would not read back from the repository exactly as sent, before
// the (costlier) schema validation.
func checkLabelLimits(labels map[string]string) error {
	if len(labels) > MaxLabels {
		return apierr.BadRequest("Invalid labels: %d labels, at most %d are allowed.", len(labels), MaxLabels)
	}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		v := labels[k]
		switch {
		case len(k) > MaxLabelKeyLen:
			return apierr.BadRequest("Invalid labels: label %q… is %d characters long, at most %d are allowed for a label name.", k[:40], len(k), MaxLabelKeyLen)
		case len(v) > MaxLabelValueLen:
			return apierr.BadRequest("Invalid labels: the value of label %s is %d characters long, at most %d are allowed.", k, len(v), MaxLabelValueLen)
		case !intent.RoundTrips(map[string]string{k: v}):
			return apierr.BadRequest("Invalid labels: label %q=%q cannot be stored in the cluster repository exactly as given.", k, v)
		}
	}
	return nil
}
