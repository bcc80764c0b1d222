package restapi

import (
	"net/http"
	"strings"
	"testing"
)

// A member's token creates a template in the token's project; the commit is
// authored by the token's user and carries its project and user in the
// trailers, whatever X-Project-Id/X-User-Id/X-Roles the client sends.
func TestKeystoneMemberCreatesTemplate(t *testing.T) {
	a := newKeystoneAPI(t)
	tok := a.ks.Issue(t, ksMember.Name, 0)
	r := a.doToken(tok, "POST", "/v1/clustertemplates", templateBody("t1", nil))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	body := r.json(t)
	if body["project_id"] != ksMember.ProjectID || body["user_id"] != ksMember.ID {
		t.Fatalf("template owned by %v/%v, want %s/%s", body["project_id"], body["user_id"], ksMember.ProjectID, ksMember.ID)
	}

	h, err := a.store.Head()
	if err != nil {
		t.Fatal(err)
	}
	c, err := a.store.Repo().CommitObject(h)
	if err != nil {
		t.Fatal(err)
	}
	if c.Author.Name != ksMember.Name || c.Author.Email != ksMember.ID+"@keel" {
		t.Fatalf("author %s <%s>, want %s <%s@keel>", c.Author.Name, c.Author.Email, ksMember.Name, ksMember.ID)
	}
	for _, want := range []string{"Keel-Project: " + ksMember.ProjectID, "Keel-User: " + ksMember.ID} {
		if !strings.Contains(c.Message, want+"\n") && !strings.HasSuffix(c.Message, want) {
			t.Fatalf("commit message lacks %q:\n%s", want, c.Message)
		}
	}
	if strings.Contains(c.Message, "spoofed") {
		t.Fatalf("the commit took the spoofed headers:\n%s", c.Message)
	}

	// The template is in the member's project, not the spoofed one.
	r = a.doToken(tok, "GET", "/v1/clustertemplates/t1", nil)
	if r.status != http.StatusOK || r.json(t)["project_id"] != ksMember.ProjectID {
		t.Fatalf("get: %d %s", r.status, r.body)
	}
}
