package repo

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/pki"
	"github.com/openkeel/keel/internal/secrets"
)

// Secrets is what WriteCluster needs to handle a cluster's secret material:
// the keyring that encrypts (and, to re-render, decrypts) it, and the cloud
// credential rendered into clouds.yaml.
type Secrets struct {
	Keyring *secrets.Keyring
	Cloud   intent.CloudConfig
}

// WriteOption tunes WriteCluster.
type WriteOption func(*writeOptions)

type writeOptions struct {
	secrets    *Secrets
	now        time.Time
	credential *intent.ClusterCredential // WithCredential (credential.go)
	rotated    *intent.ClusterCredential // RotateCredential (credential.go)
}

// WithSecrets lets WriteCluster generate a new cluster's key material,
// render the cluster's Secrets and encrypt them. Without it, WriteCluster
// refuses to write a cluster that has key material (it could neither
// render nor encrypt its Secrets, and dropping them would make the
// reconciler prune the cluster's CAs).
func WithSecrets(s *Secrets) WriteOption {
	return func(o *writeOptions) { o.secrets = s }
}

// ErrNoPKI is returned by LoadPKI for a cluster without key material
// (created before keel generated CAs).
var ErrNoPKI = errors.New("the cluster has no key material in the repository")

// readDecrypted reads and decrypts an encrypted document of a snapshot;
// gitstore.ErrNotFound when it is absent.
func readDecrypted(sn *gitstore.Snapshot, p string, kr *secrets.Keyring) ([]byte, error) {
	data, err := sn.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if kr == nil {
		return nil, fmt.Errorf("%s: no keyring to decrypt it", p)
	}
	plain, err := kr.Decrypt(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return plain, nil
}

// LoadPKI decrypts the key material of the cluster folder dir.
func LoadPKI(sn *gitstore.Snapshot, dir string, kr *secrets.Keyring) (*pki.ClusterPKI, error) {
	p := intent.PKIPath(dir)
	plain, err := readDecrypted(sn, p, kr)
	if errors.Is(err, gitstore.ErrNotFound) {
		return nil, ErrNoPKI
	}
	if err != nil {
		return nil, err
	}
	var doc intent.ClusterPKI
	if err := intent.Decode(p, plain, intent.KindClusterPKI, &doc); err != nil {
		return nil, err
	}
	out := pki.FromFiles(doc.Certificates, doc.Data)
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return out, nil
}

func pkiDocument(clusterUUID string, p *pki.ClusterPKI) ([]byte, error) {
	public, private := p.Files()
	return intent.Marshal(intent.ClusterPKI{
		TypeMeta:    intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindClusterPKI},
		ClusterUUID: clusterUUID, Certificates: public, Data: private,
	})
}

// secretInput prepares the compiler's secret input of a cluster and the
// changes that store its key material:
//   - a cluster being created (no cluster.yaml yet) gets new CAs, written
//     encrypted to secrets/pki.sops.yaml;
//   - an existing cluster with key material has it decrypted to re-render;
//   - an existing cluster without key material renders no Secrets: its CAs
//     were made by Cluster API, and replacing them would break it.
func secretInput(sn *gitstore.Snapshot, st *intent.ClusterState, o *writeOptions) (*compiler.SecretInput, []gitstore.Change, error) {
	isNew := !sn.Exists(path.Join(st.Dir, intent.ClusterFile))
	hasPKI := sn.Exists(intent.PKIPath(st.Dir))
	if o.secrets == nil || o.secrets.Keyring == nil {
		if hasPKI {
			return nil, nil, fmt.Errorf("cluster %s has encrypted key material: writing it needs repo.WithSecrets", st.Cluster.Name)
		}
		if o.credential != nil {
			// Never dropped silently: it exists in Keystone.
			return nil, nil, fmt.Errorf("cluster %s: storing its application credential needs a keyring", st.Cluster.Name)
		}
		return nil, nil, nil
	}
	kr := o.secrets.Keyring
	var p *pki.ClusterPKI
	var changes []gitstore.Change
	switch {
	case hasPKI:
		var err error
		if p, err = LoadPKI(sn, st.Dir, kr); err != nil {
			return nil, nil, err
		}
		if err := followCARotation(p, st.Cluster.CARotation, o.now); err != nil {
			return nil, nil, fmt.Errorf("cluster %s: %w", st.Cluster.Name, err)
		}
		// Re-encrypt for the current recipients after a key rotation;
		// otherwise Reseal keeps the stored bytes.
		old, err := sn.ReadFile(intent.PKIPath(st.Dir))
		if err != nil {
			return nil, nil, err
		}
		plain, err := pkiDocument(st.Cluster.UUID, p)
		if err != nil {
			return nil, nil, err
		}
		enc, err := kr.Reseal(old, plain)
		if err != nil {
			return nil, nil, err
		}
		if !bytes.Equal(enc, old) {
			changes = append(changes, gitstore.Change{Path: intent.PKIPath(st.Dir), Data: enc})
		}
	case isNew:
		var err error
		if p, err = pki.Generate(st.Cluster.Name, o.now); err != nil {
			return nil, nil, err
		}
		plain, err := pkiDocument(st.Cluster.UUID, p)
		if err != nil {
			return nil, nil, err
		}
		enc, err := kr.Encrypt(plain)
		if err != nil {
			return nil, nil, err
		}
		changes = append(changes, gitstore.Change{Path: intent.PKIPath(st.Dir), Data: enc})
	default:
		return nil, nil, nil
	}
	cred, credChanges, err := credentialChanges(sn, st, isNew, o.credential, o.rotated, kr)
	if err != nil {
		return nil, nil, err
	}
	changes = append(changes, credChanges...)
	return &compiler.SecretInput{PKI: p, Cloud: o.secrets.Cloud, Credential: cred}, changes, nil
}

