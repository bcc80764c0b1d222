package compiler

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	keystoneauth "github.com/openkeel/keel/addons/k8s-keystone-auth"
	occm "github.com/openkeel/keel/addons/openstack-cloud-controller-manager"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/pki"
)

// SecretInput is the secret material of a cluster, in plaintext: the
// compiler stays pure (no decryption, no randomness) and returns plaintext
// Secret documents; repo encrypts every Secret before it reaches
// Git. nil renders no Secrets (clusters created before keel generated
// their CAs keep the ones Cluster API made).
type SecretInput struct {
	PKI   *pki.ClusterPKI
	Cloud intent.CloudConfig
	// Credential, when set, is the cluster's own Keystone application
	// credential (made with the creator's token at create): it replaces
	// Cloud's credential in clouds.yaml, and its ID and owner are
	// annotated on the cloud-config Secret so that the reconciler can
	// delete it in Keystone once the cluster is gone.
	Credential *intent.ClusterCredential
}

// Placeholder credential of clusters without one of their own and no
// configured one.
const (
	PlaceholderCredentialID     = "keel-placeholder-application-credential-id"
	PlaceholderCredentialSecret = "keel-placeholder-application-credential-secret"
)

// Secret names and labels the Cluster API driver uses.
const (
	// ClusterSecretType marks the CA Secrets kubeadm's Cluster API providers
	// look up (<cluster>-ca, -etcd, -proxy, -sa).
	ClusterSecretType    = "cluster.x-k8s.io/secret"
	LabelCAPIClusterName = "cluster.x-k8s.io/cluster-name"
)

// SecretFilePrefix starts the file name of every rendered Secret.
const SecretFilePrefix = "secret-"

// secretDocuments renders the CA Secrets (<stack_id>-ca, -etcd, -proxy,
// -sa, with tls.crt/tls.key as kubeadm expects them, and -ca-signer in a
// CA rotation's sign phase), the
// <stack_id>-cloud-config Secret (clouds.yaml, cacert) and the payload
// Secrets of the addon sets (cloud-provider, and <uuid> with keystone
// auth).
func secretDocuments(in Input) ([]Document, error) {
	if in.Secrets == nil {
		return nil, nil
	}
	docs, err := caSecretDocuments(in)
	if err != nil {
		return nil, err
	}
	return appendCloudSecrets(in, docs)
}

// caSecretDocuments renders the CA Secrets (<stack_id>-ca, -etcd, -proxy,
// -sa, and -ca-signer in a CA rotation's sign phase), with tls.crt/tls.key
// as kubeadm expects them.
func caSecretDocuments(in Input) ([]Document, error) {
	s := in.Secrets
	if s.PKI == nil {
		return nil, fmt.Errorf("cluster %s: secret input without key material", in.Cluster.UUID)
	}
	ca, err := kubernetesCASecret(in)
	if err != nil {
		return nil, err
	}
	var docs []Document
	for _, x := range caSecretSpecs(in, ca) {
		d, err := secretDocument(x.purpose, caSecret(in.Cluster.StackID, x))
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// CASignerPurpose names the <stack_id>-ca-signer Secret: in a CA
// rotation's sign phase only, the new CA, with which the control plane's
// kube-controller-manager signs (clusterclass feature_ca_rotation.go reads
// it as "{{ .builtin.cluster.name }}-ca-signer").
const CASignerPurpose = "ca-signer"

// caSecretSpec is one CA Secret: <stack_id>-<purpose>, its key pair and
// type.
type caSecretSpec struct {
	purpose string
	kp      pki.KeyPair
	typ     corev1.SecretType
}

// caSecretSpecs are the CA Secrets of in, ca being the -ca Secret's key
// pair of the rotation phase.
func caSecretSpecs(in Input, ca pki.KeyPair) []caSecretSpec {
	p := in.Secrets.PKI
	specs := []caSecretSpec{
		{"ca", ca, ClusterSecretType}, {"etcd", p.EtcdCA, ClusterSecretType},
		{"proxy", p.FrontProxyCA, ClusterSecretType}, {"sa", p.ServiceAccount, ClusterSecretType},
	}
	if signer := p.CASignerSecret(caRotationPhase(in)); signer != nil {
		specs = append(specs, caSecretSpec{CASignerPurpose, *signer, corev1.SecretTypeOpaque})
	}
	return specs
}

func caRotationPhase(in Input) string {
	if r := in.Cluster.CARotation; r != nil {
		return r.Phase
	}
	return ""
}

// caSecret is the Secret of x. The -ca-signer Secret is Opaque: Cluster
// API does not look it up as a cluster certificate, CABPK only copies its
// files to the control plane.
func caSecret(stack string, x caSecretSpec) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      stack + "-" + x.purpose,
			Namespace: kube.Namespace,
			Labels:    map[string]string{LabelCAPIClusterName: stack},
		},
		Type: x.typ,
		Data: map[string][]byte{corev1.TLSCertKey: x.kp.Cert, corev1.TLSPrivateKeyKey: x.kp.Key},
	}
}

