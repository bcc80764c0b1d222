package server

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"io"
	"path/filepath"
	"testing"

	gitobject "github.com/go-git/go-git/v5/plumbing/object"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/repo"
)

// After a cluster create, no blob anywhere in the Git repository (every
// object, not just HEAD's tree) holds a private key or the cloud
// credential in plaintext, PEM or base64; the cluster's key material is
// there, encrypted, and decrypts with the data folder's identity.
func TestNoPlaintextSecretInGit(t *testing.T) {
	in, sc := startKeel(t, "1.12")
	newCertCluster(t, sc, "sealed")

	dataDir := filepath.Dir(in.Store.Dir())
	kr, err := secrets.LoadKeyring(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	sn, err := in.Store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	clusters, err := sn.List(intent.ProjectsDir + "/p-" + t.Name() + "/clusters")
	if err != nil || len(clusters) != 1 {
		t.Fatalf("clusters: %v %v", clusters, err)
	}
	dir := intent.ProjectsDir + "/p-" + t.Name() + "/clusters/" + clusters[0].Name
	p, err := repo.LoadPKI(sn, dir, kr)
	if err != nil {
		t.Fatal(err)
	}

	// Needles: generic markers, then fragments of this cluster's real keys:
	// the private scalar as it stands in each PEM key, and the same bytes
	// of the PEM base64-encoded as a Secret's data holds it. (Only private
	// bits: an EC key's encoding also carries its public key, which the
	// CA certificate rightly holds in plaintext.)
	needles := [][]byte{[]byte("PRIVATE KEY"), []byte(compiler.PlaceholderCredentialSecret),
		[]byte(base64.StdEncoding.EncodeToString([]byte(compiler.PlaceholderCredentialSecret))[:24]),
		[]byte("LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVkt"), // base64("-----BEGIN RSA PRIVATE KEY-")
		[]byte("LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS")}   // base64("-----BEGIN EC PRIVATE KEY-")
	for _, key := range [][]byte{p.CA.Key, p.EtcdCA.Key, p.FrontProxyCA.Key, p.ServiceAccount.Key} {
		needles = append(needles, privateNeedles(t, key)...)
	}

	blobs, err := in.Store.Repo().BlobObjects()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = blobs.ForEach(func(b *gitobject.Blob) error {
		r, err := b.Reader()
		if err != nil {
			return err
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return err
		}
		n++
		for _, needle := range needles {
			if bytes.Contains(data, needle) {
				t.Errorf("blob %s holds plaintext secret material (%.30q)", b.Hash, needle)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("only %d blobs scanned", n)
	}
	if cfg, err := sn.ReadFile(secrets.SOPSConfigPath); err != nil || !bytes.Contains(cfg, []byte(kr.Current())) {
		t.Errorf(".sops.yaml does not record keel's recipient: %v\n%s", err, cfg)
	}
}

// privateNeedles are 32 characters of a PEM key's body that encode only its
// private scalar (EC) or private exponent (RSA), and the base64 of the PEM
// text at those characters.
func privateNeedles(t *testing.T, key []byte) [][]byte {
	t.Helper()
	block, _ := pem.Decode(key)
	if block == nil {
		t.Fatal("a key is not PEM")
	}
	var secret []byte
	switch block.Type {
	case "EC PRIVATE KEY":
		k, err := x509.ParseECPrivateKey(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		secret, _ = k.Bytes()
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		secret = k.D.Bytes()
	default:
		t.Fatalf("unexpected key type %s", block.Type)
	}
	off := bytes.Index(block.Bytes, secret)
	if off < 0 {
		t.Fatal("the private bytes are not in the key's encoding")
	}
	// Base64 characters whose six bits all come from the secret bytes, in
	// one 64-character PEM line.
	start, end := (off*8+5)/6, (off+len(secret))*8/6
	if start/64 != (start+31)/64 {
		start = (start/64 + 1) * 64
	}
	if start+32 > end {
		t.Fatal("no window of private characters")
	}
	body := base64.StdEncoding.EncodeToString(block.Bytes)
	needle := body[start : start+32]
	at := bytes.Index(key, []byte(needle))
	if at < 0 {
		t.Fatal("the window is not in the PEM text")
	}
	b64 := base64.StdEncoding.EncodeToString(key)
	return [][]byte{[]byte(needle), []byte(b64[(at*8+5)/6 : (at+32)*8/6])}
}
