package magnumimport_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/magnumimport"
	"github.com/openkeel/keel/repo"
)

// A cluster's CAs in Magnum's x509keypair store (made by Magnum's own
// code, keys encrypted with their passphrases) are imported as the
// cluster's key material: the certificates as Magnum has them, the keys
// as Magnum's decrypt_key gives them, the service-account pair from
// Magnum's client certificate's key (as magnum-cluster-api's -sa Secret);
// committed encrypted (no key in clear in Git); a second run rewrites
// nothing.
func TestImportKeepsMagnumsCAs(t *testing.T) {
	cas := mdb.GeneratedCAs(t)
	for _, m := range mdb.All(t) {
		t.Run(m.Name, func(t *testing.T) {
			mdb.FillStandard(t, m)
			mdb.InsertCAs(t, m, mdb.ClusterCAPI, cas)
			kr, _, err := secrets.GenerateKeyring()
			if err != nil {
				t.Fatal(err)
			}
			st := newRepo(t)
			mg := read(t, m)
			mg.Keyring = kr
			if _, err := magnumimport.Apply(context.Background(), st, mg); err != nil {
				t.Fatal(err)
			}
			sn, err := st.SnapshotHead()
			if err != nil {
				t.Fatal(err)
			}
			dir := intent.ClusterDir(mdb.ProjectA, "prod-a", "kube-ab12c")
			p, err := repo.LoadPKI(sn, dir, kr)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				what      string
				cert, key []byte
				want      mdb.KeyPair
			}{
				{"ca", p.CA.Cert, p.CA.Key, cas.CA},
				{"etcd", p.EtcdCA.Cert, p.EtcdCA.Key, cas.Etcd},
				{"front-proxy", p.FrontProxyCA.Cert, p.FrontProxyCA.Key, cas.FrontProxy},
				{"service-account", nil, p.ServiceAccount.Key, cas.Magnum},
			} {
				if c.cert != nil && string(c.cert) != c.want.Certificate {
					t.Errorf("%s: certificate differs from Magnum's", c.what)
				}
				if string(c.key) != c.want.Decrypted {
					t.Errorf("%s: key differs from Magnum's decrypt_key:\n%s\nwant\n%s", c.what, c.key, c.want.Decrypted)
				}
			}
			raw, err := sn.ReadFile(intent.PKIPath(dir))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), "PRIVATE KEY") {
				t.Errorf("a private key is in clear in %s:\n%s", intent.PKIPath(dir), raw)
			}
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
