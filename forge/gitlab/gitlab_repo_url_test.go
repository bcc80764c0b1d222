package gitlab

import "testing"

// TestParseRepoURL: the clone URL keel pushes to names the server and the
// project (its full path, groups nested) the adapter calls.
func TestParseRepoURL(t *testing.T) {
	for _, tc := range []struct {
		in, base, project string
		bad               bool
	}{
		{in: "https://gitlab.com/my-group/my-project.git", base: "https://gitlab.com", project: "my-group/my-project"},
		{in: "https://oauth2:secret@gitlab.example.org/platform/infra/clusters.git", base: "https://gitlab.example.org", project: "platform/infra/clusters"},
		{in: "http://127.0.0.1:8080/my-group/my-project/", base: "http://127.0.0.1:8080", project: "my-group/my-project"},
		{in: "git@gitlab.com:my-group/my-project.git", bad: true},
		{in: "ssh://git@gitlab.com/my-group/my-project.git", bad: true},
		{in: "https://gitlab.com/my-project.git", bad: true},
		{in: "https://gitlab.com/my-group/my-project/-/tree/main", bad: true},
		{in: "https://gitlab.com/my-group//my-project", bad: true},
	} {
		base, project, err := parseRepoURL(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%s: no error", tc.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if base != tc.base || project != tc.project {
			t.Errorf("%s: %q %q, want %q %q", tc.in, base, project, tc.base, tc.project)
		}
	}
	f, err := FromRepoURL("https://gitlab.example.org/platform/infra/clusters.git", token)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.client.BaseURL().String(); got != "https://gitlab.example.org/api/v4/" {
		t.Errorf("the API is %s", got)
	}
}
