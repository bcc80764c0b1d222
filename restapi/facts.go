package restapi

// OpenStack lookups: resolving what a change references (images, flavors,
// networks...) through Config.Cloud when the API accepts it, and recording
// the answers as the cluster's intent.Facts next to its intent.

import (
	"cmp"
	"context"
	"fmt"
	"sort"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/lookup"
	"github.com/openkeel/keel/schemas"
)

// factRefs are the OpenStack references a cluster's compilation resolves.
type factRefs struct {
	flavors, images                            map[string]bool
	externalNetwork, fixedNetwork, fixedSubnet string
	// boot holds, per flavor, the raw boot_volume_size label of each set of
	// machines on it ("" when unset): the root-volume check needs the
	// flavors some machines boot from the flavor's own disk. Raw values,
	// because the default is the server's catalogue's (see rootDiskFlavors).
	boot map[string][]string
}

// clusterRefs lists what the compiler resolves for a cluster, as it picks
// it (compiler/topology.go): the control plane's and the workers' flavors,
// every nodegroup's flavor and image, the template's image and external
// network, the fixed network and subnet.
func clusterRefs(t *intent.ClusterTemplate, c *intent.Cluster, ngs []intent.NodeGroup) factRefs {
	r := factRefs{flavors: map[string]bool{}, images: map[string]bool{}, boot: map[string][]string{}}
	add := func(m map[string]bool, v string) {
		if v != "" {
			m[v] = true
		}
	}
	// boots notes the boot_volume_size a flavor's machines get: the
	// nodegroup's label, else the cluster's (as the compiler renders it).
	boots := func(flavor string, labels ...map[string]string) {
		if flavor == "" {
			return
		}
		v := ""
		for _, l := range labels {
			if x, ok := l[schemas.LabelBootVolumeSize]; ok {
				v = x
			}
		}
		r.boot[flavor] = append(r.boot[flavor], v)
	}
	var masterFlavor string
	for _, ng := range ngs {
		if ng.Role == intent.RoleMaster && masterFlavor == "" {
			masterFlavor = intent.Deref(ng.FlavorID)
		}
		add(r.flavors, intent.Deref(ng.FlavorID))
		add(r.images, intent.Deref(ng.ImageID))
	}
	cpFlavor := cmp.Or(intent.Deref(c.MasterFlavorID), masterFlavor, intent.Deref(t.MasterFlavorID))
	workerFlavor := cmp.Or(intent.Deref(c.FlavorID), intent.Deref(t.FlavorID))
	add(r.flavors, cpFlavor)
	add(r.flavors, workerFlavor)
	// The control plane takes the cluster's labels; each worker nodegroup
	// its own over the cluster's. Without nodegroups (a template, a new
	// cluster), the default worker is on the worker flavor.
	boots(cpFlavor, c.Labels)
	if ngs == nil {
		boots(workerFlavor, c.Labels)
	}
	for _, ng := range ngs {
		if ng.Role != intent.RoleMaster {
			boots(cmp.Or(intent.Deref(ng.FlavorID), workerFlavor), c.Labels, ng.Labels)
		}
	}
	add(r.images, t.ImageID)
	r.externalNetwork = intent.Deref(t.ExternalNetworkID)
	r.fixedNetwork = cmp.Or(intent.Deref(c.FixedNetwork), intent.Deref(t.FixedNetwork))
	r.fixedSubnet = cmp.Or(intent.Deref(c.FixedSubnet), intent.Deref(t.FixedSubnet))
	return r
}

