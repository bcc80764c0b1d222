package lightapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Options configures a handler.
type Options struct {
	Log logr.Logger
	// GitVersion is what /version reports; DefaultGitVersion when empty.
	GitVersion string
	// BookmarkInterval is how often watches that allow bookmarks get one;
	// a minute when zero, as a real server sends them.
	BookmarkInterval time.Duration
}

// DefaultGitVersion is the Kubernetes version served when Options has none.
const DefaultGitVersion = "v1.34.0"

type handler struct {
	s *Store
	o Options
}

// NewHandler serves the Kubernetes API over s.
func NewHandler(s *Store, o Options) http.Handler {
	if o.GitVersion == "" {
		o.GitVersion = DefaultGitVersion
	}
	if o.BookmarkInterval <= 0 {
		o.BookmarkInterval = time.Minute
	}
	return &handler{s: s, o: o}
}

// anonymous paths answer without a client certificate, as a real server's
// system:public-info-viewer role allows.
var anonymous = map[string]bool{"/healthz": true, "/livez": true, "/readyz": true, "/version": true}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer h.recoverTo(w, r)
	p := strings.TrimSuffix(r.URL.Path, "/")
	if !anonymous[p] && (r.TLS == nil || len(r.TLS.VerifiedChains) == 0) {
		writeError(w, apierrors.NewUnauthorized("Unauthorized"))
		return
	}
	switch p {
	case "/healthz", "/livez", "/readyz":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
		return
	case "/version":
		writeJSON(w, http.StatusOK, h.version())
		return
	case "":
		writeJSON(w, http.StatusOK, rootPaths)
		return
	}
	rp, err := parsePath(p)
	if err != nil {
		writeError(w, apierrors.NewNotFound(schema.GroupResource{}, ""))
		return
	}
	if rp.resource == "" {
		h.discovery(w, r, rp)
		return
	}
	h.serveResource(w, r, rp)
}

// recoverTo answers a request whose handling panicked with a 500 and logs
// it: one cluster's request must not take keel down.
func (h *handler) recoverTo(w http.ResponseWriter, r *http.Request) {
	if v := recover(); v != nil {
		if v == http.ErrAbortHandler {
			panic(v)
		}
		h.o.Log.Error(fmt.Errorf("%v", v), "lightapi: request panicked", "method", r.Method, "path", r.URL.Path)
		writeError(w, apierrors.NewInternalError(fmt.Errorf("%v", v)))
	}
}

var rootPaths = map[string][]string{"paths": {"/api", "/api/v1", "/apis", "/healthz", "/livez", "/readyz", "/version"}}

func (h *handler) version() map[string]string {
	v := strings.TrimPrefix(h.o.GitVersion, "v")
	major, minor, _ := strings.Cut(v, ".")
	minor, _, _ = strings.Cut(minor, ".")
	return map[string]string{"major": major, "minor": minor, "gitVersion": h.o.GitVersion,
		"gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
		"goVersion": "go1.26", "compiler": "gc", "platform": "linux/amd64", "buildDate": "2025-01-01T00:00:00Z"}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		writeError(w, apierrors.NewInternalError(err))
		return
	}
	writeRaw(w, code, data)
}

func writeRaw(w http.ResponseWriter, code int, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(data) // the client is gone: nothing to tell it
}

// writeError answers err as a metav1.Status, which client-go turns back
// into the StatusError that apierrors.IsNotFound and friends test.
func writeError(w http.ResponseWriter, err error) {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		st = apierrors.NewInternalError(err)
	}
	s := st.Status()
	s.Kind, s.APIVersion = "Status", "v1"
	writeJSON(w, int(s.Code), &s)
}

func statusSuccess(r *resource, name string) *metav1.Status {
	return &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess,
		Details: &metav1.StatusDetails{Name: name, Group: r.group, Kind: r.name}}
}