// sealRendered encrypts a rendered document when it is a Secret, re-using
// the ciphertext already at that path when the content is unchanged (so a
// re-render does not churn Git). A Secret without a keyring is an error:
// keel never commits a plaintext Secret.
func sealRendered(sn *gitstore.Snapshot, p string, data []byte, kr *secrets.Keyring) ([]byte, error) {
	apiVersion, kind, ok := topLevelKind(data)
	if !ok {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal(data, &head); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		apiVersion, kind = head.APIVersion, head.Kind
	}
	if kind != "Secret" || apiVersion != "v1" {
		return data, nil
	}
	if kr == nil {
		return nil, fmt.Errorf("%s: refusing to commit a Secret without encrypting it (no keyring)", p)
	}
	old, err := sn.ReadFile(p)
	if err != nil && !errors.Is(err, gitstore.ErrNotFound) {
		return nil, err
	}
	return kr.Reseal(old, data)
}

// sopsConfigChange records the keyring's recipients in .sops.yaml when the
// repository does not hold them yet (the first encrypted write, or after a
// rotation), in the same commit as the documents encrypted for them.
func sopsConfigChange(sn *gitstore.Snapshot, kr *secrets.Keyring) []gitstore.Change {
	want := kr.SOPSConfig()
	have, err := sn.ReadFile(secrets.SOPSConfigPath)
	if err == nil && bytes.Equal(have, want) {
		return nil
	}
	return []gitstore.Change{{Path: secrets.SOPSConfigPath, Data: want}}
}

// topLevelKind reads apiVersion and kind from a block-style YAML document
// without parsing it: the addon payloads are half a megabyte, and parsing
// them whole only to learn that they are ConfigMaps was a fifth of a
// cluster create. It answers only for the plain form the compiler writes:
// every line at column 0 a "key:" of a plain word, both keys present once,
// with plain values. Anything else (a document marker, a comment, flow
// style, quoting) is left to the YAML parser (ok false), so a Secret
// can never pass for something else.
func topLevelKind(data []byte) (apiVersion, kind string, ok bool) {
	seen := map[string]int{}
	for line := range bytes.Lines(data) {
		if len(line) == 0 || line[0] == ' ' || line[0] == '\n' {
			continue
		}
		key, value, found := bytes.Cut(bytes.TrimSuffix(line, []byte("\n")), []byte(":"))
		if !found || !plainWord(key) || len(value) > 0 && value[0] != ' ' {
			return "", "", false
		}
		v := string(bytes.TrimSpace(value))
		switch string(key) {
		case "apiVersion":
			apiVersion = v
		case "kind":
			kind = v
		default:
			continue
		}
		seen[string(key)]++
		if v == "" || !plainWord([]byte(strings.ReplaceAll(v, "/", ""))) {
			return "", "", false
		}
	}
	return apiVersion, kind, seen["apiVersion"] == 1 && seen["kind"] == 1
}

func plainWord(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
