package secrets

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"filippo.io/age"
	"filippo.io/age/armor"
	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// The SOPS file format, as sops v3 (getsops/sops stores/, aes/, age/) reads
// and writes it; keel implements it directly rather than linking sops, whose
// module brings every cloud KMS SDK.
//
//   - Each value to encrypt becomes
//     ENC[AES256_GCM,data:<b64>,iv:<b64 32-byte nonce>,tag:<b64>,type:str|int|float|bool]
//     sealed with the 32-byte data key, the additional data being the
//     value's path of mapping keys joined by ":" plus a trailing ":"
//     (list items keep their list's path). Empty strings stay empty.
//   - Which values: those with a path component matching encrypted_regex
//     (keel uses ^(data|stringData)$: a Kubernetes Secret's payload, while
//     apiVersion/kind/metadata stay readable for kustomize and reviewers).
//   - mac: SHA-512 over every value in document order (the plaintext bytes;
//     booleans as True/False), upper-case hex, itself encrypted with the
//     data key and lastmodified (RFC 3339) as additional data.
//   - sops.age[]: per recipient, the data key age-encrypted and ASCII-armored.
const (
	// EncryptedRegex selects the encrypted part of keel's documents.
	EncryptedRegex = `^(data|stringData)$`
	// formatVersion is the sops version whose format keel writes.
	formatVersion = "3.13.3"
	metadataKey   = "sops"
	nonceSize     = 32
)

var (
	encryptedRegex = regexp.MustCompile(EncryptedRegex)
	encValue       = regexp.MustCompile(`^ENC\[AES256_GCM,data:(.+),iv:(.+),tag:(.+),type:(.+)\]`)
)

// Encrypt turns one plaintext YAML document (a mapping) into a SOPS
// document encrypted for the keyring's recipients. Comments are dropped: a
// comment inside `data` could itself hold a secret.
func (k *Keyring) Encrypt(plain []byte) ([]byte, error) {
	return k.encrypt(plain, time.Now())
}

func (k *Keyring) encrypt(plain []byte, now time.Time) ([]byte, error) {
	root, err := parseDocument(plain)
	if err != nil {
		return nil, err
	}
	if _, v := mappingGet(root, metadataKey); v != nil {
		return nil, errors.New("secrets: document is already SOPS-encrypted")
	}
	stripComments(root)
	dataKey := make([]byte, 32)
	if _, err := rand.Read(dataKey); err != nil {
		return nil, err
	}
	rule := cryptRule{encryptedRegex: encryptedRegex}
	mac := sha512.New()
	err = walk(root, nil, func(n *yaml.Node, path []string) error {
		v, err := scalarValue(n)
		if err != nil || v == nil {
			return err
		}
		writeMAC(mac, v)
		if !rule.encrypted(path) {
			return nil
		}
		enc, err := encryptValue(v, dataKey, additionalData(path))
		if err != nil {
			return err
		}
		*n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: enc}
		return nil
	})
	if err != nil {
		return nil, err
	}
	lastModified := now.UTC().Format(time.RFC3339)
	encMAC, err := encryptValue(fmt.Sprintf("%X", mac.Sum(nil)), dataKey, lastModified)
	if err != nil {
		return nil, err
	}
	ageList := &yaml.Node{Kind: yaml.SequenceNode}
	for _, r := range k.recipients {
		enc, err := ageEncrypt(dataKey, r)
		if err != nil {
			return nil, err
		}
		ageList.Content = append(ageList.Content, mapping(
			"recipient", str(r.String()),
			"enc", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: enc, Style: yaml.LiteralStyle},
		))
	}
	root.Content = append(root.Content, str(metadataKey), mapping(
		"age", ageList,
		"lastmodified", str(lastModified),
		"mac", str(encMAC),
		"encrypted_regex", str(EncryptedRegex),
		"version", str(formatVersion),
	))
	return emit(root)
}

