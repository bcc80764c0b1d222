package magnumimport

import (
	"bytes"
	"errors"
	"maps"

	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
)

// ErrNoKeyring: the import has CAs to write and no keyring to encrypt
// their keys with; nothing was written.
var ErrNoKeyring = errors.New("importing the clusters' CAs needs keel's age identity to encrypt their keys " +
	"(keel serve's DATA-DIR/age.key, or $KEEL_AGE_KEY); nothing was written")

// unsealed stands for a key document in a plan made without a keyring:
// such a plan is printed, never committed (Apply refuses it).
var unsealed = []byte("# encrypted when committed\n")

// pkiFile plans the cluster's key material document (intent.PKIPath) and
// returns what the plan says of the CAs. The document is written when the
// folder lacks it or holds other certificates (the CAs changed in
// Magnum); a second import keeps it, and since its ciphertext differs on
// every encryption, the certificates (readable in the document) are what
// is compared.
func (pl *planner) pkiFile(o ClusterObject, dir string, old *intent.ClusterState) (string, error) {
	if o.PKI == nil {
		return o.PKINote, nil
	}
	p := intent.PKIPath(dir)
	public, private := o.PKI.Files()
	if old != nil && old.Dir == dir && pl.sameCertificates(p, public) {
		return "CAs imported", nil
	}
	plain, err := intent.Marshal(intent.ClusterPKI{TypeMeta: meta(intent.KindClusterPKI), ClusterUUID: o.Doc.UUID,
		Certificates: public, Data: private})
	if err != nil {
		return "", err
	}
	data := unsealed
	if kr := pl.m.Keyring; kr != nil {
		if data, err = kr.Encrypt(plain); err != nil {
			return "", err
		}
		pl.sopsConfig(kr)
	}
	pl.unit.Changes = append(pl.unit.Changes, gitstore.Change{Path: p, Data: data})
	pl.unit.sealed = true
	return "CAs imported", nil
}

// sameCertificates reports whether the key document at p holds public as
// its certificates.
func (pl *planner) sameCertificates(p string, public map[string]string) bool {
	data, err := pl.t.ReadFile(p)
	if err != nil {
		return false
	}
	var doc struct {
		Certificates map[string]string `json:"certificates"`
	}
	return yaml.Unmarshal(data, &doc) == nil && maps.Equal(doc.Certificates, public)
}

// sopsConfig records the keyring's recipients in .sops.yaml with the first
// document encrypted for them, as an API write does.
func (pl *planner) sopsConfig(kr *secrets.Keyring) {
	want := kr.SOPSConfig()
	for _, c := range pl.unit.Changes {
		if c.Path == secrets.SOPSConfigPath {
			return
		}
	}
	if have, err := pl.t.ReadFile(secrets.SOPSConfigPath); err == nil && bytes.Equal(have, want) {
		return
	}
	pl.unit.Changes = append(pl.unit.Changes, gitstore.Change{Path: secrets.SOPSConfigPath, Data: want})
}
