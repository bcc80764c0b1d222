package magnumimport_test

import (
	"os"
	"path/filepath"
	"testing"

	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/magnumimport"
)

// A local certificate reference that cannot be read refuses its cluster,
// named with the reference and the reason, and nothing is committed: a
// missing file, a passphrase the key does not decrypt with, a reference
// that is not a file name of the folder.
func TestImportRefusesUnreadableLocalCAs(t *testing.T) {
	cas := mdb.GeneratedCAs(t)
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, m mdb.DB, file func(col, ext string) string)
		say   []string
	}{
		{"missing key file", func(t *testing.T, _ mdb.DB, file func(string, string) string) {
			if err := os.Remove(file("etcd_ca_cert_ref", ".key")); err != nil {
				t.Fatal(err)
			}
		}, []string{"etcd CA (etcd_ca_cert_ref", ".key: no such file"}},
		{"wrong passphrase", func(t *testing.T, _ mdb.DB, file func(string, string) string) {
			if err := os.WriteFile(file("ca_cert_ref", ".pass"), []byte("topsecret"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, []string{"Kubernetes CA (ca_cert_ref", "does not decrypt with private_key_passphrase"}},
		{"reference out of the folder", func(t *testing.T, m mdb.DB, _ func(string, string) string) {
			m.Exec(t, "UPDATE cluster SET magnum_cert_ref = ? WHERE uuid = ?", "../../etc/passwd", mdb.ClusterCAPI)
		}, []string{"magnum_cert_ref ../../etc/passwd", "not a file name of --magnum-cert-dir"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mdb.SQLite(t)
			mdb.FillStandard(t, m)
			mdb.NoCAs(t, m, mdb.ClusterHeat)
			dir := t.TempDir()
			refs := mdb.StoreCAs(t, m, mdb.ClusterCAPI, cas, "local", dir)
			tc.spoil(t, m, func(col, ext string) string { return filepath.Join(dir, refs[col]+ext) })
			expectRefused(t, readWith(t, m, magnumimport.CertStores{LocalDir: dir}), tc.say)
		})
	}
}
