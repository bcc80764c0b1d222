package compiler

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"

	"github.com/openkeel/keel/addons"
	"github.com/openkeel/keel/addons/calico"
	"github.com/openkeel/keel/addons/cilium"
	cindercsi "github.com/openkeel/keel/addons/cinder-csi"
	keystoneauth "github.com/openkeel/keel/addons/k8s-keystone-auth"
	manilacsi "github.com/openkeel/keel/addons/manila-csi"
	occm "github.com/openkeel/keel/addons/openstack-cloud-controller-manager"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/memo"
	"github.com/openkeel/keel/schemas"
)

// The ClusterResourceSets that deliver the addons to the workload cluster,
// named as the reference names them so that clusters it created are adopted
// as they are:
//
//   - <uuid>: the CNI (Calico or Cilium) and k8s-keystone-auth;
//   - <stack_id>-cloud-provider: the OpenStack cloud controller manager and
//     the Cinder and Manila CSI drivers (each enabled by its label).
//
// Both select the cluster by its cluster-uuid label and use strategy
// Reconcile (the reference's <uuid> set was ApplyOnce, so addon changes on
// upgrade never reached the cluster, gap 14).
//
// A set's payload is split by sensitivity: the manifests (charts rendered
// here) are a ConfigMap of the set's name, committed in plain text so that
// they show in review diffs and in `keel plan`; what carries the cluster's
// credential (the kube-system/cloud-config and csi-manila-secrets Secrets)
// is a Secret of the same name, rendered with the other Secrets
// (secrets.go) and encrypted by repo.
// The Secret comes first, so that the workloads find their configuration.
//
// The <uuid> set's payload is a ConfigMap of the same name (the reference
// used a Secret for all of it), one key per addon: the CNI of the
// template's network_driver (calico.yaml or cilium.yaml) and, with
// keystone_auth_enabled, k8s-keystone-auth.yaml; then also a Secret of
// that name, first, with the cloud's Keystone URL and CA that
// k8s-keystone-auth reads.
func addonDocuments(in Input) ([]Document, error) {
	c := &in.Cluster
	labels := in.labels()
	keystoneAuth, err := in.catalogue().Bool(labels, schemas.LabelKeystoneAuthEnabled)
	if err != nil {
		return nil, err
	}
	addonsSet := []addonsv1.ResourceRef{{Name: c.UUID, Kind: string(addonsv1.ConfigMapClusterResourceSetResourceKind)}}
	if keystoneAuth {
		addonsSet = append([]addonsv1.ResourceRef{{Name: c.UUID, Kind: string(addonsv1.SecretClusterResourceSetResourceKind)}}, addonsSet...)
	}
	var docs []Document
	cloudProvider := CloudProviderName(c.StackID)
	for _, crs := range []struct {
		file, name string
		resources  []addonsv1.ResourceRef
	}{
		{"clusterresourceset-addons.yaml", c.UUID, addonsSet},
		{"clusterresourceset-cloud-provider.yaml", cloudProvider, []addonsv1.ResourceRef{
			{Name: cloudProvider, Kind: string(addonsv1.SecretClusterResourceSetResourceKind)},
			{Name: cloudProvider, Kind: string(addonsv1.ConfigMapClusterResourceSetResourceKind)},
		}},
	} {
		obj := &addonsv1.ClusterResourceSet{
			TypeMeta:   metav1.TypeMeta{APIVersion: addonsv1.GroupVersion.String(), Kind: "ClusterResourceSet"},
			ObjectMeta: metav1.ObjectMeta{Name: crs.name, Namespace: kube.Namespace, Labels: map[string]string{LabelClusterUUID: c.UUID}},
			Spec: addonsv1.ClusterResourceSetSpec{
				ClusterSelector: metav1.LabelSelector{MatchLabels: map[string]string{LabelClusterUUID: c.UUID}},
				Resources:       crs.resources,
				Strategy:        string(addonsv1.ClusterResourceSetStrategyReconcile),
			},
		}
		data, err := MarshalObject(obj)
		if err != nil {
			return nil, err
		}
		docs = append(docs, NewDocument(crs.file, data))
	}
	cni, err := cniPayload(in, labels)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", c.UUID, err)
	}
	if keystoneAuth {
		if cni[keystoneauth.Name+".yaml"], err = keystoneauth.Payload(keystoneauth.Params{
			Tag:       labels[schemas.LabelK8SKeystoneAuthTag],
			Prefix:    labels[schemas.LabelContainerInfraPrefix],
			ProjectID: c.ProjectID,
		}); err != nil {
			return nil, fmt.Errorf("cluster %s: %w", c.UUID, err)
		}
	}
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: c.UUID, Namespace: kube.Namespace, Labels: map[string]string{LabelClusterUUID: c.UUID}},
		Data:       cni,
	}
	data, err := marshalPayloadConfigMap(cm, nil)
	if err != nil {
		return nil, err
	}
	docs = append(docs, newDocumentParts("configmap-addons.yaml", data))

	payload, known, err := cloudProviderManifests(in, labels)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", c.UUID, err)
	}
	cm = &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: cloudProvider, Namespace: kube.Namespace, Labels: map[string]string{LabelClusterUUID: c.UUID}},
		Data:       payload,
	}
	if data, err = marshalPayloadConfigMap(cm, known); err != nil {
		return nil, err
	}
	return append(docs, newDocumentParts("configmap-cloud-provider.yaml", data)), nil
}

