package magnumimport_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/magnumimport"
)

// Bad input is a clear message, and nothing is committed: a database that
// does not answer, a schema revision keel does not know, labels keel's
// schema refuses (in any project: the other projects are not written
// either), a CA that cannot be read or is not one, CAs to import without
// keel's age identity to encrypt their keys for.
func TestImportBadInputCommitsNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		url   string
		spoil func(t *testing.T, m mdb.DB)
		err   error
		say   []string
	}{
		{name: "database that does not answer", url: "mysql+pymysql://magnum:topsecret@127.0.0.1:1/magnum",
			err: magnumimport.ErrUnavailable, say: []string{"does not answer", "mysql+pymysql://magnum@127.0.0.1:1/magnum"}},
		{name: "unknown schema version", spoil: func(t *testing.T, m mdb.DB) {
			m.Exec(t, "UPDATE alembic_version SET version_num = ?", "0123456789ab")
		}, err: magnumimport.ErrUnknownSchema, say: []string{"0123456789ab", "7da8489d6a68"}},
		{name: "labels keel refuses", spoil: func(t *testing.T, m mdb.DB) {
			m.Exec(t, "UPDATE cluster_template SET labels = ? WHERE id = ?", `{"kube_tag": "latest"}`, 1)
		}, err: magnumimport.ErrRefused, say: []string{"cluster template " + mdb.TmplCAPI, "kube_tag"}},
		{name: "CA whose key does not decrypt", spoil: func(t *testing.T, m mdb.DB) {
			mdb.InsertCAs(t, m, mdb.ClusterCAPI, mdb.GeneratedCAs(t))
			m.Exec(t, "UPDATE x509keypair SET private_key_passphrase = ? WHERE uuid = (SELECT ca_cert_ref FROM cluster WHERE uuid = ?)",
				"topsecret", mdb.ClusterCAPI)
		}, err: magnumimport.ErrRefused, say: []string{"cluster " + mdb.ClusterCAPI, "Kubernetes CA", "does not decrypt with private_key_passphrase"}},
		{name: "CA that is not a CA", spoil: func(t *testing.T, m mdb.DB) {
			c := mdb.GeneratedCAs(t)
			c.Etcd = c.Magnum // a client certificate where the etcd CA belongs
			mdb.InsertCAs(t, m, mdb.ClusterCAPI, c)
		}, err: magnumimport.ErrRefused, say: []string{"cluster " + mdb.ClusterCAPI, "the CAs Magnum stored do not check", "etcd_ca: certificate is not a CA"}},
		{name: "CAs without keel's age identity", spoil: func(t *testing.T, m mdb.DB) {
			mdb.InsertCAs(t, m, mdb.ClusterCAPI, mdb.GeneratedCAs(t))
		}, err: magnumimport.ErrNoKeyring, say: []string{"age identity", "KEEL_AGE_KEY"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, m := range mdb.All(t) {
				mdb.FillStandard(t, m)
				if tc.spoil != nil {
					tc.spoil(t, m)
				}
				url := m.URL
				if tc.url != "" {
					url = tc.url
				}
				st := newRepo(t)
				before := head(t, st)
				err := importURL(st, url)
				if !errors.Is(err, tc.err) {
					t.Fatalf("%s: err = %v, want %v", m.Name, err, tc.err)
				}
				for _, s := range tc.say {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("message lacks %q: %v", s, err)
					}
				}
				if strings.Contains(err.Error(), "topsecret") {
					t.Errorf("the message shows the password: %v", err)
				}
				if head(t, st) != before {
					t.Error(m.Name + ": something was committed")
				}
			}
		})
	}
}

func importURL(st interface{ Dir() string }, url string) error {
	src, err := magnumimport.ParseURL(url)
	if err != nil {
		return err
	}
	m, err := magnumimport.Read(context.Background(), src)
	if err != nil {
		return err
	}
	store, err := openAgain(st.Dir())
	if err != nil {
		return err
	}
	_, err = magnumimport.Apply(context.Background(), store, m)
	return err
}
