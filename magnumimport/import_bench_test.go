package magnumimport_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/openkeel/keel/internal/secrets"
	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/magnumimport"
)

// BenchmarkImport1000Clusters imports 1,000 clusters with 2 nodegroups
// each (in 10 projects, on one template each) from SQLite into an empty
// repository: the read, the plan, the validation and the 10 commits;
// without CAs, and with each cluster's four x509keypair rows (decrypted,
// checked and encrypted again for keel's identity).
func BenchmarkImport1000Clusters(b *testing.B) {
	if !mdb.Need(b, "KEEL_REQUIRE_MAGNUM", "magnum-db-manage (python3-magnum)", mdb.Have("magnum-db-manage")) {
		b.Skip("no Magnum schema")
	}
	b.Run("CAs=none", func(b *testing.B) { benchImport(b, nil) })
	cas := mdb.GeneratedCAs(b)
	b.Run("CAs=x509keypair", func(b *testing.B) { benchImport(b, &cas) })
}

func benchImport(b *testing.B, cas *mdb.CAs) {
	m := mdb.SQLite(b)
	for p := range 10 {
		project := fmt.Sprintf("%032x", p+1)
		tmpl := fmt.Sprintf("00000000-0000-4000-8000-%012x", p+1)
		mdb.InsertTemplate(b, m, mdb.TemplateRow{ID: p + 1, UUID: tmpl, Project: project, Name: "t", Distro: "ubuntu", NetDriver: "calico",
			Labels: map[string]string{"kube_tag": "v1.32.4"}})
		for c := range 100 {
			n := p*100 + c + 1
			uuid := fmt.Sprintf("10000000-0000-4000-8000-%012x", n)
			mdb.InsertCluster(b, m, mdb.ClusterRow{ID: n, UUID: uuid, Project: project, Name: fmt.Sprintf("c%d", n), Template: tmpl,
				Stack: fmt.Sprintf("kube-%05d", n), State: "CREATE_COMPLETE", Labels: map[string]string{"kube_tag": "v1.32.4"}})
			for g, role := range []string{"master", "worker"} {
				mdb.InsertNodeGroup(b, m, mdb.NodeGroupRow{ID: 2*n + g, UUID: fmt.Sprintf("20000000-0000-4000-8000-%012x", 2*n+g), Cluster: uuid,
					Project: project, Name: "default-" + role, Role: role, Count: 1 + g, Min: 1, IsDefault: true})
			}
			if cas != nil {
				mdb.InsertCAs(b, m, uuid, *cas)
			}
		}
	}
	src, err := magnumimport.ParseURL(m.URL)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		st := newRepo(b)
		b.StartTimer()
		mg, err := magnumimport.Read(context.Background(), src)
		if err != nil {
			b.Fatal(err)
		}
		if mg.Keyring, _, err = secrets.GenerateKeyring(); err != nil {
			b.Fatal(err)
		}
		made, err := magnumimport.Apply(context.Background(), st, mg)
		if err != nil || len(made) != 10 {
			b.Fatalf("commits %d, err %v", len(made), err)
		}
	}
}
