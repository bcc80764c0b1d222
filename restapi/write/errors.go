package write

import (
	"errors"
	"net/http"

	"github.com/openkeel/keel/schemas"
)

// Error is a write refused or failed with the HTTP status it is answered
// with (apierr.StatusError); its message is Magnum's.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// HTTPStatus is the status the API answers the error with.
func (e *Error) HTTPStatus() int { return e.Status }

// SiteFileError turns a site.cue that does not load into the API's error: a
// 500 (the operator's file is broken, not the request) naming the file and
// the CUE error; other errors (and nil) pass unchanged.
func SiteFileError(err error) error {
	var se *schemas.SiteError
	if !errors.As(err, &se) {
		return err
	}
	return &Error{Status: http.StatusInternalServerError,
		Msg: "Invalid site file in the cluster repository: changes are refused until an operator fixes it in Git. " + se.Error()}
}
