package review

// Conflicting pull requests: two open pull requests that change the same
// cluster folder or template file cannot both be merged as their plans
// say (the second merge applies on top of the first, or does not merge at
// all). keel cannot pick the winner; it tells the people on both sides.
// keel's own reviews cannot conflict with each other (a second API change
// of an object under review is a 409), so the pairs are a person's pull
// request with keel's review or with another person's.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
)

// maxTracked bounds the open pull requests whose objects keel remembers.
const maxTracked = forge.MaxOpen

// changedObjects are the cluster folders and template files a change
// touches (what a review's Object names).
func changedObjects(bs, hs *gitstore.Snapshot) ([]string, error) {
	paths, err := gitstore.ChangedPaths(bs, hs)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, p := range paths {
		if d, ok := intent.ClusterDirOfPath(p); ok {
			seen[d] = true
		} else if intent.IsTemplateFile(p) {
			seen[p] = true
		}
	}
	out := make([]string, 0, len(seen))
	for o := range seen {
		out = append(out, o)
	}
	sort.Strings(out)
	return out, nil
}

// conflicts records what pull request number changes and returns, per
// object, the other open pull requests that change it too: keel's reviews
// (from Pending) and the people's pull requests checked before (asked of
// the forge whether still open; closed and merged ones are forgotten).
func (p *PullChecks) conflicts(ctx context.Context, number int64, objects []string) []string {
	p.mu.Lock()
	if p.touched == nil {
		p.touched = map[int64][]string{}
	}
	if _, ok := p.touched[number]; !ok && len(p.touched) >= maxTracked {
		clear(p.touched) // beyond the forge's own bound: start over
	}
	p.touched[number] = objects
	others := map[int64][]string{}
	for n, objs := range p.touched {
		if n != number {
			others[n] = objs
		}
	}
	p.mu.Unlock()

	var out []string
	if p.Pending != nil {
		for _, r := range p.Pending.Open() {
			if r.Number != number && slices.Contains(objects, r.Object) {
				out = append(out, fmt.Sprintf("`%s` is also changed by keel's review #%d (%s, request %s)", r.Object, r.Number, r.URL, r.RequestID))
			}
		}
	}
	numbers := make([]int64, 0, len(others))
	for n := range others {
		numbers = append(numbers, n)
	}
	slices.Sort(numbers)
	for _, n := range numbers {
		var shared []string
		for _, o := range others[n] {
			if slices.Contains(objects, o) {
				shared = append(shared, o)
			}
		}
		if len(shared) == 0 {
			continue
		}
		// Merged, closed or unknown: forget it. The forge not answering:
		// say what is known.
		pr, err := p.Forge.PullRequest(ctx, n)
		if errors.Is(err, forge.ErrNotFound) || err == nil && pr.State != forge.Open {
			p.forget(n)
			continue
		}
		for _, o := range shared {
			out = append(out, fmt.Sprintf("`%s` is also changed by pull request #%d", o, n))
		}
	}
	sort.Strings(out)
	return out
}

// forget drops a pull request that is no longer open.
func (p *PullChecks) forget(number int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.touched, number)
}
