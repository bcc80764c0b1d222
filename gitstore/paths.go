package gitstore

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalidPath: a change names a path keel never writes. Every path of
// every commit passes CheckPath, whatever built it: one crafted value that
// reached a tree ("..", ".git", a NUL) would make the repository fail `git
// fsck --strict`, be refused by a Git server with receive.fsckObjects, and
// fail every clone at checkout; its history could not be repaired without
// rewriting it.
var ErrInvalidPath = errors.New("gitstore: invalid repository path")

// Path limits: a segment is a file name on the clones' file systems (255
// bytes on ext4, XFS, APFS and NTFS), the whole path well below PATH_MAX.
const (
	maxSegment = 255
	maxPath    = 1024
)

// CheckPath reports whether p is a path keel may write: slash-separated
// segments of ASCII letters, digits, '.', '_' and '-', none empty, none "."
// or "..", none starting with ".git" (in any case: Git refuses to check
// those out, and fsck checks .gitmodules' content), a dot only as the
// first character of a hidden file's name that follows with a letter or
// digit (".keel", ".sops.yaml"). The set is narrower than what Git allows
// on purpose: these names check out unchanged on every file system a
// platform team clones to.
func CheckPath(p string) error {
	if p == "" || len(p) > maxPath {
		return fmt.Errorf("%w %s: empty or longer than %d bytes", ErrInvalidPath, strconv.Quote(clip(p)), maxPath)
	}
	for _, seg := range strings.Split(p, "/") {
		if why := segmentProblem(seg); why != "" {
			return fmt.Errorf("%w %s: %s", ErrInvalidPath, strconv.Quote(clip(p)), why)
		}
	}
	return nil
}

func segmentProblem(seg string) string {
	switch {
	case seg == "":
		return "an empty segment"
	case seg == "." || seg == "..":
		return "a '" + seg + "' segment"
	case len(seg) > maxSegment:
		return fmt.Sprintf("a segment longer than %d bytes", maxSegment)
	case strings.HasPrefix(strings.ToLower(seg), ".git"):
		return "a segment Git reserves (.git…)"
	case seg[0] == '.' && !isAlnum(seg[1]):
		return "a hidden name that does not start with a letter or digit"
	}
	for i := 0; i < len(seg); i++ {
		if c := seg[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return fmt.Sprintf("the byte %q, outside letters, digits, '.', '_' and '-'", c)
		}
	}
	return ""
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// clip bounds what an error quotes of a refused value.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// checkoutProblem reports why Git would refuse to check out a tree entry
// named name (verify_path in Git's read-cache.c, and fsck's
// hasDot/hasDotdot/hasDotgit/emptyName/fullPathname): "" when it would
// not. It is narrower than CheckPath: it decides whether a repository
// keel did not write entirely (an older keel, a pushed clone) can still be
// cloned.
func checkoutProblem(name string) string {
	switch {
	case name == "":
		return "an empty name"
	case name == "." || name == "..":
		return "the name " + strconv.Quote(name)
	case strings.EqualFold(strings.TrimRight(name, ". "), ".git"):
		return "the name " + strconv.Quote(name) + ", which Git reserves"
	case strings.ContainsAny(name, "/\x00"):
		return "the name " + strconv.Quote(name) + ", which holds a '/' or NUL"
	}
	return ""
}
