package lightapi

import (
	"crypto/tls"
	"encoding/json"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Without a verified client certificate only the public paths answer.
func TestUnauthenticatedRequestsGet401(t *testing.T) {
	srv := newServer(t)
	anon := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for path, want := range map[string]int{
		"/api/v1/namespaces/default/configmaps": http.StatusUnauthorized,
		"/apis":                                 http.StatusUnauthorized,
		"/":                                     http.StatusUnauthorized,
		"/healthz":                              http.StatusOK,
		"/readyz":                               http.StatusOK,
		"/livez":                                http.StatusOK,
		"/version":                              http.StatusOK,
	} {
		resp, err := anon.Get(srv.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var st metav1.Status
		decodeErr := json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, resp.StatusCode, want)
		}
		if want == http.StatusUnauthorized && (decodeErr != nil || st.Kind != "Status" || st.Reason != metav1.StatusReasonUnauthorized) {
			t.Errorf("%s: body is not an Unauthorized Status: %+v (%v)", path, st, decodeErr)
		}
	}
}
