package magnumimport

import (
	"errors"
	"hash/fnv"
	"io/fs"
	"path"
	"strings"

	"github.com/openkeel/keel/intent"
)

// index is what a repository snapshot holds that the import compares
// with: objects by UUID (a second run updates them in place, keeping
// keel's ids and folders, and never duplicates them), the stack ids and
// integer ids in use.
type index struct {
	templates map[string]string // uuid → path
	clusters  map[string]*intent.ClusterState
	quotas    map[string]bool // project ids with a quota
	stackIDs  map[string]bool
	ids       map[string]map[int64]string // kind → id → uuid (project for quotas)
}

func newIndex() *index {
	return &index{templates: map[string]string{}, clusters: map[string]*intent.ClusterState{}, quotas: map[string]bool{},
		stackIDs: map[string]bool{}, ids: map[string]map[int64]string{
			intent.KindClusterTemplate: {}, intent.KindCluster: {}, intent.KindNodeGroup: {}, intent.KindQuota: {}}}
}

// readIndex reads every template, cluster (with nodegroups) and quota of t.
func readIndex(t intent.Tree) (*index, error) {
	ix := newIndex()
	projects, err := t.ReadDir(intent.ProjectsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		if err := ix.readProject(t, p.Name()); err != nil {
			return nil, err
		}
	}
	quotas, err := t.ReadDir(intent.QuotasDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, q := range quotas {
		fp := path.Join(intent.QuotasDir, q.Name())
		if !intent.IsQuotaFile(fp) {
			continue
		}
		doc, err := intent.ReadQuota(t, fp)
		if err != nil {
			return nil, err
		}
		ix.quotas[doc.ProjectID] = true
		ix.ids[intent.KindQuota][doc.ID] = doc.ProjectID
	}
	return ix, nil
}

func (ix *index) readProject(t intent.Tree, project string) error {
	tdir := path.Join(intent.ProjectsDir, project, "clustertemplates")
	es, err := t.ReadDir(tdir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, e := range es {
		fp := path.Join(tdir, e.Name())
		if !intent.IsTemplateFile(fp) {
			continue
		}
		doc, err := intent.ReadTemplate(t, fp)
		if err != nil {
			return err
		}
		ix.templates[doc.UUID] = fp
		ix.ids[intent.KindClusterTemplate][doc.ID] = doc.UUID
	}
	cdir := path.Join(intent.ProjectsDir, project, "clusters")
	es, err = t.ReadDir(cdir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, e := range es {
		if e.IsDir() {
			if err := ix.readCluster(t, path.Join(cdir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func (ix *index) readCluster(t intent.Tree, dir string) error {
	st, err := intent.ReadCluster(t, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	ix.addCluster(st)
	return nil
}

func (ix *index) addCluster(st *intent.ClusterState) {
	ix.clusters[st.Cluster.UUID] = st
	ix.stackIDs[st.Cluster.StackID] = true
	ix.ids[intent.KindCluster][st.Cluster.ID] = st.Cluster.UUID
	for _, ng := range st.NodeGroups {
		ix.ids[intent.KindNodeGroup][ng.ID] = ng.UUID
	}
}

// freeID is want when no other object of kind holds it, else 0.
func (ix *index) freeID(kind string, want int64, owner string) int64 {
	if got, ok := ix.ids[kind][want]; ok && got != owner {
		return 0
	}
	return want
}

// stackIDFor is keel's kube-xxxxx for a cluster whose Magnum stack_id is
// not of that form: derived from its UUID (so a second run picks the same
// one), the next derivation when another cluster holds it.
func (ix *index) stackIDFor(uuid string) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	for n := 0; ; n++ {
		h := fnv64(uuid + strings.Repeat("'", n))
		id := []byte(intent.StackIDPrefix)
		for range 5 {
			id = append(id, alphabet[h%36])
			h /= 36
		}
		if !ix.stackIDs[string(id)] {
			return string(id)
		}
	}
}

func fnv64(s string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return h.Sum64()
}
