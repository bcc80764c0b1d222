package apierr

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
)

// statusErr is an error of a package below the API that knows its status.
type statusErr struct{}

func (statusErr) Error() string   { return "Cluster c1 has a change awaiting review." }
func (statusErr) HTTPStatus() int { return http.StatusConflict }

// TestWrappedErrorKeepsItsStatus: Abort answers an API error found
// anywhere in the chain with its own status and message (a wrapped *Error
// is not a 500 showing the wrapping), and anything else as a 500.
func TestWrappedErrorKeepsItsStatus(t *testing.T) {
	gin.SetMode(gin.TestMode)
	for _, tc := range []struct {
		name   string
		err    error
		status int
		title  string
	}{
		{"error", NotFound("Cluster x could not be found."), http.StatusNotFound, "Cluster x could not be found"},
		{"wrapped error", fmt.Errorf("reading: %w", NotFound("Cluster x could not be found.")), http.StatusNotFound, "Cluster x could not be found"},
		{"status error", fmt.Errorf("proposing: %w", statusErr{}), http.StatusConflict, "Cluster c1 has a change awaiting review"},
		{"other", errors.New("disk full"), http.StatusInternalServerError, "disk full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			c, _ := gin.CreateTestContext(w)
			c.Request = httptest.NewRequest(http.MethodGet, "/v1/clusters/x", nil)
			Abort(c, tc.err)
			e, ok := As(tc.err)
			if w.Code != tc.status || ok != (tc.status != http.StatusInternalServerError) {
				t.Fatalf("status %d (As ok %v), want %d", w.Code, ok, tc.status)
			}
			if ok && !strings.HasPrefix(e.Msg, tc.title) {
				t.Fatalf("message %q, want %q", e.Msg, tc.title)
			}
			if body := w.Body.String(); !strings.Contains(body, `"title":"`+tc.title+`"`) {
				t.Fatalf("body %s lacks the title %q", body, tc.title)
			}
		})
	}
}