// Decrypt returns the plaintext of a SOPS document (without its sops
// block), after checking its MAC. The plaintext is only returned, never
// written anywhere: callers keep it in memory.
func (k *Keyring) Decrypt(doc []byte) ([]byte, error) {
	root, err := parseDocument(doc)
	if err != nil {
		return nil, err
	}
	md, err := readMetadata(root)
	if err != nil {
		return nil, err
	}
	dataKey, err := k.dataKey(md)
	if err != nil {
		return nil, err
	}
	mac := sha512.New()
	if md.macOnlyEncrypted {
		mac.Write(macOnlyEncryptedInit)
	}
	err = walk(root, nil, func(n *yaml.Node, path []string) error {
		if n.ShortTag() == "!!null" {
			return nil // sops does not walk nulls: neither encrypted nor in the MAC
		}
		encrypted := md.rule.encrypted(path)
		var v any
		if encrypted {
			if n.ShortTag() != "!!str" {
				return fmt.Errorf("secrets: value at %s should be encrypted but is a %s", strings.Join(path, "."), n.ShortTag())
			}
			if v, err = decryptValue(n.Value, dataKey, additionalData(path)); err != nil {
				return fmt.Errorf("secrets: value at %s: %w", strings.Join(path, "."), err)
			}
			setScalar(n, v)
		} else if v, err = scalarValue(n); err != nil || v == nil {
			return err
		}
		if !md.macOnlyEncrypted || encrypted {
			writeMAC(mac, v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	stored, err := decryptValue(md.mac, dataKey, md.lastModified)
	if err != nil {
		return nil, fmt.Errorf("secrets: cannot decrypt the MAC: %w", err)
	}
	if s, _ := stored.(string); s != fmt.Sprintf("%X", mac.Sum(nil)) {
		return nil, errors.New("secrets: MAC mismatch: the document was modified after encryption")
	}
	return emit(root)
}

// IsEncrypted reports whether a YAML document carries a sops block.
func IsEncrypted(doc []byte) bool {
	// The reconciler asks of every rendered file on every apply, and most
	// hold no Secret: a document without the word has no sops key (keel's
	// encryption writes it plainly), and is not parsed.
	if !bytes.Contains(doc, []byte(metadataKey)) {
		return false
	}
	root, err := parseDocument(doc)
	if err != nil {
		return false
	}
	_, v := mappingGet(root, metadataKey)
	return v != nil && v.Kind == yaml.MappingNode
}

// RecipientsOf lists the age recipients a SOPS document is encrypted for,
// sorted.
func RecipientsOf(doc []byte) ([]string, error) {
	root, err := parseDocument(doc)
	if err != nil {
		return nil, err
	}
	md, err := readMetadata(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range md.age {
		out = append(out, a.recipient)
	}
	slices.Sort(out)
	return out, nil
}

// SameContent reports whether two plaintext YAML documents hold the same
// data, whatever their key order and formatting.
func SameContent(a, b []byte) bool {
	ja, err := sigsyaml.YAMLToJSON(a)
	if err != nil {
		return false
	}
	jb, err := sigsyaml.YAMLToJSON(b)
	if err != nil {
		return false
	}
	var va, vb any
	if sigsyaml.Unmarshal(ja, &va) != nil || sigsyaml.Unmarshal(jb, &vb) != nil {
		return false
	}
	ca, _ := sigsyaml.Marshal(va)
	cb, _ := sigsyaml.Marshal(vb)
	return bytes.Equal(ca, cb)
}

// Reseal returns old when it is a SOPS document that decrypts (with this
// keyring) to the same content as plain and is encrypted for exactly the
// keyring's recipients; otherwise it encrypts plain afresh. Encryption is
// randomized, so this is what keeps re-rendering an unchanged secret from
// changing its bytes in Git; a recipient change (key rotation) re-encrypts.
func (k *Keyring) Reseal(old, plain []byte) ([]byte, error) {
	if len(old) > 0 {
		if rs, err := RecipientsOf(old); err == nil && slices.Equal(rs, k.names) {
			if dec, err := k.Decrypt(old); err == nil && SameContent(dec, plain) {
				return old, nil
			}
		}
	}
	return k.Encrypt(plain)
}

// --- metadata ---

// macOnlyEncryptedInit is sops' MACOnlyEncryptedInitialization.
var macOnlyEncryptedInit = []byte{0x8a, 0x3f, 0xd2, 0xad, 0x54, 0xce, 0x66, 0x52, 0x7b, 0x10, 0x34, 0xf3, 0xd1, 0x47, 0xbe, 0xb, 0xb, 0x97, 0x5b, 0x3b, 0xf4, 0x4f, 0x72, 0xc6, 0xfd, 0xad, 0xec, 0x81, 0x76, 0xf2, 0x7d, 0x69}

type ageEntry struct{ recipient, enc string }

type metadata struct {
	age              []ageEntry
	lastModified     string
	mac              string
	rule             cryptRule
	macOnlyEncrypted bool
}

// cryptRule is sops' shouldBeEncrypted for the suffix and regex rules
// (comment-based rules are refused: keel's documents carry no comments).
type cryptRule struct {
	unencryptedSuffix, encryptedSuffix string
	unencryptedRegex, encryptedRegex   *regexp.Regexp
}

func (r cryptRule) encrypted(path []string) bool {
	enc := true
	if r.unencryptedSuffix != "" && slices.ContainsFunc(path, func(p string) bool { return strings.HasSuffix(p, r.unencryptedSuffix) }) {
		enc = false
	}
	if r.encryptedSuffix != "" {
		enc = slices.ContainsFunc(path, func(p string) bool { return strings.HasSuffix(p, r.encryptedSuffix) })
	}
	if r.unencryptedRegex != nil && slices.ContainsFunc(path, r.unencryptedRegex.MatchString) {
		enc = false
	}
	if r.encryptedRegex != nil {
		enc = slices.ContainsFunc(path, r.encryptedRegex.MatchString)
	}
	return enc
}

// readMetadata extracts and removes the sops block.
func readMetadata(root *yaml.Node) (*metadata, error) {
	i, sn := mappingGet(root, metadataKey)
	if sn == nil || sn.Kind != yaml.MappingNode {
		return nil, errors.New("secrets: not a SOPS document (no sops mapping)")
	}
	root.Content = slices.Delete(root.Content, i, i+2)
	md := &metadata{}
	rules := 0
	for j := 0; j+1 < len(sn.Content); j += 2 {
		key, v := sn.Content[j].Value, sn.Content[j+1]
		switch key {
		case "age":
			for _, e := range v.Content {
				_, r := mappingGet(e, "recipient")
				_, enc := mappingGet(e, "enc")
				if r == nil || enc == nil {
					return nil, errors.New("secrets: malformed sops.age entry")
				}
				md.age = append(md.age, ageEntry{recipient: r.Value, enc: enc.Value})
			}
		case "lastmodified":
			t, err := time.Parse(time.RFC3339, v.Value)
			if err != nil {
				return nil, fmt.Errorf("secrets: sops.lastmodified: %w", err)
			}
			// sops authenticates the re-formatted time, not the raw text.
			md.lastModified = t.Format(time.RFC3339)
		case "mac":
			md.mac = v.Value
		case "mac_only_encrypted":
			md.macOnlyEncrypted = v.Value == "true"
		case "unencrypted_suffix":
			md.rule.unencryptedSuffix, rules = v.Value, rules+1
		case "encrypted_suffix":
			md.rule.encryptedSuffix, rules = v.Value, rules+1
		case "unencrypted_regex", "encrypted_regex":
			re, err := regexp.Compile(v.Value)
			if err != nil {
				return nil, fmt.Errorf("secrets: sops.%s: %w", key, err)
			}
			if key == "encrypted_regex" {
				md.rule.encryptedRegex = re
			} else {
				md.rule.unencryptedRegex = re
			}
			rules++
		case "unencrypted_comment_regex", "encrypted_comment_regex":
			return nil, fmt.Errorf("secrets: sops.%s is not supported by keel", key)
		case "shamir_threshold", "key_groups":
			if len(v.Content) > 0 || (v.Kind == yaml.ScalarNode && v.Value != "" && v.Value != "0") {
				return nil, fmt.Errorf("secrets: sops.%s (Shamir key groups) is not supported by keel", key)
			}
		}
	}
	if rules > 1 {
		return nil, errors.New("secrets: more than one encryption rule in the sops block")
	}
	if rules == 0 {
		md.rule.unencryptedSuffix = "_unencrypted" // sops' default
	}
	if md.lastModified == "" || md.mac == "" {
		return nil, errors.New("secrets: sops block without lastmodified or mac")
	}
	return md, nil
}

// dataKey recovers the data key from the first age entry an identity opens.
func (k *Keyring) dataKey(md *metadata) ([]byte, error) {
	if len(md.age) == 0 {
		return nil, errors.New("secrets: the document has no age recipient (other key types are not supported by keel)")
	}
	for _, e := range md.age {
		r, err := age.Decrypt(armor.NewReader(strings.NewReader(e.enc)), k.identities...)
		if err != nil {
			continue
		}
		key, err := io.ReadAll(io.LimitReader(r, 64))
		if err == nil && len(key) == 32 {
			return key, nil
		}
	}
	return nil, fmt.Errorf("secrets: none of keel's age identities can decrypt this document (recipients %v)", recipientsOf(md))
}

func recipientsOf(md *metadata) []string {
	var out []string
	for _, e := range md.age {
		out = append(out, e.recipient)
	}
	return out
}

func ageEncrypt(dataKey []byte, r age.Recipient) (string, error) {
	var buf bytes.Buffer
	aw := armor.NewWriter(&buf)
	w, err := age.Encrypt(aw, r)
	if err != nil {
		return "", err
	}
	if _, err := w.Write(dataKey); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	if err := aw.Close(); err != nil {
		return "", err
	}
	return buf.String() + "\n", nil
}

// --- values ---

func additionalData(path []string) string { return strings.Join(path, ":") + ":" }

// scalarValue is the Go value sops sees for a scalar (yaml.v3 decoding).
func scalarValue(n *yaml.Node) (any, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	switch v.(type) {
	case nil, string, int, bool, float64:
		return v, nil
	}
	return nil, fmt.Errorf("secrets: unsupported YAML value %q (%s)", n.Value, n.ShortTag())
}

// valueBytes is sops' ToBytes.
func valueBytes(v any) (data []byte, typ string) {
	switch v := v.(type) {
	case string:
		return []byte(v), "str"
	case int:
		return []byte(strconv.Itoa(v)), "int"
	case float64:
		return []byte(strconv.FormatFloat(v, 'f', -1, 64)), "float"
	case bool:
		if v {
			return []byte("True"), "bool"
		}
		return []byte("False"), "bool"
	}
	panic(fmt.Sprintf("secrets: unexpected value type %T", v)) // scalarValue admits only the above
}

func writeMAC(h hash.Hash, v any) {
	b, _ := valueBytes(v)
	h.Write(b)
}

func encryptValue(v any, key []byte, ad string) (string, error) {
	if s, ok := v.(string); ok && s == "" {
		return "", nil // sops leaves empty strings as they are
	}
	plain, typ := valueBytes(v)
	block, err := aes.NewCipher(key)
	if err != nil {
		return "", err
	}
	gcm, err := cipher.NewGCMWithNonceSize(block, nonceSize)
	if err != nil {
		return "", err
	}
	iv := make([]byte, nonceSize)
	if _, err := rand.Read(iv); err != nil {
		return "", err
	}
	out := gcm.Seal(nil, iv, plain, []byte(ad))
	tag := len(out) - gcm.Overhead()
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("ENC[AES256_GCM,data:%s,iv:%s,tag:%s,type:%s]", b64(out[:tag]), b64(iv), b64(out[tag:]), typ), nil
}

func decryptValue(s string, key []byte, ad string) (any, error) {
	if s == "" {
		return "", nil
	}
	m := encValue.FindStringSubmatch(s)
	if m == nil {
		return nil, errors.New("not in the sops ENC[AES256_GCM,...] format")
	}
	var parts [3][]byte
	for i := range parts {
		b, err := base64.StdEncoding.DecodeString(m[i+1])
		if err != nil {
			return nil, fmt.Errorf("base64: %w", err)
		}
		parts[i] = b
	}
	data, iv, tag := parts[0], parts[1], parts[2]
	if len(iv) == 0 {
		return nil, errors.New("empty iv")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCMWithNonceSize(block, len(iv))
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, iv, append(slices.Clone(data), tag...), []byte(ad))
	if err != nil {
		return nil, errors.New("authentication failed (wrong key or tampered value)")
	}
	switch m[4] {
	case "str", "bytes":
		return string(plain), nil
	case "int":
		return strconv.Atoi(string(plain))
	case "float":
		return strconv.ParseFloat(string(plain), 64)
	case "bool":
		return strconv.ParseBool(string(plain))
	}
	return nil, fmt.Errorf("unsupported sops value type %q", m[4])
}

// setScalar replaces an encrypted value by its plaintext, typed.
func setScalar(n *yaml.Node, v any) {
	*n = yaml.Node{Kind: yaml.ScalarNode}
	switch v := v.(type) {
	case string:
		n.Tag, n.Value = "!!str", v
	case int:
		n.Tag, n.Value = "!!int", strconv.Itoa(v)
	case float64:
		n.Tag, n.Value = "!!float", strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		n.Tag, n.Value = "!!bool", strconv.FormatBool(v)
	}
}

// --- YAML nodes ---

func parseDocument(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("secrets: parsing YAML: %w", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, errors.New("secrets: expected exactly one YAML document")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("secrets: the document is not a YAML mapping")
	}
	return doc.Content[0], nil
}

// walk calls fn on every scalar leaf, in document order, with its path of
// mapping keys (list items keep their list's path, as in sops).
func walk(n *yaml.Node, path []string, fn func(*yaml.Node, []string) error) error {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
				return fmt.Errorf("secrets: only string keys are supported (found %q)", k.Value)
			}
			if err := walk(n.Content[i+1], append(slices.Clip(path), k.Value), fn); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if err := walk(c, path, fn); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		return fn(n, path)
	case yaml.AliasNode:
		return errors.New("secrets: YAML aliases are not supported")
	}
	return nil
}

func mappingGet(m *yaml.Node, key string) (int, *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return -1, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i, m.Content[i+1]
		}
	}
	return -1, nil
}

func stripComments(n *yaml.Node) {
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	for _, c := range n.Content {
		stripComments(c)
	}
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func mapping(kv ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i < len(kv); i += 2 {
		m.Content = append(m.Content, str(kv[i].(string)), kv[i+1].(*yaml.Node))
	}
	return m
}

func emit(root *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
