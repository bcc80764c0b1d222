package magnumimport

import (
	"fmt"
	"path"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
)

// cluster plans one cluster folder: the cluster document and one per
// nodegroup, all refused together when any is. A cluster keel already
// manages (not a read-only record) is left alone.
func (pl *planner) cluster(o ClusterObject) error {
	doc := o.Doc
	what := fmt.Sprintf("cluster %s (%s)", doc.UUID, doc.Name)
	if o.Err != nil {
		pl.refuse("%s: %v", what, o.Err)
		return nil
	}
	old := pl.ix.clusters[doc.UUID]
	if old != nil && !old.Cluster.ReadOnly() {
		pl.plan.Skipped = append(pl.plan.Skipped, what+": keel manages it already (not overwritten)")
		return nil
	}
	oldNG := map[string]int64{}
	var oldID int64
	if old != nil {
		oldID, doc.StackID = old.Cluster.ID, old.Cluster.StackID
		for _, ng := range old.NodeGroups {
			oldNG[ng.UUID] = ng.ID
		}
	} else if doc.StackID == "" {
		doc.StackID = pl.ix.stackIDFor(doc.UUID)
	}
	pl.ix.stackIDs[doc.StackID] = true
	doc.ID = pl.id(intent.KindCluster, doc.ID, doc.UUID, oldID, &pl.seq.Clusters)
	dir := intent.ClusterDirOf(&doc)
	files := map[string][]byte{}
	data, ok := pl.document(what, path.Join(dir, intent.ClusterFile), intent.KindCluster, doc)
	if !ok {
		return nil
	}
	files[path.Join(dir, intent.ClusterFile)] = data
	for _, n := range o.NodeGroups {
		ng := n.Doc
		nwhat := fmt.Sprintf("nodegroup %s (%s) of %s", ng.UUID, ng.Name, what)
		if n.Err != nil {
			pl.refuse("%s: %v", nwhat, n.Err)
			return nil
		}
		ng.ID = pl.id(intent.KindNodeGroup, ng.ID, ng.UUID, oldNG[ng.UUID], &pl.seq.NodeGroups)
		p := intent.NodeGroupPath(dir, ng.Name)
		data, ok := pl.document(nwhat, p, intent.KindNodeGroup, ng)
		if !ok {
			return nil
		}
		files[p] = data
	}
	return pl.clusterFiles(o, what, dir, old, files)
}

// clusterFiles writes the folder's files that differ and removes what the
// folder held that Magnum no longer has (a nodegroup deleted, the folder
// of a renamed cluster).
func (pl *planner) clusterFiles(o ClusterObject, what, dir string, old *intent.ClusterState, files map[string][]byte) error {
	before := len(pl.unit.Changes)
	verb := "create"
	if old != nil {
		verb = "update"
		if old.Dir != dir {
			pl.unit.Changes = append(pl.unit.Changes, gitstore.Change{Path: old.Dir, Delete: true})
		} else {
			for _, ng := range old.NodeGroups {
				p := intent.NodeGroupPath(dir, ng.Name)
				if _, keep := files[p]; !keep {
					pl.unit.Changes = append(pl.unit.Changes, gitstore.Change{Path: p, Delete: true})
				}
			}
		}
	}
	for _, p := range sortedKeys(files) {
		if _, err := pl.write(p, files[p]); err != nil {
			return err
		}
	}
	cas, err := pl.pkiFile(o, dir, old)
	if err != nil {
		return err
	}
	if len(pl.unit.Changes) == before {
		verb = ""
	}
	pl.line(verb, "clusters", clusterDetail(o, what, cas))
	if verb != "" {
		pl.unit.Lines = append(pl.unit.Lines, normalizedLines("cluster", o.Normalized)...)
		for _, n := range o.NodeGroups {
			pl.unit.Lines = append(pl.unit.Lines, normalizedLines("nodegroup "+n.Doc.Name, n.Normalized)...)
		}
	}
	return nil
}

// clusterDetail is a cluster's plan line after the verb: what it is, and
// either why it is read-only or what adopting it changes.
func clusterDetail(o ClusterObject, what, cas string) string {
	head := fmt.Sprintf("%s, %d nodegroups", what, len(o.NodeGroups))
	if a := o.Doc.Adopted; a != nil {
		return fmt.Sprintf("%s, status %s, %s, %s", head, a.Status, cas, a.Verdict())
	}
	return fmt.Sprintf("%s, status %s, %s, read-only: %s", head, o.Doc.Imported.Status, cas, o.Doc.Imported.Reason)
}
