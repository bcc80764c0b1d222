package magnumimport

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/schemas"
)

// DriverMagnumClusterAPI names vexxhost's magnum-cluster-api in an
// adoption record (intent.Adopted.From).
const DriverMagnumClusterAPI = "magnum-cluster-api"

// Found is what the management cluster holds of a Magnum cluster made by
// a Cluster API driver: its Cluster's class, topology and cluster network
// (Cluster API v1beta2, as the API server serves them), and the replicas
// its control plane and MachineDeployments run.
type Found struct {
	Class          string
	Version        string
	Topology       map[string]any
	ClusterNetwork map[string]any
	// ControlPlane is the control plane's replica count; Workers each
	// MachineDeployment topology's, by name (-1: autoscaled, no replicas).
	ControlPlane int64
	Workers      map[string]int64
	// FieldManagers are the driver's managers of the Cluster's topology.
	FieldManagers []intent.FieldManager
}

// Finder looks a cluster up on the management cluster: the Cluster named
// stackID in magnum-system, labelled cluster-uuid=uuid. nil, nil when there
// is none: the cluster is then imported as a read-only record.
type Finder interface {
	Find(ctx context.Context, stackID, uuid string) (*Found, error)
}

// NotAdoptable is a Finder's answer for a cluster it found but keel cannot
// adopt, and why: the cluster is imported as a read-only record that says
// so.
type NotAdoptable struct{ Why string }

func (e NotAdoptable) Error() string { return "keel cannot adopt it: " + e.Why }

// AdoptOptions tune Adopt.
type AdoptOptions struct {
	// Changes lets an adoption go on when keel's first apply would change
	// the cluster (Magnum's counts or kube_tag differ from what runs).
	Changes bool
}

// Adopt looks up, through f, every cluster a Cluster API driver made, and
// turns those it finds into adopted clusters (intent.Adopted) that keel
// manages from the import on, keeping their ClusterClass and topology. A
// cluster whose adoption would change what runs stays a read-only record
// whose reason lists the changes, unless o.Changes. Only an unreachable
// management cluster is an error.
func (m *Magnum) Adopt(ctx context.Context, f Finder, o AdoptOptions) error {
	for i := range m.Clusters {
		c := &m.Clusters[i]
		if c.Err != nil || c.Doc.Imported == nil || c.Doc.Imported.Driver != DriverClusterAPI || c.Doc.StackID == "" {
			continue
		}
		found, err := f.Find(ctx, c.Doc.StackID, c.Doc.UUID)
		var no NotAdoptable
		if errors.As(err, &no) {
			c.Doc.Imported.Reason = strings.Replace(c.Doc.Imported.Reason, notAdoptedYet, "keel cannot adopt it: "+no.Why, 1)
			continue
		}
		if err != nil {
			return fmt.Errorf("cluster %s (%s): %w", c.Doc.UUID, c.Doc.Name, err)
		}
		if found == nil {
			c.Doc.Imported.Reason = strings.Replace(c.Doc.Imported.Reason, notAdoptedYet,
				fmt.Sprintf("keel found no Cluster %s labelled cluster-uuid=%s on the management cluster to adopt", c.Doc.StackID, c.Doc.UUID), 1)
			continue
		}
		changes := adoptionChanges(c, found)
		if len(changes) > 0 && !o.Changes {
			c.Doc.Imported.Reason = strings.Replace(c.Doc.Imported.Reason, notAdoptedYet,
				"adopting it would change what runs ("+strings.Join(changes, "; ")+"); keel import --adopt-changes adopts it anyway", 1)
			continue
		}
		c.Doc.Adopted = &intent.Adopted{From: DriverMagnumClusterAPI, Status: c.Doc.Imported.Status, Class: found.Class,
			Topology: found.Topology, ClusterNetwork: found.ClusterNetwork, FieldManagers: found.FieldManagers, Changes: changes}
		c.Doc.ClusterClass = found.Class
		c.Doc.Imported = nil
	}
	return nil
}

// adoptionChanges lists what keel's first apply would change in the found
// cluster: the counts Magnum holds against the replicas that run, a
// MachineDeployment Magnum has no nodegroup for (keel would delete its
// machines), and Magnum's kube_tag against the running version.
func adoptionChanges(c *ClusterObject, f *Found) []string {
	var out []string
	known := map[string]bool{}
	for _, n := range c.NodeGroups {
		ng := n.Doc
		have, ok := f.ControlPlane, true
		if ng.Role != intent.RoleMaster {
			have, ok = f.Workers[ng.Name]
			known[ng.Name] = true
		}
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("nodegroup %s has no MachineDeployment", ng.Name))
		case have >= 0 && have != ng.NodeCount:
			out = append(out, fmt.Sprintf("nodegroup %s: %d machines run, Magnum's node_count is %d", ng.Name, have, ng.NodeCount))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(f.Workers)) {
		if !known[name] {
			out = append(out, fmt.Sprintf("MachineDeployment %s is no Magnum nodegroup, and its machines would be deleted", name))
		}
	}
	if tag := strings.TrimPrefix(c.Doc.Labels[schemas.LabelKubeTag], "v"); tag != "" && tag != strings.TrimPrefix(f.Version, "v") {
		out = append(out, fmt.Sprintf("kube_tag %s, but Kubernetes %s runs", c.Doc.Labels[schemas.LabelKubeTag], f.Version))
	}
	return out
}
