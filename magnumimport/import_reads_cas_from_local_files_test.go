package magnumimport_test

import (
	"testing"

	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/magnumimport"
)

// With cert_manager_type local, the conductor keeps each certificate in
// files of its storage_path named by the reference: stored there by
// Magnum's own local certificate manager, they are imported from
// --magnum-cert-dir as the x509keypair rows are (wantMagnumsCAs).
func TestImportReadsCAsFromLocalFiles(t *testing.T) {
	cas := mdb.GeneratedCAs(t)
	m := mdb.SQLite(t)
	mdb.FillStandard(t, m)
	mdb.NoCAs(t, m, mdb.ClusterHeat)
	dir := t.TempDir()
	mdb.StoreCAs(t, m, mdb.ClusterCAPI, cas, "local", dir)
	st, kr := importCAs(t, m, magnumimport.CertStores{LocalDir: dir})
	wantMagnumsCAs(t, st, kr, cas)
}
