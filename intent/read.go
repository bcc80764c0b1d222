package intent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// Tree is a read-only view of a cluster repository: a commit
// (*gitstore.Snapshot) or a checkout (os.DirFS). It is the reading half of
// fs.ReadFileFS and fs.ReadDirFS, so that the API, keel compile/plan, the
// reconciler and the read model decode intent with the same code whatever
// they read it from. A missing path is an fs.ErrNotExist.
type Tree interface {
	ReadFile(name string) ([]byte, error)
	ReadDir(name string) ([]fs.DirEntry, error)
}

// ClusterState is a cluster's intent as stored in one folder.
type ClusterState struct {
	Dir        string
	Cluster    Cluster
	NodeGroups []NodeGroup
}

// Documents is one cluster's whole intent: what the compiler renders.
type Documents struct {
	Template   ClusterTemplate
	Cluster    Cluster
	NodeGroups []NodeGroup
	Facts      Facts
}

// readFile reads p, naming it in the error (an fs.PathError names it
// already). Absence stays an fs.ErrNotExist.
func readFile(t Tree, p string) ([]byte, error) {
	data, err := t.ReadFile(p)
	var pe *fs.PathError
	if err != nil && !errors.As(err, &pe) {
		err = fmt.Errorf("%s: %w", p, err)
	}
	return data, err
}

// readDir lists p; a missing folder lists as empty (no nodegroups, no
// projects).
func readDir(t Tree, p string) ([]fs.DirEntry, error) {
	es, err := t.ReadDir(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return es, err
}

func readDoc[T any](t Tree, p, kind string) (*T, error) {
	data, err := readFile(t, p)
	if err != nil {
		return nil, err
	}
	var v T
	if err := Decode(p, data, kind, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// ReadClusterDocument reads the cluster.yaml of the cluster folder dir
// alone (its nodegroups unread).
func ReadClusterDocument(t Tree, dir string) (*Cluster, error) {
	return readDoc[Cluster](t, path.Join(dir, ClusterFile), KindCluster)
}

// ReadCluster reads the intent of the cluster folder dir: the cluster and
// its nodegroups, by id. A nodegroup of another cluster (a file copied
// between folders) is an error naming the file.
func ReadCluster(t Tree, dir string) (*ClusterState, error) {
	c, err := ReadClusterDocument(t, dir)
	if err != nil {
		return nil, err
	}
	st := &ClusterState{Dir: dir, Cluster: *c}
	ngDir := path.Join(dir, NodeGroupsDir)
	es, err := readDir(t, ngDir)
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		if e.IsDir() {
			continue
		}
		p := path.Join(ngDir, e.Name())
		ng, err := readDoc[NodeGroup](t, p, KindNodeGroup)
		if err != nil {
			return nil, err
		}
		if ng.ClusterID != c.UUID {
			return nil, fmt.Errorf("%s: cluster_id %s is not the folder's cluster %s", p, ng.ClusterID, c.UUID)
		}
		st.NodeGroups = append(st.NodeGroups, *ng)
	}
	sort.SliceStable(st.NodeGroups, func(i, j int) bool { return st.NodeGroups[i].ID < st.NodeGroups[j].ID })
	return st, nil
}

// ReadTemplate reads the cluster template document at p.
func ReadTemplate(t Tree, p string) (*ClusterTemplate, error) {
	return readDoc[ClusterTemplate](t, p, KindClusterTemplate)
}

// FindTemplate reads a cluster template by UUID, searching every project
// (a cluster may run on another project's public template), and returns
// its path. Not found is an fs.ErrNotExist.
func FindTemplate(t Tree, uuid string) (*ClusterTemplate, string, error) {
	projects, err := readDir(t, ProjectsDir)
	if err != nil {
		return nil, "", err
	}
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		fp := TemplatePath(p.Name(), uuid)
		tmpl, err := ReadTemplate(t, fp)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return tmpl, fp, nil
	}
	return nil, "", fmt.Errorf("%s: %w", TemplatePath("*", uuid), fs.ErrNotExist)
}

// ReadFacts reads the OpenStack facts recorded in the cluster folder dir
// (zero when the folder records none).
func ReadFacts(t Tree, dir string) (Facts, error) {
	p := path.Join(dir, FactsFile)
	data, err := readFile(t, p)
	if errors.Is(err, fs.ErrNotExist) {
		return Facts{}, nil
	}
	if err != nil {
		return Facts{}, err
	}
	f, err := ParseFacts(data)
	if err != nil {
		return Facts{}, fmt.Errorf("%s: %w", p, err)
	}
	return f, nil
}

// ReadQuota reads the quota document at p.
func ReadQuota(t Tree, p string) (*Quota, error) {
	return readDoc[Quota](t, p, KindQuota)
}

// ReadDocuments reads everything the cluster folder dir compiles from: the
// cluster, its nodegroups, its template (from any project) and its facts.
// Secret material is not read: it is encrypted, and decrypting is repo's.
func ReadDocuments(t Tree, dir string) (*Documents, error) {
	st, err := ReadCluster(t, dir)
	if err != nil {
		return nil, err
	}
	tmpl, _, err := FindTemplate(t, st.Cluster.ClusterTemplateID)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: cluster template %s not found", dir, st.Cluster.ClusterTemplateID)
	}
	if err != nil {
		return nil, err
	}
	facts, err := ReadFacts(t, dir)
	if err != nil {
		return nil, err
	}
	return &Documents{Template: *tmpl, Cluster: st.Cluster, NodeGroups: st.NodeGroups, Facts: facts}, nil
}