// cniPayload is the CNI of the cluster's network_driver, keyed by the
// addon's name.
func cniPayload(in Input, labels map[string]string) (map[string]string, error) {
	switch driver := networkDriver(in); driver {
	case calico.Name:
		payload, err := calico.Payload(calico.Params{
			Tag:      labels[schemas.LabelCalicoTag],
			IPv4Pool: labels[schemas.LabelCalicoIpv4pool],
			Prefix:   labels[schemas.LabelContainerInfraPrefix],
		})
		if err != nil {
			return nil, err
		}
		return map[string]string{calico.Name + ".yaml": payload}, nil
	case cilium.Name:
		hubbleUI, err := in.catalogue().Bool(labels, schemas.LabelCiliumHubbleUIEnabled)
		if err != nil {
			return nil, err
		}
		payload, err := cilium.Payload(cilium.Params{
			Tag:           labels[schemas.LabelCiliumTag],
			IPv4Pool:      labels[schemas.LabelCiliumIpv4pool],
			HubbleUI:      hubbleUI,
			Prefix:        labels[schemas.LabelContainerInfraPrefix],
			ClusterDomain: labels[schemas.LabelDNSClusterDomain],
		})
		if err != nil {
			return nil, err
		}
		return map[string]string{cilium.Name + ".yaml": payload}, nil
	default:
		return nil, fmt.Errorf("network_driver %q has no CNI addon", driver)
	}
}

// cloudProviderManifests are the data of the cloud-provider set's
// ConfigMap, one key per addon: OCCM, and the Cinder and Manila CSI
// drivers when their labels enable them (the reference also requires the
// cloud's catalogue to list the service; keel renders without asking it);
// and the literal blocks of those known ahead (marshalPayloadConfigMap).
func cloudProviderManifests(in Input, labels map[string]string) (map[string]string, map[string]literal, error) {
	cat := in.catalogue()
	prefix := labels[schemas.LabelContainerInfraPrefix]
	sidecars := addons.CSISidecars{
		Attacher:            labels[schemas.LabelCSIAttacherTag],
		Provisioner:         labels[schemas.LabelCSIProvisionerTag],
		Snapshotter:         labels[schemas.LabelCSISnapshotterTag],
		Resizer:             labels[schemas.LabelCSIResizerTag],
		LivenessProbe:       labels[schemas.LabelCSILivenessProbeTag],
		NodeDriverRegistrar: labels[schemas.LabelCSINodeDriverRegistrarTag],
	}
	var p cloudProviderParams
	p.occm = occm.Params{
		Tag:    occm.Tag(labels[schemas.LabelCloudProviderTag], labels[schemas.LabelKubeTag]),
		Prefix: prefix,
	}
	var err error
	if p.cinderEnabled, err = cat.Bool(labels, schemas.LabelCinderCSIEnabled); err != nil {
		return nil, nil, err
	}
	if p.cinderEnabled {
		p.cinder = cindercsi.Params{
			Prefix:     prefix,
			Tag:        labels[schemas.LabelCinderCSIPluginTag],
			Sidecars:   sidecars,
			VolumeType: labels[schemas.LabelBootVolumeType],
		}
	}
	if p.manilaEnabled, err = cat.Bool(labels, schemas.LabelManilaCSIEnabled); err != nil {
		return nil, nil, err
	}
	if p.manilaEnabled {
		p.manila = manilacsi.Params{
			Prefix:         prefix,
			Tag:            labels[schemas.LabelManilaCSIPluginTag],
			Sidecars:       sidecars,
			ShareNetworkID: labels[schemas.LabelManilaCSIShareNetworkID],
		}
	}
	p.credentialGeneration = in.Facts.CredentialGeneration
	return cloudProviderPayloads.getBlocks(p, in.Cluster.UUID, p.render)
}

// cloudProviderParams are what the cloud-provider payload depends on
// besides the cluster's UUID (left empty in them).
type cloudProviderParams struct {
	occm                         occm.Params
	cinderEnabled, manilaEnabled bool
	cinder                       cindercsi.Params
	manila                       manilacsi.Params
	// credentialGeneration (intent.Facts): a handful of values across a
	// fleet, so the payload cache still holds.
	credentialGeneration int64
}

// A repository has a handful of label combinations; the bound keeps a
// long-running server's memory flat whatever it is sent.
var cloudProviderPayloads = uuidPayloadCache[cloudProviderParams]{m: memo.Map[cloudProviderParams, uuidPayload]{Max: 64}}

