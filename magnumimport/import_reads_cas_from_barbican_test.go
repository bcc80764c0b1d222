package magnumimport_test

import (
	"testing"

	"github.com/openkeel/keel/internal/testing/barbicantest"
	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
)

// With cert_manager_type barbican, Magnum's conductor stores each
// certificate as a Barbican certificate container, with its own service
// user: stored in a real Barbican by Magnum's own barbican certificate
// manager, they are imported with Magnum's service user's clouds.yaml
// cloud (--os-cloud) as the x509keypair rows are (wantMagnumsCAs).
func TestImportReadsCAsFromBarbican(t *testing.T) {
	cas := mdb.GeneratedCAs(t)
	cloud := barbicantest.Start(t)
	m := mdb.SQLite(t)
	mdb.FillStandard(t, m)
	mdb.NoCAs(t, m, mdb.ClusterHeat)
	mdb.StoreCAs(t, m, mdb.ClusterCAPI, cas, "barbican", cloud.MagnumConf)
	yaml := cloud.CloudsYAML(barbicantest.MagnumUser, barbicantest.MagnumPassword, barbicantest.ServiceProject, barbicantest.Region)
	st, kr := importCAs(t, m, barbicanStores(t, yaml))
	wantMagnumsCAs(t, st, kr, cas)
}
