// Package apierr is the Magnum API's error: an HTTP status and Magnum's
// message, and how it is answered ({"errors":[...]}). The API's parts
// (request bodies, JSON patches, authentication, handlers) share it.
package apierr

import (
	"errors"
	"fmt"
	"log/slog"
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

// BadRequest is a 400.
func BadRequest(format string, args ...any) *Error {
	return Errorf(http.StatusBadRequest, format, args...)
}

// NotFound is a 404.
func NotFound(format string, args ...any) *Error { return Errorf(http.StatusNotFound, format, args...) }

// Conflict is a 409.
func Conflict(format string, args ...any) *Error { return Errorf(http.StatusConflict, format, args...) }

// Forbidden is a 403.
func Forbidden(format string, args ...any) *Error {
	return Errorf(http.StatusForbidden, format, args...)
}

// Body renders Magnum's error body:
// {"errors":[{"request_id":"","code":"client","status":400,"title":...,"detail":...,"links":[]}]}
// The title is the whole message (without its final '.'): `openstack coe`
// prints only the title, and Magnum's cut at the first '.' hides the value
// and what is allowed ("Invalid input for field/attribute node_count") and
// truncates names that contain a '.' (docs/api.md, difference 31).
func Body(e *Error, acceptJSON bool) gin.H {
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

// StatusError is an error of a package below the API (review mode) that
// knows the HTTP status it is answered with; its message is Magnum's.
type StatusError interface {
	error
	HTTPStatus() int
}

// As finds the API error in err's chain: an *Error, or a StatusError
// made one; false for any other error.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	var se StatusError
	if errors.As(err, &se) {
		return &Error{Status: se.HTTPStatus(), Msg: se.Error()}, true
	}
	return nil, false
}

// Abort answers with a Magnum error and stops the handler chain. An error
// whose chain holds no API error is a 500 whose cause is logged.
func Abort(c *gin.Context, err error) {
	e, ok := As(err)
	if !ok {
		e = &Error{Status: http.StatusInternalServerError, Msg: err.Error()}
		Log(c).Error("request failed", "err", err)
	}
	c.AbortWithStatusJSON(e.Status, Body(e, AcceptsJSON(c)))
}

// AcceptsJSON reports whether the client takes a JSON error body.
func AcceptsJSON(c *gin.Context) bool {
	a := c.GetHeader("Accept")
	return a == "" || strings.Contains(a, "json") || strings.Contains(a, "*/*")
}

// ctxLog is the request context's key of the request's logger.
const ctxLog = "keel.log"

// SetLog gives the request its logger (with its request id).
func SetLog(c *gin.Context, l *slog.Logger) { c.Set(ctxLog, l) }

// Log is the request's logger (slog's default outside a request).
func Log(c *gin.Context) *slog.Logger {
	if l, ok := c.Get(ctxLog); ok {
		return l.(*slog.Logger)
	}
	return slog.Default()
}
