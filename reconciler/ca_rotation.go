package reconciler

import (
	"bytes"
	"context"
	"encoding/pem"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/pki"
)

// Following a CA rotation (docs/secrets.md, "Rotating the certificate
// authority") outside what Cluster API rolls out by itself, after each
// apply of a cluster that has been rotated:
//
//   - Cluster API's admin kubeconfig (<cluster>-kubeconfig) is made once by
//     KubeadmControlPlane, from the first certificate of <cluster>-ca and a
//     client certificate its key signs, and renewed only near its expiry:
//     left alone, it would hold a certificate of the old CA when the finish
//     phase drops it, and Cluster API would lose the cluster
//     (magnum-cluster-api #866). Nor can KubeadmControlPlane make it again
//     at the right time: it would trust one CA, and the machines present
//     either while they roll. So from the sign phase on the reconciler
//     writes it itself: both CAs trusted (new first), and a client
//     certificate the new CA signed, which machines of every phase accept.
//   - kubeadm's token discovery on a joining machine checks the CA hashes
//     Cluster API pins (every certificate of <cluster>-ca) against the CA
//     the workload cluster publishes in kube-public/cluster-info, written
//     once by `kubeadm init`. It must follow the bundle, or machines
//     joining in the finish phase find no pinned CA there.

// clusterInfoKey is kubeadm's published cluster information.
var clusterInfoKey = client.ObjectKey{Namespace: "kube-public", Name: "cluster-info"}

// Cluster API's identity in the admin kubeconfig it makes.
const (
	capiAdminName  = "kubernetes-admin"
	capiAdminGroup = "system:masters"
)

// followCARotation does both for a rotated cluster whose current phase it
// has not followed yet in this process (due false: nothing to do, so that
// the applies of a cluster rotated long ago cost nothing); why is what the
// rotation still waits for ("" once done).
func (r *Reconciler) followCARotation(ctx context.Context, t target) (why string, due bool) {
	if t.caRotation == nil || r.caFollowed.get(t.id) == t.caRotation.Marker() {
		return "", false
	}
	if why = r.followPhase(ctx, t); why == "" {
		r.caFollowed.set(t.id, t.caRotation.Marker())
	}
	return why, true
}

// followPhase rewrites Cluster API's kubeconfig and publishes the CA
// bundle for the cluster's phase; it returns what still waits.
func (r *Reconciler) followPhase(ctx context.Context, t target) string {
	ca, err := r.caSecret(ctx, t.stackID+"-ca")
	if err != nil {
		return fmt.Sprintf("reading the CA Secret %s-ca failed and is retried: %v", t.stackID, err)
	}
	if err := r.followKubeconfig(ctx, t, ca); err != nil {
		return "writing Cluster API's kubeconfig for the new CA failed and is retried: " + err.Error()
	}
	if r.o.ClusterInfo == nil {
		return ""
	}
	if err := r.o.ClusterInfo.Publish(ctx, t.stackID, ca.Cert); err != nil {
		return "waiting to publish the CA bundle in the workload cluster's kube-public/cluster-info: " + err.Error()
	}
	return ""
}

// caSecret reads a CA Secret keel applied (tls.crt, tls.key).
func (r *Reconciler) caSecret(ctx context.Context, name string) (pki.KeyPair, error) {
	var s corev1.Secret
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: name}, &s); err != nil {
		return pki.KeyPair{}, err
	}
	return pki.KeyPair{Cert: s.Data[corev1.TLSCertKey], Key: s.Data[corev1.TLSPrivateKeyKey]}, nil
}