// ClusterDirs lists the projects/*/clusters/* folders that hold a
// cluster.yaml, sorted.
func ClusterDirs(t Tree) ([]string, error) {
	var out []string
	projects, err := readDir(t, ProjectsDir)
	if err != nil {
		return nil, err
	}
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		clusters, err := readDir(t, path.Join(ProjectsDir, p.Name(), "clusters"))
		if err != nil {
			return nil, err
		}
		for _, c := range clusters {
			if !c.IsDir() {
				continue
			}
			dir := path.Join(ProjectsDir, p.Name(), "clusters", c.Name())
			if _, err := t.ReadFile(path.Join(dir, ClusterFile)); err == nil {
				out = append(out, dir)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// ParseDocuments reads a multi-document YAML stream holding one cluster
// template, one cluster, its nodegroups and at most one Facts document, in
// any order, as stored in Git (the input of `keel render -f`).
func ParseDocuments(data []byte) (*Documents, error) {
	d := &Documents{}
	var haveTemplate, haveCluster, haveFacts bool
	for i, doc := range splitDocuments(data) {
		var tm TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		name := fmt.Sprintf("document %d", i+1)
		switch tm.Kind {
		case KindClusterTemplate:
			if haveTemplate {
				return nil, fmt.Errorf("%s: a second ClusterTemplate", name)
			}
			haveTemplate = true
			if err := Decode(name, doc, tm.Kind, &d.Template); err != nil {
				return nil, err
			}
		case KindCluster:
			if haveCluster {
				return nil, fmt.Errorf("%s: a second Cluster", name)
			}
			haveCluster = true
			if err := Decode(name, doc, tm.Kind, &d.Cluster); err != nil {
				return nil, err
			}
		case KindNodeGroup:
			var ng NodeGroup
			if err := Decode(name, doc, tm.Kind, &ng); err != nil {
				return nil, err
			}
			d.NodeGroups = append(d.NodeGroups, ng)
		case KindFacts:
			if haveFacts {
				return nil, fmt.Errorf("%s: a second Facts document", name)
			}
			haveFacts = true
			f, err := ParseFacts(doc)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			d.Facts = f
		default:
			return nil, fmt.Errorf("%s: unexpected kind %q (want ClusterTemplate, Cluster, NodeGroup or Facts)", name, tm.Kind)
		}
	}
	if !haveTemplate || !haveCluster {
		return nil, fmt.Errorf("the input needs a ClusterTemplate and a Cluster document")
	}
	return d, nil
}

func splitDocuments(data []byte) [][]byte {
	var out [][]byte
	for _, d := range bytes.Split(append([]byte("\n"), data...), []byte("\n---")) {
		// Drop the rest of the separator line (it may carry a comment).
		i := bytes.IndexByte(d, '\n')
		if i < 0 {
			continue
		}
		d = d[i+1:]
		if strings.TrimSpace(string(d)) != "" {
			out = append(out, d)
		}
	}
	return out
}
