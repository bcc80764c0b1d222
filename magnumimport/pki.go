package magnumimport

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/youmark/pkcs8"
	"golang.org/x/sync/errgroup"

	"github.com/openkeel/keel/internal/pki"
)

// A cluster's CAs, as Magnum keeps them: four certificate references on
// the cluster row, each naming the certificate, its private key encrypted
// as PKCS #8 with a random passphrase, and that passphrase, in the store
// of magnum.conf's cert_manager_type: x509keypair rows of the database,
// Barbican certificate containers, or the conductor's local files
// (certs.go). The service-account key pair is the one magnum-cluster-api
// makes its <stack_id>-sa Secret from: Magnum's client certificate's key
// (magnum_cert_ref). Importing them keeps `openstack coe ca show` and
// `coe ca sign` answering with the CA the cluster trusts, and is what an
// adoption needs (the CA Secrets byte for byte).
var certRefs = []struct{ col, what string }{
	{"ca_cert_ref", "Kubernetes CA"},
	{"etcd_ca_cert_ref", "etcd CA"},
	{"front_proxy_ca_cert_ref", "front-proxy CA"},
	{"magnum_cert_ref", "service-account key (Magnum's client certificate)"},
}

// readPKIs fills each mappable cluster's CAs (clusters[i] is rows[i]), on
// every core: the PBKDF2 of each passphrase and the checks of each RSA key
// cost some 30 ms a cluster, half a minute for a thousand on one core.
func readPKIs(ctx context.Context, clusters []ClusterObject, rows []row, cr *certReader) {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range clusters {
		o := &clusters[i]
		if o.Err != nil {
			continue
		}
		g.Go(func() error {
			o.PKI, o.PKINote, o.Err = clusterPKI(ctx, rows[i], cr)
			return nil
		})
	}
	_ = g.Wait() // each cluster keeps its own error
}

// clusterPKI reads the CAs of cluster row r from Magnum's certificate
// stores. It returns the key material, or a note saying why the CAs are
// not imported (a cluster without references, or references into a
// store the import was not given), or an error when a reference is there
// but cannot be read: that cluster is refused, as nothing is imported
// half.
func clusterPKI(ctx context.Context, r row, cr *certReader) (*pki.ClusterPKI, string, error) {
	var pairs [4]pki.KeyPair
	var empty []string
	unread := map[string][]string{} // by store
	for i, ref := range certRefs {
		id := strings.TrimSpace(r[ref.col].String)
		switch {
		case id == "":
			empty = append(empty, ref.col)
			continue
		case !cr.readable(id):
			unread[cr.where(id)] = append(unread[cr.where(id)], ref.col)
			continue
		}
		pair, err := readKeyPair(ctx, cr, id, i == 3)
		if err != nil {
			return nil, "", fmt.Errorf("%s (%s %s): %w", ref.what, ref.col, id, err)
		}
		pairs[i] = pair
	}
	if note := pkiNote(empty, unread); note != "" {
		return nil, note, nil
	}
	p := &pki.ClusterPKI{CA: pairs[0], EtcdCA: pairs[1], FrontProxyCA: pairs[2], ServiceAccount: pairs[3]}
	if err := p.Validate(); err != nil {
		return nil, "", fmt.Errorf("the CAs Magnum stored do not check: %w", err)
	}
	return p, "", nil
}

// storeFlags say how to read each store's references.
var storeFlags = map[string]string{
	inBarbican: "cert_manager_type barbican; --os-cloud reads them",
	inLocal:    "cert_manager_type local; --magnum-cert-dir reads them",
}

// pkiNote says why a cluster's CAs are not imported, or "" when all four
// references were read.
func pkiNote(empty []string, unread map[string][]string) string {
	switch {
	case len(empty) == len(certRefs):
		return "no CAs (the cluster names none)"
	case len(unread) > 0:
		var why []string
		for _, store := range []string{inBarbican, inLocal} {
			if cols := unread[store]; len(cols) > 0 {
				why = append(why, fmt.Sprintf("%s in %s: %s", strings.Join(cols, ", "), store, storeFlags[store]))
			}
		}
		return fmt.Sprintf("CAs not imported (%s)", strings.Join(why, "; "))
	case len(empty) > 0:
		return fmt.Sprintf("CAs not imported (%s empty)", strings.Join(empty, ", "))
	}
	return ""
}

// readKeyPair reads one reference and decrypts it (magnumKeyPair).
func readKeyPair(ctx context.Context, cr *certReader, ref string, serviceAccount bool) (pki.KeyPair, error) {
	c, err := cr.read(ctx, ref)
	if err != nil {
		return pki.KeyPair{}, err
	}
	return magnumKeyPair(c, serviceAccount)
}

// magnumKeyPair decrypts one certificate of any store: the certificate as
// stored and the private key as unencrypted PKCS #8 (what Magnum's
// decrypt_key gives magnum-cluster-api for its Secrets). For the
// service-account pair the public half is the key's PKIX public key
// (kubeadm's sa.pub).
func magnumKeyPair(c magnumCert, serviceAccount bool) (pki.KeyPair, error) {
	key, err := magnumKey(c.PrivateKey, c.Passphrase)
	if err != nil {
		return pki.KeyPair{}, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return pki.KeyPair{}, err
	}
	out := pki.KeyPair{Key: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
		Cert: []byte(c.Certificate)}
	if serviceAccount {
		pub, err := x509.MarshalPKIXPublicKey(key.Public())
		if err != nil {
			return pki.KeyPair{}, err
		}
		out.Cert = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})
	}
	return out, nil
}

// magnumKey decodes a private key column: PKCS #8 encrypted with the
// passphrase (what Magnum writes), or any key pki.ParseKey reads (a row
// written by hand or by a tool).
func magnumKey(text, passphrase string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(text))
	if block == nil {
		return nil, errors.New("private_key is not PEM")
	}
	if block.Type != "ENCRYPTED PRIVATE KEY" {
		return pki.ParseKey([]byte(text))
	}
	key, err := pkcs8.ParsePKCS8PrivateKey(block.Bytes, []byte(passphrase))
	if err != nil {
		return nil, fmt.Errorf("private_key does not decrypt with private_key_passphrase: %w", err)
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("private_key is a %T, not a signing key", key)
	}
	return s, nil
}
