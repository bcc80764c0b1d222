package write

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openkeel/keel/schemas"
)

// A site.cue that does not load refuses the write with a 500 naming it;
// any other error, and no error, pass unchanged.
func TestSiteFileErrorIsA500(t *testing.T) {
	other := errors.New("other")
	if SiteFileError(other) != other || SiteFileError(nil) != nil {
		t.Fatal("an error that is not the site file's changed")
	}
	err := SiteFileError(&schemas.SiteError{Err: errors.New("site.x: conflicting values")})
	var e *Error
	if !errors.As(err, &e) || e.HTTPStatus() != http.StatusInternalServerError ||
		!strings.Contains(e.Msg, "Invalid site file") {
		t.Fatalf("got %#v", err)
	}
}
