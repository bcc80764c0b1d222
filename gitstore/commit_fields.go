package gitstore

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
)

// The committer of every commit keel writes; the author is the caller.
var committer = Signature{Name: "keel", Email: "keel@localhost"}

// object is the commit object of c on tree, at when (no parents): its
// message rendered by Message, its author's fields made safe by safeName
// and safeEmail, so that it always passes `git fsck --strict`.
func (c *Commit) object(tree plumbing.Hash, when time.Time) *gitobject.Commit {
	return &gitobject.Commit{
		Author:    signature(c.Author, when),
		Committer: signature(committer, when),
		Message:   c.Message(),
		TreeHash:  tree,
	}
}

func signature(s Signature, when time.Time) gitobject.Signature {
	return gitobject.Signature{Name: safeName(s.Name), Email: safeEmail(s.Email), When: when}
}

// safeName is an author name Git's ident parser reads back whole: one line,
// no '<' or '>' (they delimit the email), never empty.
func safeName(s string) string {
	s = strings.TrimSpace(strings.Map(dropAngles, escapeLine(s)))
	if s == "" {
		return "unknown"
	}
	return s
}

// safeEmail is an email Git's ident parser reads back whole: one line, no
// '<', '>' or space.
func safeEmail(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == ' ' {
			return '_'
		}
		return dropAngles(r)
	}, escapeLine(s))
	if s == "" {
		return "unknown@keel"
	}
	return s
}

func dropAngles(r rune) rune {
	if r == '<' || r == '>' {
		return -1
	}
	return r
}

// escapeLine writes every control character of s (C0, DEL, C1, and the
// Unicode line and paragraph separators) as a Go escape, and invalid UTF-8
// as U+FFFD, so that s is one printable line.
func escapeLine(s string) string { return escape(s, false) }

// escapeBody is escapeLine that keeps newlines and tabs.
func escapeBody(s string) string { return escape(s, true) }

func escape(s string, multiline bool) string {
	if isPlain(s, multiline) {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case multiline && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPlain: the fast path of every ordinary subject.
func isPlain(s string, multiline bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return false // decided rune by rune
		}
		if (c < 0x20 || c == 0x7f) && !(multiline && (c == '\n' || c == '\t')) {
			return false
		}
	}
	return utf8.ValidString(s)
}

// trailerKey keeps a trailer's key a Git trailer token (letters, digits and
// '-'); keel's keys are constants, this only guards a future caller.
func trailerKey(k string) string {
	k = strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && (isAlnum(byte(r)) || r == '-') {
			return r
		}
		return '-'
	}, k)
	if k == "" {
		return "Keel-Unknown"
	}
	return k
}
