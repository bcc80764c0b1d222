package magnumimport_test

import (
	"testing"

	bt "github.com/openkeel/keel/internal/testing/barbicantest"
	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
)

// A Barbican reference that cannot be read refuses its cluster, named
// with the reference and the reason, and nothing is committed: a user of
// another project, even the cloud's admin (Barbican's policy: 403), a container that is gone
// (404), Barbican unreachable, credentials Keystone refuses, a key that
// does not decrypt with the passphrase stored beside it.
func TestImportRefusesUnreadableBarbicanCAs(t *testing.T) {
	good := mdb.GeneratedCAs(t)
	cloud := bt.Start(t)
	spoilt := good
	spoilt.CA.Passphrase = "topsecret"
	magnum := cloud.CloudsYAML(bt.MagnumUser, bt.MagnumPassword, bt.ServiceProject, bt.Region)
	for _, tc := range []struct {
		name   string
		cas    mdb.CAs
		clouds string
		spoil  func(t *testing.T, m mdb.DB)
		say    []string
	}{
		{"another project's user", good, cloud.CloudsYAML(bt.OtherUser, bt.OtherPassword, bt.OtherProject, bt.Region), nil,
			[]string{"Kubernetes CA (ca_cert_ref " + cloud.BarbicanURL, "403 Forbidden", "Magnum stored it with its service user"}},
		{"the cloud's admin, of another project", good, cloud.CloudsYAML(bt.CloudAdmin, bt.CloudAdminPassword, bt.CloudAdminProject, bt.Region), nil,
			[]string{"Kubernetes CA (ca_cert_ref " + cloud.BarbicanURL, "403 Forbidden"}},
		{"container gone", good, magnum, func(t *testing.T, m mdb.DB) {
			m.Exec(t, "UPDATE cluster SET etcd_ca_cert_ref = ? WHERE uuid = ?",
				cloud.BarbicanURL+"/v1/containers/0badc0de-0000-4000-8000-000000000000", mdb.ClusterCAPI)
		}, []string{"etcd CA (etcd_ca_cert_ref", "0badc0de-0000-4000-8000-000000000000", "404 Not Found"}},
		{"Barbican unreachable", good, cloud.CloudsYAML(bt.MagnumUser, bt.MagnumPassword, bt.ServiceProject, bt.UnreachableRegion), nil,
			[]string{"Kubernetes CA (ca_cert_ref", "from Barbican", "connection refused"}},
		{"credentials Keystone refuses", good, cloud.CloudsYAML(bt.MagnumUser, "topsecret", bt.ServiceProject, bt.Region), nil,
			[]string{"Kubernetes CA (ca_cert_ref", "authenticating at " + cloud.AuthURL}},
		{"key that does not decrypt", spoilt, magnum, nil,
			[]string{"Kubernetes CA (ca_cert_ref", "does not decrypt with private_key_passphrase"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mdb.SQLite(t)
			mdb.FillStandard(t, m)
			mdb.NoCAs(t, m, mdb.ClusterHeat)
			mdb.StoreCAs(t, m, mdb.ClusterCAPI, tc.cas, "barbican", cloud.MagnumConf)
			if tc.spoil != nil {
				tc.spoil(t, m)
			}
			expectRefused(t, readWith(t, m, barbicanStores(t, tc.clouds)), tc.say)
		})
	}
}
