package gitea

import "testing"

// TestFromRepoURL: the clone URL keel pushes to names the server and the
// repository the adapter calls.
func TestFromRepoURL(t *testing.T) {
	for _, tc := range []struct {
		in, base, owner, repo string
		bad                   bool
	}{
		{in: "https://git.example.org/platform/clusters.git", base: "https://git.example.org", owner: "platform", repo: "clusters"},
		{in: "http://127.0.0.1:3000/keel-admin/clusters", base: "http://127.0.0.1:3000", owner: "keel-admin", repo: "clusters"},
		{in: "https://bot:secret@example.org/gitea/team/repo.git", base: "https://example.org/gitea", owner: "team", repo: "repo"},
		{in: "ssh://git@example.org/team/repo.git", bad: true},
		{in: "https://example.org/repo.git", bad: true},
	} {
		f, err := FromRepoURL(tc.in, "t")
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
		if f.baseURL != tc.base || f.owner != tc.owner || f.repo != tc.repo {
			t.Errorf("%s: %q %q %q, want %q %q %q", tc.in, f.baseURL, f.owner, f.repo, tc.base, tc.owner, tc.repo)
		}
	}
}
