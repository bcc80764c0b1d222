package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
)

// While the Git server cannot be reached, API writes fail with a 503 in
// Magnum's error format and nothing is committed; once it is back, writes
// land on it again.
func TestGitRemoteUnavailableGives503(t *testing.T) {
	remote := newGitServer(t)
	in, sc := startKeelRemote(t, remote, time.Hour, "")
	before, err := in.Store.Head()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(remote, remote+".down"); err != nil {
		t.Fatal(err)
	}
	_, err = createTemplateErr(sc, "down")
	var ue gophercloud.ErrUnexpectedResponseCode
	if !errors.As(err, &ue) || ue.Actual != http.StatusServiceUnavailable {
		t.Fatalf("create while the Git server is down: %v, want a 503", err)
	}
	var body struct {
		Errors []struct {
			Code   string `json:"code"`
			Status int    `json:"status"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(ue.Body, &body); err != nil || len(body.Errors) != 1 || body.Errors[0].Code != "server" || body.Errors[0].Status != 503 {
		t.Fatalf("503 body is not Magnum's error format: %s (%v)", ue.Body, err)
	}
	if after, _ := in.Store.Head(); after != before {
		t.Fatalf("keel's main moved to %s although the server did not take the commit", after)
	}

	if err := os.Rename(remote+".down", remote); err != nil {
		t.Fatal(err)
	}
	createTemplate(t, sc, "up")
	head, _ := in.Store.Head()
	if got := gitCLI(t, remote, "rev-parse", "main"); got != head.String() {
		t.Fatalf("the Git server's main is %s, want keel's %s", got, head)
	}
}
