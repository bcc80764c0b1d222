package github

import "testing"

// TestParseRepoURL: the clone URL keel pushes to names the API (github.com's
// or a GitHub Enterprise Server's) and the repository the adapter calls.
func TestParseRepoURL(t *testing.T) {
	for _, tc := range []struct {
		in, api, owner, repo string
		bad                  bool
	}{
		{in: "https://github.com/octocat/Hello-World.git", owner: "octocat", repo: "Hello-World"},
		{in: "https://bot:secret@github.com/octocat/Hello-World", owner: "octocat", repo: "Hello-World"},
		{in: "https://ghe.example.org/platform/clusters.git", api: "https://ghe.example.org/api/v3/", owner: "platform", repo: "clusters"},
		{in: "http://127.0.0.1:8080/platform/clusters/", api: "http://127.0.0.1:8080/api/v3/", owner: "platform", repo: "clusters"},
		{in: "git@github.com:octocat/Hello-World.git", bad: true},
		{in: "ssh://git@github.com/octocat/Hello-World.git", bad: true},
		{in: "https://github.com/Hello-World.git", bad: true},
		{in: "https://github.com/octocat/Hello-World/tree/main", bad: true},
		{in: "https://github.com/octocat/.git", bad: true},
	} {
		api, owner, repo, err := parseRepoURL(tc.in)
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
		if api != tc.api || owner != tc.owner || repo != tc.repo {
			t.Errorf("%s: %q %q %q, want %q %q %q", tc.in, api, owner, repo, tc.api, tc.owner, tc.repo)
		}
	}
	f, err := FromRepoURL("https://github.com/octocat/Hello-World.git", token)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.client.BaseURL.String(); got != "https://api.github.com/" {
		t.Errorf("github.com's API is %s", got)
	}
}
