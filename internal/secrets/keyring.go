// Package secrets keeps keel's secret material out of Git in plaintext.
//
// Every document holding a private key or credential is stored in the
// repository in the SOPS file format (https://github.com/getsops/sops),
// encrypted for one or more age recipients (filippo.io/age): the values
// under `data` and `stringData` are AES-256-GCM encrypted with a random
// data key, the data key is age-encrypted per recipient in the `sops`
// metadata block, and a MAC over every value detects tampering. Flux's
// kustomize-controller (decryption provider sops) and `sops -d` read these
// files with the same age identity.
//
// The age identity lives outside Git, in keel's data folder
// (DATA-DIR/age.key, mode 0600, created at first start). See docs/secrets.md
// for key handling and rotation.
package secrets

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"filippo.io/age"
)

// Files in keel's data folder.
const (
	// IdentityFile holds keel's age identities, one AGE-SECRET-KEY-1... per
	// line (age-keygen's format): the first is the current one, which new
	// documents are encrypted for; the others are retired identities kept
	// so that documents not yet re-encrypted still decrypt.
	IdentityFile = "age.key"
	// RecipientsFile optionally lists more age recipients (age1..., one a
	// line) every document is also encrypted for: an operator's break-glass
	// key, or the key a separate Flux installation decrypts with.
	RecipientsFile = "age.recipients"
	// IdentityEnv, when set, holds the identities instead of IdentityFile
	// (same format; nothing is written to disk). It is how a Pod gets them
	// from a Kubernetes Secret: a Secret mounted as a file is root-owned or,
	// with fsGroup, group-readable, both of which the file check refuses.
	IdentityEnv = "KEEL_AGE_KEY"
)

// Keyring decrypts with keel's identities and encrypts for its recipients.
type Keyring struct {
	identities []age.Identity
	recipients []*age.X25519Recipient
	names      []string // recipients' age1... strings, sorted
}

// NewKeyring builds a keyring from identities (the first is current) and
// extra recipients.
func NewKeyring(identities []*age.X25519Identity, extra ...*age.X25519Recipient) (*Keyring, error) {
	if len(identities) == 0 {
		return nil, errors.New("secrets: no age identity")
	}
	k := &Keyring{}
	for _, id := range identities {
		k.identities = append(k.identities, id)
	}
	seen := map[string]bool{}
	for _, r := range append([]*age.X25519Recipient{identities[0].Recipient()}, extra...) {
		if seen[r.String()] {
			continue
		}
		seen[r.String()] = true
		k.recipients = append(k.recipients, r)
		k.names = append(k.names, r.String())
	}
	slices.Sort(k.names)
	return k, nil
}

// GenerateKeyring makes a keyring with a fresh identity (tests, tools).
func GenerateKeyring() (*Keyring, *age.X25519Identity, error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return nil, nil, err
	}
	k, err := NewKeyring([]*age.X25519Identity{id})
	return k, id, err
}

// Recipients are the age recipients documents are encrypted for, sorted.
func (k *Keyring) Recipients() []string { return slices.Clone(k.names) }

// Current is the recipient of keel's current identity.
func (k *Keyring) Current() string { return k.recipients[0].String() }

// LoadKeyring reads DATA-DIR/age.key, creating it with a new identity when
// it does not exist, and DATA-DIR/age.recipients when present. A key file
// readable by group or others is refused, as ssh refuses such keys: the
// identity decrypts every CA key of every cluster.
//
// When $KEEL_AGE_KEY is set it holds the identities instead, and
// DATA-DIR/age.key is neither read nor created.
func LoadKeyring(dataDir string) (*Keyring, error) {
	if env := os.Getenv(IdentityEnv); env != "" {
		ids, err := parseIdentities([]byte(env))
		if err != nil {
			return nil, fmt.Errorf("secrets: $%s: %w", IdentityEnv, err)
		}
		return loadRecipients(dataDir, ids)
	}
	p := filepath.Join(dataDir, IdentityFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		if data, err = createIdentityFile(p); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, fmt.Errorf("secrets: reading %s: %w", p, err)
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("secrets: %s is accessible by group or others (mode %o); run chmod 600 %s", p, st.Mode().Perm(), p)
	}
	ids, err := parseIdentities(data)
	if err != nil {
		return nil, fmt.Errorf("secrets: %s: %w", p, err)
	}
	return loadRecipients(dataDir, ids)
}

// loadRecipients makes the keyring of ids plus DATA-DIR/age.recipients.
func loadRecipients(dataDir string, ids []*age.X25519Identity) (*Keyring, error) {
	var extra []*age.X25519Recipient
	rp := filepath.Join(dataDir, RecipientsFile)
	if rdata, err := os.ReadFile(rp); err == nil {
		if extra, err = parseRecipients(rdata); err != nil {
			return nil, fmt.Errorf("secrets: %s: %w", rp, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return NewKeyring(ids, extra...)
}

// createIdentityFile writes a new identity in age-keygen's format. O_EXCL
// makes two keel processes racing on a fresh data folder agree on one key.
func createIdentityFile(p string) ([]byte, error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return nil, err
	}
	data := fmt.Appendf(nil, "# created: %s\n# public key: %s\n%s\n",
		time.Now().UTC().Format(time.RFC3339), id.Recipient(), id)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return os.ReadFile(p)
	}
	if err != nil {
		return nil, fmt.Errorf("secrets: creating %s: %w", p, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	return data, f.Close()
}

func parseIdentities(data []byte) ([]*age.X25519Identity, error) {
	var ids []*age.X25519Identity
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, err := age.ParseX25519Identity(line)
		if err != nil {
			// Not echoing the line: it may be a (mangled) secret key.
			return nil, fmt.Errorf("line %d is not an age X25519 identity", i+1)
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil, errors.New("no age identity")
	}
	return ids, nil
}

func parseRecipients(data []byte) ([]*age.X25519Recipient, error) {
	var rs []*age.X25519Recipient
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r, err := age.ParseX25519Recipient(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// SOPSConfigPath is where keel records its recipients in the repository,
// for the sops CLI and for Flux users.
const SOPSConfigPath = ".sops.yaml"

// SOPSConfig renders the .sops.yaml that makes `sops -e` encrypt a new
// document the way keel does. keel itself never reads it back: recipients
// come from the data folder only, so that a push to the repository cannot
// make keel encrypt future secrets for an attacker's key.
func (k *Keyring) SOPSConfig() []byte {
	var b bytes.Buffer
	b.WriteString("# Written by keel: the age recipients keel encrypts secrets for.\n")
	b.WriteString("# keel does not read this file; edit DATA-DIR/age.key or age.recipients instead\n")
	b.WriteString("# (see keel's docs/secrets.md).\n")
	b.WriteString("creation_rules:\n")
	fmt.Fprintf(&b, "  - encrypted_regex: '%s'\n", EncryptedRegex)
	fmt.Fprintf(&b, "    age: %s\n", strings.Join(k.names, ","))
	return b.Bytes()
}
