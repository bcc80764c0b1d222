package restapi

import (
	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/restapi/apierr"
)

// handler is a route handler that returns its error instead of answering
// it: a returned *apierr.Error is Magnum's answer, any other error a 500
// whose cause is logged. handle adapts one for gin.
type handler func(c *gin.Context) error

func handle(h handler) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := h(c); err != nil {
			apierr.Abort(c, err)
		}
	}
}

// guard adapts a check for gin as a middleware: a returned error answers
// the request, nil passes it on to the next handler.
func guard(check handler) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := check(c); err != nil {
			apierr.Abort(c, err)
			return
		}
		c.Next()
	}
}
