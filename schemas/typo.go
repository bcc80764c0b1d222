package schemas

import (
	"strings"
)

// A typo of a catalogue label K is a name that is not itself a catalogue
// label and that, lowercased (strings.ToLower, as CUE's strings.ToLower) with
// '-' replaced by '_', equals K or is one edit away from K: one rune
// inserted, deleted or substituted, or two adjacent runes swapped (the
// optimal string alignment distance). Such a name is refused with a
// suggestion, because a misspelt label silently loses its setting. Ignored
// Heat-era labels are never suggested. typos.cue implements the same rule in
// CUE; the tests check that both agree.

// Suggest returns the catalogue labels (ignored ones excepted) that name is
// a typo of, sorted; nil for catalogue labels and for unrelated names.
func (c *Catalogue) Suggest(name string) []string {
	if _, known := c.Lookup(name); known {
		return nil
	}
	var out []string
	for _, l := range c.labels {
		if !l.Ignored && isTypo(name, l.Name) {
			out = append(out, l.Name)
		}
	}
	return out
}

func isTypo(s, k string) bool {
	n := strings.ToLower(strings.ReplaceAll(s, "-", "_"))
	return n == k || osa([]rune(n), []rune(k)) == 1
}

// osa is the optimal string alignment distance, capped at 2 (only "one edit"
// matters).
func osa(a, b []rune) int {
	if d := len(a) - len(b); d > 1 || d < -1 {
		return 2
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], 2)
}
