// Package repo writes keel's cluster repository in terms of intent
// documents: it turns an intent change into the Git changes of one commit,
// rendered output included, and keeps the Secrets encrypted. Reading intent
// is intent.Read* (over a snapshot or a checkout), which the API and the
// `keel compile` command share, so the committed output is always what the
// compiler makes of the committed intent.
package repo

import (
	"fmt"
	"path"
	"time"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/schemas"
)

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
// the change: WriteCluster records them in the folder's intent.FactsFile
// and compiles with them. Zero facts mean "not resolved by this change":
// the facts recorded in the folder (if any) are compiled with and kept, so
// that the output is always what `keel compile` makes of the folder.
func WriteCluster(sn *gitstore.Snapshot, t *intent.ClusterTemplate, st *intent.ClusterState, facts intent.Facts, opts ...WriteOption) ([]gitstore.Change, error) {
	o := writeOptions{now: time.Now()}
	for _, opt := range opts {
		opt(&o)
	}
	var factsChange []gitstore.Change
	given := !facts.IsZero()
	if !given {
		var err error
		if facts, err = intent.ReadFacts(sn, st.Dir); err != nil {
			return nil, err
		}
	}
	if o.rotated != nil {
		facts.CredentialGeneration++
	}
	if given || o.rotated != nil {
		data, err := intent.MarshalFacts(facts)
		if err != nil {
			return nil, err
		}
		factsChange = []gitstore.Change{{Path: path.Join(st.Dir, intent.FactsFile), Data: data}}
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
	cat, err := schemas.SiteCatalogue(sn)
	if err != nil {
		return nil, err
	}
	docs, err := compiler.Compile(compiler.Input{Documents: intent.Documents{Template: *t, Cluster: st.Cluster, NodeGroups: st.NodeGroups, Facts: facts}, Secrets: secretIn, Catalogue: cat})
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
		data, err := sealRendered(sn, p, d.Bytes(), kr)
		if err != nil {
			return nil, err
		}
		changes = append(changes, gitstore.Change{Path: p, Data: data})
	}
	if secretIn != nil {
		changes = append(changes, sopsConfigChange(sn, kr)...)
	}
	// An adopted cluster's class is the other driver's, already on the
	// management cluster: rendering keel's class under its name would roll
	// every cluster on it.
	classDir := intent.ClusterClassDir(st.Cluster.ClusterClass)
	if !sn.Exists(classDir) && !st.Cluster.OnAdoptedClass() {
		cc, err := ClusterClassChanges(st.Cluster.ClusterClass)
		if err != nil {
			return nil, err
		}
		changes = append(changes, cc...)
	}
	return changes, nil
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
		changes = append(changes, gitstore.Change{Path: path.Join(dir, d.Path), Data: d.Bytes()})
	}
	return changes, nil
}