// kubernetesCASecret is the <stack_id>-ca key pair of the cluster's CA
// rotation phase (pki.ClusterPKI.KubernetesCASecret): the CA alone when
// never rotated or once finished. A phase that does not match the key
// document is refused rather than rendered: a trust or sign phase without
// a new CA would roll machines for nothing (and sign would render no
// -ca-signer Secret for the control plane to read), and a finish phase whose
// new CA is not yet the CA would take the machines back to the old CA
// alone, which no longer signs.
func kubernetesCASecret(in Input) (pki.KeyPair, error) {
	p, r := in.Secrets.PKI, in.Cluster.CARotation
	if r == nil {
		return p.KubernetesCASecret(""), nil
	}
	if r.InProgress() != (p.NextCA != nil) {
		return pki.KeyPair{}, fmt.Errorf("cluster %s: CA rotation %s does not match the key material (new CA present: %t)",
			in.Cluster.UUID, r.Marker(), p.NextCA != nil)
	}
	return p.KubernetesCASecret(r.Phase), nil
}

// appendCloudSecrets adds the <stack_id>-cloud-config Secret and the
// addons' payload Secrets to docs.
func appendCloudSecrets(in Input, docs []Document) ([]Document, error) {
	s := in.Secrets
	cloud := s.Cloud
	var annotations map[string]string
	if c := s.Credential; c != nil {
		cloud.ApplicationCredentialID, cloud.ApplicationCredentialSecret = c.ID, c.Secret
		annotations = map[string]string{intent.AnnotationAppCredentialID: c.ID, intent.AnnotationAppCredentialUserID: c.UserID}
		if len(c.Retired) > 0 {
			annotations[intent.AnnotationRetiredAppCredentials] = intent.FormatCredentialRefs(c.Retired)
		}
	}
	if ids := serverGroupIDs(in.Facts); ids != "" {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[intent.AnnotationServerGroupIDs] = ids
	}
	clouds, err := cloudsYAML(cloud)
	if err != nil {
		return nil, err
	}
	cc := &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        in.Cluster.StackID + "-cloud-config",
			Namespace:   kube.Namespace,
			Labels:      map[string]string{LabelClusterUUID: in.Cluster.UUID},
			Annotations: annotations,
		},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{"clouds.yaml": clouds},
	}
	if s.Cloud.CACert != "" {
		cc.Data["cacert"] = []byte(s.Cloud.CACert)
	}
	d, err := secretDocument("cloud-config", cc)
	if err != nil {
		return nil, err
	}
	docs = append(docs, d)
	// The workload cluster's cloud.conf uses the same credential and
	// cloud as CAPO's clouds.yaml.
	id, secret := cloud.ApplicationCredentialID, cloud.ApplicationCredentialSecret
	if id == "" && secret == "" {
		id, secret = PlaceholderCredentialID, PlaceholderCredentialSecret
	}
	d, err = cloudProviderSecret(in, occm.Cloud{
		AuthURL: cloud.AuthURL, Region: cloud.RegionName, Interface: cloud.Interface,
		ApplicationCredentialID: id, ApplicationCredentialSecret: secret,
		Insecure: cloud.Insecure, CACert: cloud.CACert,
	})
	if err != nil {
		return nil, err
	}
	docs = append(docs, d)
	ka, err := addonsSecret(in, keystoneauth.Cloud{AuthURL: cloud.AuthURL, CACert: cloud.CACert})
	if err != nil || ka == nil {
		return docs, err
	}
	return append(docs, *ka), nil
}

func secretDocument(purpose string, s *corev1.Secret) (Document, error) {
	data, err := MarshalObject(s)
	if err != nil {
		return Document{}, err
	}
	return NewDocument(SecretFilePrefix+purpose+".yaml", data), nil
}

// cloudsYAML renders the clouds.yaml of the "default" cloud, as the
// reference driver writes it (CAPO's identityRef cloudName is "default").
func cloudsYAML(c intent.CloudConfig) ([]byte, error) {
	iface := c.Interface
	if iface == "" {
		iface = "public"
	}
	id, secret := c.ApplicationCredentialID, c.ApplicationCredentialSecret
	if id == "" && secret == "" {
		id, secret = PlaceholderCredentialID, PlaceholderCredentialSecret
	}
	cloud := map[string]any{
		"auth": map[string]any{
			"auth_url":                      c.AuthURL,
			"application_credential_id":     id,
			"application_credential_secret": secret,
		},
		"auth_type":            "v3applicationcredential",
		"identity_api_version": 3,
		// CAPO v0.14 picks endpoints by endpoint_type (scope/provider.go)
		// and ignores interface, which the openstack CLI reads.
		"interface":     strings.TrimSuffix(iface, "URL"),
		"endpoint_type": strings.TrimSuffix(iface, "URL"),
		"verify":        !c.Insecure,
	}
	if c.RegionName != "" {
		cloud["region_name"] = c.RegionName
	}
	return yaml.Marshal(map[string]any{"clouds": map[string]any{"default": cloud}})
}

// serverGroupIDs lists the recorded server groups, sorted and unique
// (a deleted nodegroup's stays recorded until the cluster goes: see
// docs/api.md).
func serverGroupIDs(f intent.Facts) string {
	ids := make([]string, 0, len(f.ServerGroupIDs))
	for _, id := range f.ServerGroupIDs {
		if id != "" {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return strings.Join(slices.Compact(ids), ",")
}
