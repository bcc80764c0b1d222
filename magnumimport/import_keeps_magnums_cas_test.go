package magnumimport_test

import (
	"context"
	"testing"

	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/magnumimport"
)

// A cluster's CAs in Magnum's x509keypair store (made by Magnum's own
// code, keys encrypted with their passphrases) are imported as the
// cluster's key material (wantMagnumsCAs), committed encrypted; a second
// run rewrites nothing.
func TestImportKeepsMagnumsCAs(t *testing.T) {
	cas := mdb.GeneratedCAs(t)
	for _, m := range mdb.All(t) {
		t.Run(m.Name, func(t *testing.T) {
			mdb.FillStandard(t, m)
			mdb.InsertCAs(t, m, mdb.ClusterCAPI, cas)
			st, kr := importCAs(t, m, magnumimport.CertStores{})
			wantMagnumsCAs(t, st, kr, cas)
			before := head(t, st)
			again := read(t, m)
			again.Keyring = kr
			if made, err := magnumimport.Apply(context.Background(), st, again); err != nil || len(made) != 0 {
				t.Errorf("second run: %d commits (%v), want none", len(made), err)
			}
			if head(t, st) != before {
				t.Error("the second run moved main")
			}
		})
	}
}
