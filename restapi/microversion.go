package restapi

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/restapi/apierr"
)

// Microversions keel serves: Magnum 2026.2's range.
const (
	MinMinor = 1
	MaxMinor = 14
	// serviceName is the service word of the response headers (Magnum
	// 2026.1 and later).
	serviceName = "container-infrastructure-management"
)

// Version is a negotiated microversion (major is always 1).
type Version struct{ Minor int }

func (v Version) String() string { return "1." + strconv.Itoa(v.Minor) }

// AtLeast reports whether v ≥ 1.minor.
func (v Version) AtLeast(minor int) bool { return v.Minor >= minor }

var serviceAliases = map[string]bool{
	"container-infrastructure-management": true,
	"container-infrastructure":            true,
	"container-infra":                     true,
}

// negotiate parses OpenStack-API-Version as Magnum does: no header is 1.1,
// "latest" (any service word) is the maximum, and every malformed or
// unsupported value is a 406.
func negotiate(header string) (Version, string, *apierr.Error) {
	if strings.TrimSpace(header) == "" {
		return Version{MinMinor}, "", nil
	}
	service, value, ok := strings.Cut(strings.TrimSpace(header), " ")
	value = strings.TrimSpace(value)
	if ok && strings.EqualFold(value, "latest") {
		return Version{MaxMinor}, "", nil
	}
	if !ok || !serviceAliases[strings.ToLower(service)] {
		return Version{}, value, &apierr.Error{Status: http.StatusNotAcceptable, Pecan: true, Msg: "Invalid service type for OpenStack-API-Version header"}
	}
	maj, min, ok := strings.Cut(value, ".")
	major, err1 := strconv.Atoi(maj)
	minor, err2 := strconv.Atoi(min)
	if !ok || err1 != nil || err2 != nil {
		return Version{}, value, &apierr.Error{Status: http.StatusNotAcceptable, Pecan: true, Msg: "Invalid value for OpenStack-API-Version header"}
	}
	if major != 1 {
		return Version{}, value, &apierr.Error{Status: http.StatusNotAcceptable, Pecan: true, Msg: "Mutually exclusive versions requested. Version " + value + " requested but not supported by this service. The supported version range is: [" + serviceName + " 1.1, " + serviceName + " 1.14]."}
	}
	if minor < MinMinor || minor > MaxMinor {
		return Version{}, value, &apierr.Error{Status: http.StatusNotAcceptable, Msg: fmt.Sprintf(
			"Version %s was requested but the minor version is not supported by this service. The supported version range is: [%s 1.%d, %s 1.%d].",
			value, serviceName, MinMinor, serviceName, MaxMinor)}
	}
	return Version{minor}, "", nil
}

const ctxVersion = "keel.version"

// microversion negotiates and sets the version headers on every /v1 response.
func microversion() gin.HandlerFunc {
	return func(c *gin.Context) {
		v, bad, err := negotiate(c.GetHeader("OpenStack-API-Version"))
		h := c.Writer.Header()
		h.Set("OpenStack-API-Minimum-Version", serviceName+" 1.1")
		h.Set("OpenStack-API-Maximum-Version", serviceName+" 1.14")
		h.Set("Vary", "OpenStack-API-Version")
		if err != nil {
			h.Set("OpenStack-API-Version", serviceName+" "+bad)
			if !err.Pecan {
				// An unsupported minor gets Magnum's dedicated body.
				body := unsupportedVersionView{
					Code: "magnum.microversion-unsupported", Title: "Requested microversion is unsupported",
					MinVersion: "1.1", MaxVersion: "1.14",
					Links: []link{{Rel: "help", Href: "http://docs.openstack.org/api-guide/compute/microversions.html"}},
				}
				if apierr.AcceptsJSON(c) {
					body.Description = &err.Msg
				}
				c.AbortWithStatusJSON(http.StatusNotAcceptable, unsupportedVersionErrors{Errors: []unsupportedVersionView{body}})
				return
			}
			apierr.Abort(c, err)
			return
		}
		h.Set("OpenStack-API-Version", serviceName+" "+v.String())
		c.Set(ctxVersion, v)
		c.Next()
	}
}

func versionOf(c *gin.Context) Version {
	if v, ok := c.Get(ctxVersion); ok {
		return v.(Version)
	}
	return Version{MinMinor}
}

// requireVersion refuses a route outside its microversion range with 406.
func requireVersion(min int, api string) gin.HandlerFunc {
	return func(c *gin.Context) {
		v := versionOf(c)
		if v.Minor < min {
			apierr.Abort(c, &apierr.Error{Status: http.StatusNotAcceptable, Pecan: true,
				Msg: fmt.Sprintf("Version %s was requested but the requested API %s is not supported for this version.", v, api)})
			return
		}
		c.Next()
	}
}

// unsupportedVersionView is Magnum's body for an unsupported microversion
// (its description only for a client that takes JSON).
type unsupportedVersionView struct {
	Code        string  `json:"code"`
	Description *string `json:"description,omitempty"`
	Links       []link  `json:"links"`
	MaxVersion  string  `json:"max_version"`
	MinVersion  string  `json:"min_version"`
	Title       string  `json:"title"`
}

type unsupportedVersionErrors struct {
	Errors []unsupportedVersionView `json:"errors"`
}
