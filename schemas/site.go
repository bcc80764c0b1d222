package schemas

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/openkeel/keel/intent"
)

// SiteFile is where the cluster repository keeps the operator's site-wide
// narrowing of the schema (see docs/schema.md).
const SiteFile = DefaultSiteFile

// SiteError is a site file that does not load: the operator's file is
// broken, not the request, so the API refuses writes with a server error
// naming the file until it is fixed in Git.
type SiteError struct{ Err error }

func (e *SiteError) Error() string { return fmt.Sprintf("%s: %v", SiteFile, e.Err) }
func (e *SiteError) Unwrap() error { return e.Err }

// SiteCatalogue is the label catalogue of a repository tree (a commit or a
// checkout): the embedded schema narrowed by the tree's site.cue (the
// embedded schema alone when there is none). The API validates with it,
// repo.WriteCluster and keel compile compile with it and the reconciler's
// guard checks immutables with it, so a commit follows the site file of
// the tree it is made on. A site.cue that does not load is a *SiteError.
func SiteCatalogue(t intent.Tree) (*Catalogue, error) {
	ht, ok := t.(hashedTree)
	if !ok {
		src, err := t.ReadFile(SiteFile)
		if errors.Is(err, fs.ErrNotExist) {
			src, err = nil, nil
		}
		if err != nil {
			return nil, err
		}
		return SiteCatalogueSource(src)
	}
	h, err := ht.ObjectID(SiteFile)
	if errors.Is(err, fs.ErrNotExist) {
		return Load()
	}
	if err != nil {
		return nil, err
	}
	return siteCatalogue(h, func() ([]byte, error) {
		src, err := t.ReadFile(SiteFile)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &SiteError{errors.New("not a file")} // a folder
		}
		return src, err
	})
}

// hashedTree is a tree that knows its files' Git object ids (a
// gitstore.Snapshot): the cache is then looked up without reading the file.
type hashedTree interface {
	intent.Tree
	ObjectID(p string) (string, error)
}

// blobID is the Git blob object id of data (what git hash-object prints),
// so that a site file read from a checkout shares the cache entry of the
// same file read from a commit.
func blobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// SiteCatalogueSource is SiteCatalogue for a site file read elsewhere (a
// checkout, a --site file); nil src means no site file.
func SiteCatalogueSource(src []byte) (*Catalogue, error) {
	if src == nil {
		return Load()
	}
	return siteCatalogue(blobID(src), func() ([]byte, error) { return src, nil })
}

// siteCacheSize bounds the cache: a repository has one site file at a time,
// a few entries cover a change of it (and tests with several repositories).
const siteCacheSize = 4

type siteEntry struct {
	hash string
	once sync.Once
	cat  *Catalogue
	err  error
	// transient marks a read error (not the file's content): not cached.
	transient bool
}

// siteCache holds catalogues by the site file's blob hash, most recently
// used first: compiling the CUE schema takes far longer than a request, so
// each version of the file is compiled once (errors included), and
// concurrent requests for a new version wait for one compilation.
var siteCache struct {
	mu      sync.Mutex
	entries []*siteEntry
}

func siteCatalogue(h string, read func() ([]byte, error)) (*Catalogue, error) {
	e := siteEntryFor(h)
	e.once.Do(func() {
		src, err := read()
		if err != nil {
			var se *SiteError
			e.err, e.transient = err, !errors.As(err, &se)
			return
		}
		if e.cat, e.err = Default().WithSite(src); e.err != nil {
			e.err = &SiteError{e.err}
		}
	})
	if e.transient {
		dropSiteEntry(e)
	}
	return e.cat, e.err
}

func siteEntryFor(h string) *siteEntry {
	siteCache.mu.Lock()
	defer siteCache.mu.Unlock()
	es := siteCache.entries
	for i, e := range es {
		if e.hash == h {
			copy(es[1:i+1], es[:i])
			es[0] = e
			return e
		}
	}
	e := &siteEntry{hash: h}
	if len(es) < siteCacheSize {
		es = append(es, nil)
	}
	copy(es[1:], es)
	es[0] = e
	siteCache.entries = es
	return e
}

func dropSiteEntry(e *siteEntry) {
	siteCache.mu.Lock()
	defer siteCache.mu.Unlock()
	for i, x := range siteCache.entries {
		if x == e {
			siteCache.entries = append(siteCache.entries[:i], siteCache.entries[i+1:]...)
			return
		}
	}
}
