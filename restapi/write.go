package restapi

import (
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"path"
	"strings"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
)

// sequences are the id counters (intent.Sequences).
type sequences = intent.Sequences

func readSequences(sn *gitstore.Snapshot) (*sequences, error) { return intent.ReadSequences(sn) }

// sequencesChange writes the counters back.
func sequencesChange(s *sequences) (gitstore.Change, error) {
	data, err := s.Marshal()
	if err != nil {
		return gitstore.Change{}, err
	}
	return gitstore.Change{Path: intent.SequencesPath, Data: data}, nil
}

// newStackID generates a kube-xxxxx name unused by any cluster of the
// snapshot.
func (s *Server) newStackID(sn *gitstore.Snapshot) (string, error) {
	for {
		id := intent.StackIDPrefix + randomString(5, "abcdefghijklmnopqrstuvwxyz0123456789")
		used, err := s.stackIDInUse(sn, id)
		if err != nil || !used {
			return id, err
		}
	}
}

// stackIDInUse reports whether a cluster of the snapshot has the stack id.
// It lists the projects and, per project, looks the id up in the stack ids
// of its clusters folder, cached by the folder's tree hash: a write changes
// one project's folder, so the others are not listed again, and the cost
// of a create does not grow with the clusters of other projects.
func (s *Server) stackIDInUse(sn *gitstore.Snapshot, id string) (bool, error) {
	projects, err := sn.List(intent.ProjectsDir)
	if err != nil {
		return false, err
	}
	for _, p := range projects {
		dir := path.Join(intent.ProjectsDir, p.Name, "clusters")
		h, err := sn.ObjectID(dir)
		if errors.Is(err, gitstore.ErrNotFound) {
			continue
		}
		if err != nil {
			return false, err
		}
		set, ok := s.stackIDs.Get(h)
		if !ok {
			clusters, err := sn.List(dir)
			if err != nil {
				return false, err
			}
			set = make(map[string]bool, len(clusters))
			for _, c := range clusters {
				if id, ok := intent.StackIDOfDir(c.Name); ok {
					set[id] = true
				}
			}
			s.stackIDs.Put(h, set)
		}
		if set[id] {
			return true, nil
		}
	}
	return false, nil
}

// maxStackIDSets bounds the stack-id sets kept by clusters folder tree
// hash (a folder's content never changes under its hash): one entry per
// project is what a repository needs.
const maxStackIDSets = 4096

func randomString(n int, alphabet string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		k, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			panic(err) // the system's randomness failing is not recoverable
		}
		b.WriteByte(alphabet[k.Int64()])
	}
	return b.String()
}

var greek = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
	"lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega"}

// generateName makes a name as Magnum's name generator does:
// <greek letter>-<1..24>-<suffix>.
func generateName(suffix string) string {
	k, _ := rand.Int(rand.Reader, big.NewInt(int64(len(greek))))
	n, _ := rand.Int(rand.Reader, big.NewInt(24))
	return fmt.Sprintf("%s-%d-%s", greek[k.Int64()], n.Int64()+1, suffix)
}
