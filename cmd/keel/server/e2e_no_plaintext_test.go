package server

import (
	"bytes"
	"encoding/base64"
	"io"
	"path/filepath"
	"strings"
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

	// Needles: generic markers, then fragments of this cluster's real keys
	// (a body line of each PEM key, and the same key base64-encoded as a
	// Secret's data holds it).
	needles := [][]byte{[]byte("PRIVATE KEY"), []byte(compiler.PlaceholderCredentialSecret),
		[]byte(base64.StdEncoding.EncodeToString([]byte(compiler.PlaceholderCredentialSecret))[:24]),
		[]byte("LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVkt")} // base64("-----BEGIN RSA PRIVATE KEY-")
	for _, key := range [][]byte{p.CA.Key, p.EtcdCA.Key, p.FrontProxyCA.Key, p.ServiceAccount.Key} {
		lines := strings.Split(string(key), "\n")
		needles = append(needles, []byte(lines[len(lines)/2]))
		b64 := base64.StdEncoding.EncodeToString(key)
		needles = append(needles, []byte(b64[len(b64)/2:len(b64)/2+40]))
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
