package magnumimport

import (
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
// the cluster row, each the uuid of an x509keypair row when
// cert_manager_type is x509keypair (the certificate, its private key
// encrypted as PKCS #8 with a random passphrase, and that passphrase, side
// by side). The service-account key pair is the one magnum-cluster-api
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
func readPKIs(clusters []ClusterObject, rows []row, keypairs map[string]row) {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range clusters {
		o := &clusters[i]
		if o.Err != nil {
			continue
		}
		g.Go(func() error {
			o.PKI, o.PKINote, o.Err = clusterPKI(rows[i], keypairs)
			return nil
		})
	}
	_ = g.Wait() // each cluster keeps its own error
}

// clusterPKI reads the CAs of cluster row r from keypairs (x509keypair rows
// by uuid). It returns the key material, or a note saying why the CAs
// are not imported (a cluster without references, or references into a
// store other than the database: Barbican or the conductor's local files),
// or an error when a row is there but cannot be read: that cluster is
// refused, as nothing is imported half.
func clusterPKI(r row, keypairs map[string]row) (*pki.ClusterPKI, string, error) {
	var pairs [4]pki.KeyPair
	var empty, elsewhere []string
	for i, ref := range certRefs {
		id := strings.TrimSpace(r[ref.col].String)
		kp, ok := keypairs[id]
		switch {
		case id == "":
			empty = append(empty, ref.col)
			continue
		case !ok:
			elsewhere = append(elsewhere, ref.col)
			continue
		}
		pair, err := magnumKeyPair(kp, i == 3)
		if err != nil {
			return nil, "", fmt.Errorf("%s (%s %s): %w", ref.what, ref.col, id, err)
		}
		pairs[i] = pair
	}
	switch {
	case len(empty) == len(certRefs):
		return nil, "no CAs (the cluster names none)", nil
	case len(elsewhere) > 0:
		return nil, fmt.Sprintf("CAs not imported (%s not in Magnum's database: cert_manager_type barbican or local, not read by this release)",
			strings.Join(elsewhere, ", ")), nil
	case len(empty) > 0:
		return nil, fmt.Sprintf("CAs not imported (%s empty)", strings.Join(empty, ", ")), nil
	}
	p := &pki.ClusterPKI{CA: pairs[0], EtcdCA: pairs[1], FrontProxyCA: pairs[2], ServiceAccount: pairs[3]}
	if err := p.Validate(); err != nil {
		return nil, "", fmt.Errorf("the CAs Magnum stored do not check: %w", err)
	}
	return p, "", nil
}

// magnumKeyPair decrypts one x509keypair row: the certificate as stored
// and the private key as unencrypted PKCS #8 (what Magnum's decrypt_key
// gives magnum-cluster-api for its Secrets). For the service-account pair
// the public half is the key's PKIX public key (kubeadm's sa.pub).
func magnumKeyPair(kp row, serviceAccount bool) (pki.KeyPair, error) {
	key, err := magnumKey(kp["private_key"].String, kp["private_key_passphrase"].String)
	if err != nil {
		return pki.KeyPair{}, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return pki.KeyPair{}, err
	}
	out := pki.KeyPair{Key: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
		Cert: []byte(kp["certificate"].String)}
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
