package magnumimport_test

import (
	"encoding/json"
	"os/exec"
	"sync"
	"testing"
)

// magnumKeyPair is one x509keypair row as Magnum writes it, and its key as
// Magnum's decrypt_key returns it.
type magnumKeyPair struct {
	Certificate, PrivateKey, Passphrase, Decrypted string
}

func (k *magnumKeyPair) UnmarshalJSON(b []byte) error {
	var v struct {
		Certificate string `json:"certificate"`
		PrivateKey  string `json:"private_key"`
		Passphrase  string `json:"private_key_passphrase"`
		Decrypted   string `json:"decrypted"`
	}
	err := json.Unmarshal(b, &v)
	*k = magnumKeyPair(v)
	return err
}

// magnumCAs are a cluster's CAs and client certificate, made by Magnum's
// own code (testdata/magnum_cas.py).
type magnumCAs struct {
	CA         magnumKeyPair `json:"ca"`
	Etcd       magnumKeyPair `json:"etcd"`
	FrontProxy magnumKeyPair `json:"front_proxy"`
	Magnum     magnumKeyPair `json:"magnum"`
}

var (
	casOnce sync.Once
	cas     magnumCAs
	casErr  error
)

// generatedCAs runs Magnum's generator once per test binary: four RSA keys
// take Python some seconds.
func generatedCAs(t testing.TB) magnumCAs {
	t.Helper()
	if !need(t, "KEEL_REQUIRE_MAGNUM", "python3-magnum", have("magnum-db-manage")) {
		t.SkipNow()
	}
	casOnce.Do(func() {
		out, err := exec.Command(magnumPython(), "testdata/magnum_cas.py", "prod-a").Output()
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

// insertCAs stores c in m's x509keypair table, as Magnum's x509keypair
// certificate manager does, and points cluster's references at the rows.
func insertCAs(t testing.TB, m magnumDB, cluster string, c magnumCAs) {
	t.Helper()
	refs := map[string]magnumKeyPair{"ca_cert_ref": c.CA, "etcd_ca_cert_ref": c.Etcd,
		"front_proxy_ca_cert_ref": c.FrontProxy, "magnum_cert_ref": c.Magnum}
	id := 100
	for _, col := range []string{"ca_cert_ref", "etcd_ca_cert_ref", "front_proxy_ca_cert_ref", "magnum_cert_ref"} {
		id++
		kp := refs[col]
		uuid := randUUID()
		m.exec(t, `INSERT INTO x509keypair (id, uuid, certificate, private_key, private_key_passphrase, intermediates,
			project_id, user_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, uuid, kp.Certificate, kp.PrivateKey, kp.Passphrase, nil, projectA, userA, "2026-01-03 04:05:06")
		m.exec(t, "UPDATE cluster SET "+col+" = ? WHERE uuid = ?", uuid, cluster)
	}
}

func randUUID() string {
	h := randName("")
	return "c0ffee00-0000-4000-8000-00" + h
}