func (p cloudProviderParams) render(uuid string) (map[string]string, error) {
	p.occm.ClusterUUID = uuid
	occmObjs, err := occm.Manifests(p.occm)
	if err != nil {
		return nil, err
	}
	rendered := map[string][]*unstructured.Unstructured{occm.Name: occmObjs}
	if p.cinderEnabled {
		p.cinder.ClusterUUID = uuid
		if rendered[cindercsi.Name], err = cindercsi.Manifests(p.cinder); err != nil {
			return nil, err
		}
	}
	if p.manilaEnabled {
		p.manila.ClusterUUID = uuid
		if rendered[manilacsi.Name], err = manilacsi.Manifests(p.manila); err != nil {
			return nil, err
		}
	}
	out := map[string]string{}
	for name, objs := range rendered {
		if p.credentialGeneration > 0 {
			if err := addons.AnnotatePodTemplates(objs, intent.AnnotationCredentialGeneration, strconv.FormatInt(p.credentialGeneration, 10)); err != nil {
				return nil, err
			}
		}
		b, err := addons.Marshal(objs)
		if err != nil {
			return nil, err
		}
		out[name+".yaml"] = string(b)
	}
	return out, nil
}

// CloudProviderName names the cloud-provider ClusterResourceSet of a
// cluster and its payload ConfigMap and Secret.
func CloudProviderName(stackID string) string { return stackID + "-cloud-provider" }

// cloudProviderSecret is the payload Secret of the cloud-provider set: the
// kube-system/cloud-config Secret (cloud.conf from the cluster's
// credential and its load-balancer labels) and, when the Manila CSI driver
// is enabled, kube-system/csi-manila-secrets (the same credential), under
// the reference's keys.
func cloudProviderSecret(in Input, cloud occm.Cloud) (Document, error) {
	cat := in.catalogue()
	labels := in.labels()
	cloud.LBProvider = labels[schemas.LabelOctaviaProvider]
	cloud.LBMethod = labels[schemas.LabelOctaviaLBAlgorithm]
	if cloud.LBMethod == "" {
		// As the label says: ovn balances by source IP and port only.
		cloud.LBMethod = "ROUND_ROBIN"
		if cloud.LBProvider == "ovn" {
			cloud.LBMethod = "SOURCE_IP_PORT"
		}
	}
	monitor, err := cat.Bool(labels, schemas.LabelOctaviaLBHealthcheck)
	if err != nil {
		return Document{}, err
	}
	cloud.CreateMonitor = monitor
	obj, err := occm.CloudConfig(cloud)
	if err != nil {
		return Document{}, err
	}
	payload, err := addons.Marshal([]*unstructured.Unstructured{obj})
	if err != nil {
		return Document{}, err
	}
	data := map[string][]byte{"cloud-config-secret.yaml": payload}
	manila, err := cat.Bool(labels, schemas.LabelManilaCSIEnabled)
	if err != nil {
		return Document{}, err
	}
	if manila {
		obj, err := manilacsi.Secret(manilacsi.Cloud{
			AuthURL: cloud.AuthURL, Region: cloud.Region, Interface: cloud.Interface,
			ApplicationCredentialID: cloud.ApplicationCredentialID, ApplicationCredentialSecret: cloud.ApplicationCredentialSecret,
			Insecure: cloud.Insecure, CACert: cloud.CACert,
		})
		if err != nil {
			return Document{}, err
		}
		if data["manila-csi-secret.yaml"], err = addons.Marshal([]*unstructured.Unstructured{obj}); err != nil {
			return Document{}, err
		}
	}
	s := &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      CloudProviderName(in.Cluster.StackID),
			Namespace: kube.Namespace,
			Labels:    map[string]string{LabelClusterUUID: in.Cluster.UUID},
		},
		Type: addonsv1.ClusterResourceSetSecretType,
		Data: data,
	}
	return secretDocument("cloud-provider", s)
}

// addonsSecret is the payload Secret of the <uuid> set, rendered with
// keystone_auth_enabled only: kube-system/k8s-keystone-auth-cloud, the
// Keystone URL and private CA of the cluster's cloud. Neither is a
// credential, but the CA and the cloud's endpoints are kept with the
// cloud's other configuration, encrypted, as the cloud-provider set keeps
// cloud.conf; and the ConfigMap stays the same with or without them.
func addonsSecret(in Input, cloud keystoneauth.Cloud) (*Document, error) {
	cat := in.catalogue()
	enabled, err := cat.Bool(in.labels(), schemas.LabelKeystoneAuthEnabled)
	if err != nil || !enabled {
		return nil, err
	}
	obj, err := keystoneauth.Secret(cloud)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", in.Cluster.UUID, err)
	}
	payload, err := addons.Marshal([]*unstructured.Unstructured{obj})
	if err != nil {
		return nil, err
	}
	s := &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      in.Cluster.UUID,
			Namespace: kube.Namespace,
			Labels:    map[string]string{LabelClusterUUID: in.Cluster.UUID},
		},
		Type: addonsv1.ClusterResourceSetSecretType,
		Data: map[string][]byte{keystoneauth.Name + "-secret.yaml": payload},
	}
	d, err := secretDocument("addons", s)
	return &d, err
}
