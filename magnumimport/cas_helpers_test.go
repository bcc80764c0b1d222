package magnumimport_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/config/clouds"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/magnumimport"
	"github.com/openkeel/keel/repo"
)

// importCAs imports m (read with certs) into a new repository, with a new
// keyring for the CA keys.
func importCAs(t *testing.T, m mdb.DB, certs magnumimport.CertStores) (*gitstore.Store, *secrets.Keyring) {
	t.Helper()
	kr, _, err := secrets.GenerateKeyring()
	if err != nil {
		t.Fatal(err)
	}
	st := newRepo(t)
	mg := readWith(t, m, certs)
	mg.Keyring = kr
	if _, err := magnumimport.Apply(context.Background(), st, mg); err != nil {
		t.Fatal(err)
	}
	return st, kr
}

// readWith reads m with certs.
func readWith(t *testing.T, m mdb.DB, certs magnumimport.CertStores) *magnumimport.Magnum {
	t.Helper()
	src, err := magnumimport.ParseURL(m.URL)
	if err != nil {
		t.Fatal(err)
	}
	got, err := magnumimport.ReadWith(context.Background(), src, certs)
	if err != nil {
		t.Fatalf("%s: %v", m.Name, err)
	}
	return got
}

// barbicanStores reads Barbican with the cloud "test" of cloudsYAML.
func barbicanStores(t *testing.T, cloudsYAML string) magnumimport.CertStores {
	t.Helper()
	open, err := magnumimport.BarbicanFromCloud(clouds.WithCloudsYAML(strings.NewReader(cloudsYAML)), clouds.WithCloudName("test"))
	if err != nil {
		t.Fatal(err)
	}
	return magnumimport.CertStores{Barbican: open}
}

// wantMagnumsCAs checks that prod-a's key document at st's HEAD holds
// cas: the certificates as Magnum has them, the keys as Magnum's
// decrypt_key gives them, the service-account pair from Magnum's client
// certificate's key; and that no key is in clear in Git.
func wantMagnumsCAs(t *testing.T, st *gitstore.Store, kr *secrets.Keyring, cas mdb.CAs) {
	t.Helper()
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
			t.Errorf("%s: key differs from Magnum's decrypt_key", c.what)
		}
	}
	raw, err := sn.ReadFile(intent.PKIPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "PRIVATE KEY") {
		t.Errorf("a private key is in clear in %s", intent.PKIPath(dir))
	}
}

// expectRefused imports mg into a new repository and expects the import
// refused, its message saying each of say and naming the standard cloud's
// Cluster API cluster, no password or passphrase shown ("topsecret" in
// the tests), and nothing committed.
func expectRefused(t *testing.T, mg *magnumimport.Magnum, say []string) {
	t.Helper()
	st := newRepo(t)
	before := head(t, st)
	_, err := magnumimport.Apply(context.Background(), st, mg)
	if !errors.Is(err, magnumimport.ErrRefused) {
		t.Fatalf("err = %v, want %v", err, magnumimport.ErrRefused)
	}
	for _, s := range append(say, "cluster "+mdb.ClusterCAPI) {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message lacks %q: %v", s, err)
		}
	}
	if strings.Contains(err.Error(), "topsecret") {
		t.Errorf("the message shows a password or passphrase: %v", err)
	}
	if head(t, st) != before {
		t.Error("something was committed")
	}
}
