package magnumdbtest

import (
	_ "embed"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// KeyPair is one x509keypair row as Magnum writes it, and its key as
// Magnum's decrypt_key returns it.
type KeyPair struct {
	Certificate, PrivateKey, Passphrase, Decrypted string
}

func (k *KeyPair) UnmarshalJSON(b []byte) error {
	var v struct {
		Certificate string `json:"certificate"`
		PrivateKey  string `json:"private_key"`
		Passphrase  string `json:"private_key_passphrase"`
		Decrypted   string `json:"decrypted"`
	}
	err := json.Unmarshal(b, &v)
	*k = KeyPair(v)
	return err
}

// CAs are a cluster's CAs and client certificate, made by Magnum's
// own code (magnum_cas.py).
type CAs struct {
	CA         KeyPair `json:"ca"`
	Etcd       KeyPair `json:"etcd"`
	FrontProxy KeyPair `json:"front_proxy"`
	Magnum     KeyPair `json:"magnum"`
}

//go:embed magnum_cas.py
var casScript string

var (
	casOnce sync.Once
	cas     CAs
	casErr  error
)

// GeneratedCAs runs Magnum's generator once per test binary: four RSA keys
// take Python some seconds.
func GeneratedCAs(t testing.TB) CAs {
	t.Helper()
	if !Need(t, "KEEL_REQUIRE_MAGNUM", "python3-magnum", Have("magnum-db-manage")) {
		t.SkipNow()
	}
	casOnce.Do(func() {
		cmd := exec.Command(Python(), "-", "prod-a")
		cmd.Stdin = strings.NewReader(casScript)
		out, err := cmd.Output()
		if err != nil {
			casErr = err
			if ee, ok := err.(*exec.ExitError); ok {
				casErr = &exec.Error{Name: "magnum_cas.py: " + string(ee.Stderr), Err: err}
			}
			return
		}
		casErr = json.Unmarshal(out, &cas)
	})
	if casErr != nil {
		t.Fatal(casErr)
	}
	return cas
}

// InsertCAs stores c in m's x509keypair table, as Magnum's x509keypair
// certificate manager does (in the cluster's project: Magnum reads them
// back in the caller's), and points cluster's references at the rows.
func InsertCAs(t testing.TB, m DB, cluster string, c CAs) {
	t.Helper()
	var project string
	q := "SELECT project_id FROM cluster WHERE uuid = ?"
	if m.Dialect == "postgresql" {
		q = "SELECT project_id FROM cluster WHERE uuid = $1"
	}
	if err := m.SQL.QueryRow(q, cluster).Scan(&project); err != nil {
		t.Fatalf("%s: the project of cluster %s: %v", m.Name, cluster, err)
	}
	refs := map[string]KeyPair{"ca_cert_ref": c.CA, "etcd_ca_cert_ref": c.Etcd,
		"front_proxy_ca_cert_ref": c.FrontProxy, "magnum_cert_ref": c.Magnum}
	for _, col := range []string{"ca_cert_ref", "etcd_ca_cert_ref", "front_proxy_ca_cert_ref", "magnum_cert_ref"} {
		kp := refs[col]
		uuid := RandUUID()
		m.Exec(t, `INSERT INTO x509keypair (uuid, certificate, private_key, private_key_passphrase, intermediates,
			project_id, user_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			uuid, kp.Certificate, kp.PrivateKey, kp.Passphrase, nil, project, UserA, "2026-01-03 04:05:06")
		m.Exec(t, "UPDATE cluster SET "+col+" = ? WHERE uuid = ?", uuid, cluster)
	}
}

// RandUUID is a fresh UUID-shaped id.
func RandUUID() string {
	h := RandName("")
	return "c0ffee00-0000-4000-8000-00" + h
}
