// Package repo reads and writes keel's cluster repository in terms of intent
// documents: it loads a cluster's compiler input from a snapshot and turns an
// intent change into the Git changes of one commit, rendered output
// included. The API and the `keel compile` command share it, so the
// committed output is always what the compiler makes of the committed intent.
package repo

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"time"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
)

// ClusterState is a cluster's intent as stored in one folder.
type ClusterState struct {
	Dir        string
	Cluster    intent.Cluster
	NodeGroups []intent.NodeGroup
}

// LoadCluster reads the intent of the cluster folder dir.
func LoadCluster(sn *gitstore.Snapshot, dir string) (*ClusterState, error) {
	data, err := sn.ReadFile(path.Join(dir, intent.ClusterFile))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	st := &ClusterState{Dir: dir}
	if err := intent.Decode(path.Join(dir, intent.ClusterFile), data, intent.KindCluster, &st.Cluster); err != nil {
		return nil, err
	}
	err = sn.Walk(path.Join(dir, intent.NodeGroupsDir), func(p string, data []byte) error {
		var ng intent.NodeGroup
		if err := intent.Decode(p, data, intent.KindNodeGroup, &ng); err != nil {
			return err
		}
		st.NodeGroups = append(st.NodeGroups, ng)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(st.NodeGroups, func(i, j int) bool { return st.NodeGroups[i].ID < st.NodeGroups[j].ID })
	return st, nil
}

// LoadTemplate reads a cluster template by UUID, searching every project
// (a cluster may run on another project's public template).
func LoadTemplate(sn *gitstore.Snapshot, uuid string) (*intent.ClusterTemplate, string, error) {
	projects, err := sn.List(intent.ProjectsDir)
	if err != nil {
		return nil, "", err
	}
	for _, p := range projects {
		fp := intent.TemplatePath(p.Name, uuid)
		data, err := sn.ReadFile(fp)
		if errors.Is(err, gitstore.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		var t intent.ClusterTemplate
		if err := intent.Decode(fp, data, intent.KindClusterTemplate, &t); err != nil {
			return nil, "", err
		}
		return &t, fp, nil
	}
	return nil, "", gitstore.ErrNotFound
}

// Document marshals an intent document.
func Document(p string, v any) (gitstore.Change, error) {
	data, err := intent.Marshal(v)
	if err != nil {
		return gitstore.Change{}, err
	}
	return gitstore.Change{Path: p, Data: data}, nil
}

// WriteCluster returns the changes that store a cluster's intent and its
// freshly rendered output (the old rendered folder is replaced whole, so a
// document the compiler no longer makes disappears). It also renders the
// cluster's ClusterClass when the repository does not hold it yet.
//
// With WithSecrets it also generates a new cluster's key material and
// renders the cluster's Secrets, encrypted (see secrets.go).
//
// facts are the cluster's OpenStack facts, resolved when the API accepted
// the change: WriteCluster records them in the folder's compiler.FactsFile
// and compiles with them. Zero facts mean "not resolved by this change":
// the facts recorded in the folder (if any) are compiled with and kept, so
// that the output is always what `keel compile` makes of the folder.
func WriteCluster(sn *gitstore.Snapshot, t *intent.ClusterTemplate, st *ClusterState, facts compiler.Facts, opts ...WriteOption) ([]gitstore.Change, error) {
	o := writeOptions{now: time.Now()}
	for _, opt := range opts {
		opt(&o)
	}
	var factsChange []gitstore.Change
	if isZeroFacts(facts) {
		var err error
		if facts, err = LoadFacts(sn, st.Dir); err != nil {
			return nil, err
		}
	} else {
		data, err := compiler.MarshalFacts(facts)
		if err != nil {
			return nil, err
		}
		factsChange = []gitstore.Change{{Path: path.Join(st.Dir, compiler.FactsFile), Data: data}}
	}
	secretIn, changes, err := secretInput(sn, st, &o)
	if err != nil {
		return nil, err
	}
	c, err := Document(path.Join(st.Dir, intent.ClusterFile), st.Cluster)
	if err != nil {
		return nil, err
	}
	changes = append(changes, c)
	changes = append(changes, factsChange...)
	// The nodegroups folder is rewritten whole: a nodegroup left out of the
	// state leaves Git in the same commit.
	changes = append(changes, gitstore.Change{Path: path.Join(st.Dir, intent.NodeGroupsDir), Delete: true})
	for _, ng := range st.NodeGroups {
		c, err := Document(intent.NodeGroupPath(st.Dir, ng.Name), ng)
		if err != nil {
			return nil, err
		}
		changes = append(changes, c)
	}
	// The site file of the tree the commit is made on: the commit's output
	// is what `keel compile` makes of the commit.
	cat, err := SiteCatalogue(sn)
	if err != nil {
		return nil, err
	}
	docs, err := compiler.Compile(compiler.Input{Template: *t, Cluster: st.Cluster, NodeGroups: st.NodeGroups, Facts: facts, Secrets: secretIn, Catalogue: cat})
	if err != nil {
		return nil, fmt.Errorf("compiling cluster %s: %w", st.Cluster.Name, err)
	}
	rendered := intent.RenderedPath(st.Dir)
	changes = append(changes, gitstore.Change{Path: rendered, Delete: true})
	var kr *secrets.Keyring
	if o.secrets != nil {
		kr = o.secrets.Keyring
	}
	for _, d := range docs {
		p := path.Join(rendered, d.Path)
		data, err := sealRendered(sn, p, d.Data, kr)
		if err != nil {
			return nil, err
		}
		changes = append(changes, gitstore.Change{Path: p, Data: data})
	}
	if secretIn != nil {
		changes = append(changes, sopsConfigChange(sn, kr)...)
	}
	classDir := intent.ClusterClassDir(st.Cluster.ClusterClass)
	if !sn.Exists(classDir) {
		cc, err := ClusterClassChanges(st.Cluster.ClusterClass)
		if err != nil {
			return nil, err
		}
		changes = append(changes, cc...)
	}
	return changes, nil
}

// LoadFacts reads the OpenStack facts recorded in the cluster folder dir
// (zero when the folder records none).
func LoadFacts(sn *gitstore.Snapshot, dir string) (compiler.Facts, error) {
	p := path.Join(dir, compiler.FactsFile)
	data, err := sn.ReadFile(p)
	if errors.Is(err, gitstore.ErrNotFound) {
		return compiler.Facts{}, nil
	}
	if err != nil {
		return compiler.Facts{}, err
	}
	f, err := compiler.ParseFacts(data)
	if err != nil {
		return compiler.Facts{}, fmt.Errorf("%s: %w", p, err)
	}
	return f, nil
}

func isZeroFacts(f compiler.Facts) bool {
	return len(f.FlavorNames) == 0 && len(f.ImageUUIDs) == 0 && f.ExternalNetworkID == "" &&
		len(f.Flavors) == 0 && len(f.ImageDiskBuses) == 0 && f.FixedNetworkID == "" &&
		f.FixedSubnetID == "" && len(f.ServerGroupIDs) == 0
}

// ClusterClassChanges renders a ClusterClass folder.
func ClusterClassChanges(name string) ([]gitstore.Change, error) {
	docs, err := compiler.ClusterClass(name)
	if err != nil {
		return nil, err
	}
	dir := intent.ClusterClassDir(name)
	changes := []gitstore.Change{{Path: dir, Delete: true}}
	for _, d := range docs {
		changes = append(changes, gitstore.Change{Path: path.Join(dir, d.Path), Data: d.Data})
	}
	return changes, nil
}
