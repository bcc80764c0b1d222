package magnumimport_test

import (
	"testing"

	"github.com/openkeel/keel/internal/testing/barbicantest"
	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
)

// With cert_manager_type barbican, Magnum's conductor stores each
// certificate as a Barbican certificate container, with its own service
// user: stored in a real Barbican by Magnum's own barbican certificate
// manager, they are imported as the x509keypair rows are
// (wantMagnumsCAs), with a clouds.yaml cloud (--os-cloud) that is
// Magnum's service user or another admin of its project.
func TestImportReadsCAsFromBarbican(t *testing.T) {
	cas := mdb.GeneratedCAs(t)
	cloud := barbicantest.Start(t)
	for _, tc := range []struct{ name, user, password string }{
		{"Magnum's service user", barbicantest.MagnumUser, barbicantest.MagnumPassword},
		{"an admin of Magnum's project", barbicantest.ServiceAdmin, barbicantest.ServiceAdminPassword},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mdb.SQLite(t)
			mdb.FillStandard(t, m)
			mdb.NoCAs(t, m, mdb.ClusterHeat)
			mdb.StoreCAs(t, m, mdb.ClusterCAPI, cas, "barbican", cloud.MagnumConf)
			yaml := cloud.CloudsYAML(tc.user, tc.password, barbicantest.ServiceProject, barbicantest.Region)
			st, kr := importCAs(t, m, barbicanStores(t, yaml))
			wantMagnumsCAs(t, st, kr, cas)
		})
	}
}
