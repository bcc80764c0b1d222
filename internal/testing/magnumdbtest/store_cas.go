package magnumdbtest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

//go:embed magnum_store_cas.py
var storeScript string

// StoreCAs stores c with Magnum's own certificate manager kind ("local":
// where is the conductor's storage_path; "barbican": where is a
// magnum.conf whose [keystone_auth] is Magnum's service user) and points
// cluster's references at what it stored, as the conductor does. It
// returns the references, by cluster column.
func StoreCAs(t testing.TB, m DB, cluster string, c CAs, kind, where string) map[string]string {
	t.Helper()
	in, err := json.Marshal(map[string]map[string]string{"ca": c.CA.row(), "etcd": c.Etcd.row(),
		"front_proxy": c.FrontProxy.row(), "magnum": c.Magnum.row()})
	if err != nil {
		t.Fatal(err)
	}
	// The CAs go on stdin, so the script is given with -c.
	cmd := exec.Command(Python(), "-c", storeScript, kind, where)
	cmd.Stdin = bytes.NewReader(in)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("magnum_store_cas.py %s: %v\n%s", kind, err, stderr.String())
	}
	var refs map[string]string
	if err := json.Unmarshal(out, &refs); err != nil {
		t.Fatalf("magnum_store_cas.py %s: %v: %s", kind, err, out)
	}
	for col, ref := range refs {
		m.Exec(t, "UPDATE cluster SET "+col+" = ? WHERE uuid = ?", ref, cluster)
	}
	return refs
}

func (k KeyPair) row() map[string]string {
	return map[string]string{"certificate": k.Certificate, "private_key": k.PrivateKey,
		"private_key_passphrase": k.Passphrase}
}

// NoCAs empties cluster's certificate references (a cluster that names
// no CAs, whose import reads none).
func NoCAs(t testing.TB, m DB, cluster string) {
	t.Helper()
	m.Exec(t, `UPDATE cluster SET ca_cert_ref = NULL, etcd_ca_cert_ref = NULL, front_proxy_ca_cert_ref = NULL,
		magnum_cert_ref = NULL WHERE uuid = ?`, cluster)
}
