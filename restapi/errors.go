package restapi

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
)

// Error is a Magnum API error: an HTTP status and Magnum's message.
type Error struct {
	Status int
	Msg    string
	// Pecan marks errors raised by the framework (unknown route, 405, 406
	// negotiation): their code is "" and their title the HTTP reason.
	Pecan bool
}

func (e *Error) Error() string { return e.Msg }

// Errorf builds an Error.
func Errorf(status int, format string, args ...any) *Error {
	return &Error{Status: status, Msg: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *Error {
	return Errorf(http.StatusBadRequest, format, args...)
}

func notFound(format string, args ...any) *Error { return Errorf(http.StatusNotFound, format, args...) }

func conflict(format string, args ...any) *Error { return Errorf(http.StatusConflict, format, args...) }

func forbidden(format string, args ...any) *Error {
	return Errorf(http.StatusForbidden, format, args...)
}

// errorBody renders Magnum's error body:
// {"errors":[{"request_id":"","code":"client","status":400,"title":...,"detail":...,"links":[]}]}
// The title is the whole message (without its final '.'): `openstack coe`
// prints only the title, and Magnum's cut at the first '.' hides the value
// and what is allowed ("Invalid input for field/attribute node_count") and
// truncates names that contain a '.' (docs/api.md, difference 31).
func errorBody(e *Error, acceptJSON bool) gin.H {
	code := "client"
	if e.Status >= 500 {
		code = "server"
	}
	title := strings.TrimSuffix(strings.TrimSpace(e.Msg), ".")
	detail := any(e.Msg)
	if e.Pecan {
		code = ""
		title = http.StatusText(e.Status)
		if !acceptJSON {
			title, detail = "", ""
		}
	}
	return gin.H{"errors": []gin.H{{
		"request_id": "",
		"code":       code,
		"status":     e.Status,
		"title":      title,
		"detail":     detail,
		"links":      []any{},
	}}}
}

// abort answers with a Magnum error and stops the handler chain.
func abort(c *gin.Context, err error) {
	e, ok := err.(*Error)
	if !ok {
		e = &Error{Status: http.StatusInternalServerError, Msg: err.Error()}
		logFrom(c).Error("request failed", "err", err)
	}
	c.AbortWithStatusJSON(e.Status, errorBody(e, acceptsJSON(c)))
}

func acceptsJSON(c *gin.Context) bool {
	a := c.GetHeader("Accept")
	return a == "" || strings.Contains(a, "json") || strings.Contains(a, "*/*")
}