// minus is what r references and before did not.
func (r factRefs) minus(before factRefs) factRefs {
	out := factRefs{flavors: map[string]bool{}, images: map[string]bool{}}
	for k := range r.flavors {
		if !before.flavors[k] {
			out.flavors[k] = true
		}
	}
	for k := range r.images {
		if !before.images[k] {
			out.images[k] = true
		}
	}
	if r.externalNetwork != before.externalNetwork {
		out.externalNetwork = r.externalNetwork
	}
	if r.fixedNetwork != before.fixedNetwork || r.fixedSubnet != before.fixedSubnet {
		out.fixedNetwork, out.fixedSubnet = r.fixedNetwork, r.fixedSubnet
	}
	return out
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// resolver resolves a request's references through a lookup.Cache (package
// lookup: the cloud as the caller sees it, remembered), and
// checks and records what it finds.
type resolver struct {
	*lookup.Cache
	cat *schemas.Catalogue // boot_volume_size's default
	// serverGroupsFor names the nodegroups whose Nova server group the
	// change ensures (the new ones; server_groups.go).
	serverGroupsFor map[string]bool
}

// newResolver is a request's resolver, ensuring the server groups of the
// nodegroups named by groups.
func (s *Server) newResolver(projectID, userID string, groups ...string) *resolver {
	l := &resolver{Cache: lookup.New(s.cloud(), openstack.Scope{ProjectID: projectID, UserID: userID}), cat: s.catalogue()}
	for _, g := range groups {
		setKey(&l.serverGroupsFor, g, true)
	}
	return l
}

func (s *Server) cloud() openstack.Cloud {
	if s.cfg.Cloud == nil {
		return openstack.Given{}
	}
	return s.cfg.Cloud
}

// volumeTypeLabels are the labels naming a Cinder volume type.
var volumeTypeLabels = []string{schemas.LabelBootVolumeType, schemas.LabelDockerVolumeType, schemas.LabelEtcdVolumeType}

// checkVolumeTypes checks the volume types labels name, except those
// before already named (nil: all).
func (l *resolver) checkVolumeTypes(ctx context.Context, labels, before map[string]string) error {
	for _, label := range volumeTypeLabels {
		if v := labels[label]; v != "" && (before == nil || before[label] != v) {
			if err := l.VolumeType(ctx, v); err != nil {
				return lookup.Error(err)
			}
		}
	}
	return nil
}

// rootDiskFlavors are the flavors of refs some machines boot from the
// flavor's own disk: boot_volume_size 0, its label else the catalogue's
// default (the server's, Magnum's [cinder] default_boot_volume_size). An
// invalid value is left to the label validation.
func (l *resolver) rootDiskFlavors(refs factRefs) map[string]bool {
	out := map[string]bool{}
	for flavor, values := range refs.boot {
		for _, v := range values {
			labels := map[string]string{}
			if v != "" {
				labels[schemas.LabelBootVolumeSize] = v
			}
			if n, err := l.cat.Int(labels, schemas.LabelBootVolumeSize); err == nil && n == 0 {
				out[flavor] = true
			}
		}
	}
	return out
}

// newRootDiskFlavors are the root-disk flavors of refs that were not so in
// before: what a change makes boot from a flavor's own disk (a new flavor,
// or boot_volume_size now 0).
func (l *resolver) newRootDiskFlavors(refs, before factRefs) map[string]bool {
	need := l.rootDiskFlavors(refs)
	for ref := range l.rootDiskFlavors(before) {
		delete(need, ref)
	}
	return need
}

// zeroRootDisk is Magnum's FlavorZeroRootVolumeNotSupported (400), its
// message followed by which flavor and what to do.
func zeroRootDisk(ref, name string) error {
	which := ref
	if name != "" && name != ref {
		which = fmt.Sprintf("%s (%s)", ref, name)
	}
	return apierr.BadRequest("Flavor with zero root volume size is not supported when boot_volume_size is zero. "+
		"Flavor %s has a 0 GB root disk: set the %s label to the size in GB of a boot volume, or use a flavor with a root disk.",
		which, schemas.LabelBootVolumeSize)
}

// checkRootDisks refuses a flavor of need whose facts give it a 0 GB root
// disk. A flavor without recorded sizes (openstack.Given) is unknown and
// passes: keel cannot tell, and Nova will.
func checkRootDisks(f intent.Facts, need map[string]bool) error {
	for _, ref := range sortedSet(need) {
		name, ok := f.FlavorNames[ref]
		if !ok {
			continue
		}
		if size, sized := f.Flavors[name]; sized && size.DiskGiB == 0 {
			return zeroRootDisk(ref, name)
		}
	}
	return nil
}

// validateTemplate checks a template's references in Magnum's order:
// image (recording its os_distro as the template's cluster_distro), master
// and worker flavors, external network, fixed network and subnet; then, as
// keel does for clusters, the volume types its labels name (every cluster
// on it inherits them).
func (l *resolver) validateTemplate(ctx context.Context, t *intent.ClusterTemplate) error {
	img, err := l.Image(ctx, t.ImageID)
	if err != nil {
		return lookup.Error(err)
	}
	if img.OSDistro != "" {
		t.ClusterDistro = intent.Ptr(img.OSDistro)
	}
	refs := templateRefs(t)
	if _, err = l.facts(ctx, refs, refs, intent.Facts{}); err != nil {
		return err
	}
	return l.checkVolumeTypes(ctx, t.Labels, nil)
}

// templateRefs are a template's references, its labels standing for the
// cluster's.
func templateRefs(t *intent.ClusterTemplate) factRefs {
	return clusterRefs(t, &intent.Cluster{Labels: t.Labels}, nil)
}

// validateTemplateChange resolves what a template PATCH changes, as create
// does and with its errors: a new image (its os_distro is not re-derived,
// as in Magnum), new flavors, a new external network, a changed fixed
// network or subnet (both, the subnet being looked up in the network),
// newly named volume types. Unchanged references are not asked again.
// keypair_id is not checked, as on create: it is the cluster creator's
// keypair, checked at cluster create.
func (l *resolver) validateTemplateChange(ctx context.Context, cur, next *intent.ClusterTemplate) error {
	before, after := templateRefs(cur), templateRefs(next)
	resolve := after.minus(before)
	if _, err := l.facts(ctx, resolve, resolve, intent.Facts{}); err != nil {
		return err
	}
	return l.checkVolumeTypes(ctx, next.Labels, cur.Labels)
}

// checkTemplateRootDisks is Magnum's root-volume check of a template's
// flavors, on create (before nil) and on PATCH, where only flavors that
// newly boot from their own disk (a new flavor, or boot_volume_size now 0)
// are checked, with the new labels.
func (l *resolver) checkTemplateRootDisks(ctx context.Context, t, before *intent.ClusterTemplate) error {
	var was factRefs
	if before != nil {
		was = templateRefs(before)
	}
	need := l.newRootDiskFlavors(templateRefs(t), was)
	for _, ref := range sortedSet(need) {
		fl, err := l.Flavor(ctx, ref)
		if err != nil {
			return lookup.Error(err)
		}
		if fl.Sized() && fl.DiskGiB == 0 {
			return zeroRootDisk(ref, fl.Name)
		}
	}
	return nil
}

// facts computes a cluster's facts: refs are everything the cluster
// references, of which the ones in resolve are looked up and the others
// carried over from recorded (a reference recorded nowhere is left out:
// the compiler renders it as given). Errors are Magnum errors.
func (l *resolver) facts(ctx context.Context, refs, resolve factRefs, recorded intent.Facts) (intent.Facts, error) {
	f := intent.Facts{ServerGroupIDs: recorded.ServerGroupIDs, CredentialGeneration: recorded.CredentialGeneration}
	// Magnum's order: image, flavors, external network, fixed network and
	// subnet.
	for _, ref := range sortedSet(refs.images) {
		uuid, ok := recorded.ImageUUIDs[ref]
		bus := recorded.ImageDiskBuses[uuid]
		if resolve.images[ref] {
			img, err := l.Image(ctx, ref)
			if err != nil {
				return f, lookup.Error(err)
			}
			uuid, bus, ok = img.UUID, img.HwDiskBus, true
		}
		if !ok {
			continue
		}
		setKey(&f.ImageUUIDs, ref, uuid)
		if bus != "" {
			setKey(&f.ImageDiskBuses, uuid, bus)
		}
	}
	for _, ref := range sortedSet(refs.flavors) {
		name, ok := recorded.FlavorNames[ref]
		size, sized := recorded.Flavors[name]
		if resolve.flavors[ref] {
			fl, err := l.Flavor(ctx, ref)
			if err != nil {
				return f, lookup.Error(err)
			}
			name, ok = fl.Name, true
			size, sized = intent.Flavor{VCPUs: fl.VCPUs, RAMMiB: fl.RAMMiB, DiskGiB: fl.DiskGiB}, fl.Sized()
		}
		if !ok {
			continue
		}
		setKey(&f.FlavorNames, ref, name)
		if sized {
			setKey(&f.Flavors, name, size)
		}
	}
	if refs.externalNetwork != "" {
		f.ExternalNetworkID = recorded.ExternalNetworkID
		if resolve.externalNetwork != "" {
			n, err := l.ExternalNetwork(ctx, refs.externalNetwork)
			if err != nil {
				return f, lookup.Error(err)
			}
			f.ExternalNetworkID = n.ID
		}
	}
	if refs.fixedNetwork != "" || refs.fixedSubnet != "" {
		f.FixedNetworkID, f.FixedSubnetID = recorded.FixedNetworkID, recorded.FixedSubnetID
		if resolve.fixedNetwork != "" || resolve.fixedSubnet != "" {
			f.FixedNetworkID, f.FixedSubnetID = "", ""
			if refs.fixedNetwork != "" {
				n, err := l.Network(ctx, refs.fixedNetwork)
				if err != nil {
					return f, lookup.Error(err)
				}
				f.FixedNetworkID = n.ID
			}
			if refs.fixedSubnet != "" {
				sn, err := l.Subnet(ctx, refs.fixedSubnet, f.FixedNetworkID)
				if err != nil {
					return f, lookup.Error(err)
				}
				f.FixedSubnetID = sn.ID
			}
		}
	}
	return f, nil
}

func setKey[V any](m *map[string]V, k string, v V) {
	if *m == nil {
		*m = map[string]V{}
	}
	(*m)[k] = v
}

// validateCluster checks what a new cluster needs beyond its facts: the
// keypair (Magnum's 404) and the Cinder volume types its labels name.
func (l *resolver) validateCluster(ctx context.Context, c *intent.Cluster) error {
	if k := intent.Deref(c.Keypair); k != "" {
		if err := l.Keypair(ctx, k); err != nil {
			return lookup.Error(err)
		}
	}
	return l.checkVolumeTypes(ctx, c.Labels, nil)
}

// clusterFacts are the facts to write a changed cluster with: the
// references the change introduced (relative to before) are looked up,
// the others keep their recorded facts. A nil *resolver (a change that
// resolves nothing) gives zero facts: repo.WriteCluster then compiles with
// the recorded ones and keeps them.
func (l *resolver) clusterFacts(ctx context.Context, sn *gitstore.Snapshot, t *intent.ClusterTemplate, st *intent.ClusterState, before factRefs) (intent.Facts, error) {
	if l == nil {
		return intent.Facts{}, nil
	}
	recorded, err := intent.ReadFacts(sn, st.Dir)
	if err != nil {
		return intent.Facts{}, err
	}
	refs := clusterRefs(t, &st.Cluster, st.NodeGroups)
	f, err := l.facts(ctx, refs, refs.minus(before), recorded)
	if err != nil {
		return f, err
	}
	if err := l.ensureServerGroups(ctx, st, &f); err != nil {
		return f, err
	}
	// The root-volume check, of what the change makes boot from a
	// flavor's own disk.
	return f, checkRootDisks(f, l.newRootDiskFlavors(refs, before))
}

// mutateClusterResolving is mutateCluster for a change that may reference
// new OpenStack resources (a nodegroup added, an upgrade): they are looked
// up and recorded as facts, with the server groups of the nodegroups
// named by groups. The lookups are made first on the current HEAD, outside
// the repository's write lock, so that the commit itself (which holds it)
// normally finds every answer cached.
func (s *Server) mutateClusterResolving(ctx context.Context, who requester, dir string, projectID string, fn clusterChange, groups ...string) (bool, error) {
	l := s.newResolver(projectID, who.UserID, groups...)
	s.writes.Prepare(func(sn *gitstore.Snapshot) error {
		_, err := s.clusterChangeOn(ctx, who, sn, dir, fn, l, true)
		return err
	})
	changed, err := s.mutateClusterWith(ctx, who, dir, fn, l)
	s.dropUnusedServerGroups(ctx, who, l, dir)
	return changed, err
}