// followKubeconfig makes Cluster API's kubeconfig use the new CA from the
// sign phase on: in the sign phase the new CA is the <cluster>-ca-signer
// Secret's, and the kubeconfig trusts it and the old one; in the finish
// phase <cluster>-ca's (a kubeconfig written in the sign phase is kept:
// machines of the sign phase still present a certificate of the old CA).
func (r *Reconciler) followKubeconfig(ctx context.Context, t target, ca pki.KeyPair) error {
	signer, trust := ca, ca.Cert
	switch t.caRotation.Phase {
	case intent.CAPhaseSign:
		next, err := r.caSecret(ctx, t.stackID+"-ca-signer")
		if err != nil {
			return err
		}
		signer, trust = next, append(append([]byte{}, next.Cert...), firstPEM(ca.Cert)...)
	case intent.CAPhaseFinish:
	default:
		return nil
	}
	return r.ensureKubeconfig(ctx, t.stackID, signer, trust)
}

// ensureKubeconfig rewrites Cluster API's kubeconfig of stackID unless its
// client certificate is signed by signer: trust becomes its CA data, and a
// new client certificate of Cluster API's identity signed by signer its
// credential. A missing kubeconfig is KubeadmControlPlane's to make.
func (r *Reconciler) ensureKubeconfig(ctx context.Context, stackID string, signer pki.KeyPair, trust []byte) error {
	var s corev1.Secret
	err := r.client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: stackID + "-kubeconfig"}, &s)
	if err != nil {
		return client.IgnoreNotFound(err)
	}
	cfg, err := clientcmd.Load(s.Data["value"])
	if err != nil {
		return fmt.Errorf("parsing %s: %w", s.Name, err)
	}
	if kubeconfigSignedBy(cfg, signer.Cert) {
		return nil
	}
	cert, key, err := pki.IssueClient(signer, capiAdminName, []string{capiAdminGroup}, time.Now())
	if err != nil {
		return err
	}
	for _, c := range cfg.Clusters {
		c.CertificateAuthorityData = trust
	}
	for _, a := range cfg.AuthInfos {
		a.ClientCertificateData, a.ClientKeyData = cert, key
	}
	if s.Data["value"], err = clientcmd.Write(*cfg); err != nil {
		return err
	}
	r.o.Log.Info("CA rotation: Cluster API's kubeconfig now trusts the new CA and holds a certificate it signed", "secret", s.Name)
	return r.client.Update(ctx, &s)
}

// kubeconfigSignedBy reports whether every client certificate of cfg was
// signed by ca.
func kubeconfigSignedBy(cfg *clientcmdapi.Config, ca []byte) bool {
	for _, a := range cfg.AuthInfos {
		if !pki.SignedBy(a.ClientCertificateData, ca) {
			return false
		}
	}
	return len(cfg.AuthInfos) > 0
}

// firstPEM is the first PEM block of a bundle, as Cluster API reads it.
func firstPEM(bundle []byte) []byte {
	if block, _ := pem.Decode(bundle); block != nil {
		return pem.EncodeToMemory(block)
	}
	return bundle
}

// ClusterInfo publishes a workload cluster's CA bundle where kubeadm's
// token discovery reads it.
type ClusterInfo interface {
	// Publish makes kube-public/cluster-info of the workload cluster of
	// stackID carry bundle as its CA; a workload cluster without it (not
	// made by kubeadm init) is left alone.
	Publish(ctx context.Context, stackID string, bundle []byte) error
}

// Publish implements ClusterInfo with the admin kubeconfig Cluster API
// keeps.
func (w WorkloadConsumers) Publish(ctx context.Context, stackID string, bundle []byte) error {
	wc, err := w.workloadClient(ctx, stackID)
	if err != nil {
		return err
	}
	var cm corev1.ConfigMap
	if err := wc.Get(ctx, clusterInfoKey, &cm); err != nil {
		return client.IgnoreNotFound(err)
	}
	cfg, err := clientcmd.Load([]byte(cm.Data["kubeconfig"]))
	if err != nil {
		return fmt.Errorf("parsing %s: %w", clusterInfoKey, err)
	}
	changed := false
	for _, c := range cfg.Clusters {
		if !bytes.Equal(c.CertificateAuthorityData, bundle) {
			c.CertificateAuthorityData, changed = bundle, true
		}
	}
	if !changed {
		return nil
	}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return err
	}
	cm.Data["kubeconfig"] = string(data)
	return wc.Update(ctx, &cm)
}
