package write

import (
	"crypto/rand"
	"errors"
	"math/big"
	"path"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/memo"
)

// The write path's own state in the repository, beside the documents a
// change is about: the counters behind Magnum's integer ids
// (intent.Sequences) and the clusters' stack ids, both read from the
// snapshot a change commits onto, so that a rebase recomputes them.

// SequencesChange writes the id counters back.
func SequencesChange(s *intent.Sequences) (gitstore.Change, error) {
	data, err := s.Marshal()
	if err != nil {
		return gitstore.Change{}, err
	}
	return gitstore.Change{Path: intent.SequencesPath, Data: data}, nil
}

// maxStackIDSets bounds the stack-id sets kept by clusters folder tree
// hash (a folder's content never changes under its hash): one entry per
// project is what a repository needs.
const maxStackIDSets = 4096

// StackIDs allocates clusters' stack ids (kube-xxxxx) unused in a
// snapshot. It is safe for concurrent use.
type StackIDs struct {
	sets memo.Map[string, map[string]bool] // by clusters folder tree hash
}

// NewStackIDs is an empty StackIDs.
func NewStackIDs() *StackIDs {
	return &StackIDs{sets: memo.Map[string, map[string]bool]{Max: maxStackIDSets}}
}

// New generates a stack id no cluster of the snapshot has.
func (s *StackIDs) New(sn *gitstore.Snapshot) (string, error) {
	for {
		id := intent.StackIDPrefix + randomString(5, "abcdefghijklmnopqrstuvwxyz0123456789")
		used, err := s.InUse(sn, id)
		if err != nil || !used {
			return id, err
		}
	}
}

// InUse reports whether a cluster of the snapshot has the stack id. It
// lists the projects and, per project, looks the id up in the stack ids of
// its clusters folder, cached by the folder's tree hash: a write changes
// one project's folder, so the others are not listed again, and the cost
// of a create does not grow with the clusters of other projects.
func (s *StackIDs) InUse(sn *gitstore.Snapshot, id string) (bool, error) {
	projects, err := sn.List(intent.ProjectsDir)
	if err != nil {
		return false, err
	}
	for _, p := range projects {
		set, err := s.inFolder(sn, path.Join(intent.ProjectsDir, p.Name, "clusters"))
		if err != nil {
			return false, err
		}
		if set[id] {
			return true, nil
		}
	}
	return false, nil
}

// inFolder is the set of stack ids of one clusters folder (none when the
// project has no clusters folder).
func (s *StackIDs) inFolder(sn *gitstore.Snapshot, dir string) (map[string]bool, error) {
	h, err := sn.ObjectID(dir)
	if errors.Is(err, gitstore.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if set, ok := s.sets.Get(h); ok {
		return set, nil
	}
	clusters, err := sn.List(dir)
	if err != nil {
		return nil, err
	}
	set := make(map[string]bool, len(clusters))
	for _, c := range clusters {
		if id, ok := intent.StackIDOfDir(c.Name); ok {
			set[id] = true
		}
	}
	s.sets.Put(h, set)
	return set, nil
}

func randomString(n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		k, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			panic(err) // the system's randomness failing is not recoverable
		}
		b[i] = alphabet[k.Int64()]
	}
	return string(b)
}
