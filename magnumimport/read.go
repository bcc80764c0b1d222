package magnumimport

import (
	"context"
	"fmt"
	"sync"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/pki"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/schemas"
)

// Magnum is what the import read of a Magnum database, mapped to keel's
// intent documents.
type Magnum struct {
	Source  Source
	Version string
	// Templates, Clusters (with their nodegroups) and Quotas, in Magnum's
	// id order.
	Templates []Object[intent.ClusterTemplate]
	Clusters  []ClusterObject
	Quotas    []Object[intent.Quota]

	// Keyring encrypts the clusters' CA keys as keel encrypts every key
	// (for keel serve's age recipients). Apply needs it when a CA is
	// imported; a plan does not.
	Keyring *secrets.Keyring

	// checked remembers the schema's verdict on each document written
	// (by catalogue and content): Apply plans the whole import, then each
	// project's commit again on its HEAD, and CUE validation is most of
	// the cost.
	checked sync.Map // checkKey → []string
}

type checkKey struct {
	cat  any
	kind string
	sum  [32]byte
}

// Object is one Magnum row mapped to a keel document; Err says why it
// cannot be imported (the document is then incomplete).
type Object[T any] struct {
	Doc T
	// Normalized lists label values rewritten to keel's form.
	Normalized []schemas.Normalized
	Err        error
}

// ClusterObject is a cluster, its nodegroups and its CAs.
type ClusterObject struct {
	Object[intent.Cluster]
	NodeGroups []Object[intent.NodeGroup]
	// PKI is the cluster's CAs from Magnum's certificate store; nil with
	// PKINote saying why when they are not imported (pki.go).
	PKI     *pki.ClusterPKI
	PKINote string
}

// Read reads a Magnum database in one read-only transaction: its schema
// revision first (ErrUnknownSchema), then templates, clusters, nodegroups
// and quotas. A row keel cannot map is kept with its reason (Object.Err);
// only a database that does not answer or cannot be read is an error. The
// CAs are read from the database only (ReadWith reads the other stores).
func Read(ctx context.Context, src Source) (*Magnum, error) {
	return ReadWith(ctx, src, CertStores{})
}

// ReadWith is Read, the clusters' CAs read also from the certificate
// stores certs gives; a reference that cannot be read there refuses its
// cluster.
func ReadWith(ctx context.Context, src Source, certs CertStores) (*Magnum, error) {
	db, err := open(ctx, src)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	tx, err := readOnlyTx(ctx, db, src)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }() // read only: nothing to commit
	m := &Magnum{Source: src}
	if m.Version, err = schemaVersion(ctx, tx, src); err != nil {
		return nil, err
	}
	tables := map[string][]row{}
	for _, t := range []string{"cluster_template", "cluster", "nodegroup", "quotas", "x509keypair"} {
		if tables[t], err = readTable(ctx, tx, t); err != nil {
			return nil, fmt.Errorf("%s: %w", src.Display, err)
		}
	}
	templates := map[string]row{}
	for _, r := range tables["cluster_template"] {
		m.Templates = append(m.Templates, mapTemplate(r))
		templates[r["uuid"].String] = r
	}
	ngs := map[string][]row{}
	for _, r := range tables["nodegroup"] {
		ngs[r["cluster_id"].String] = append(ngs[r["cluster_id"].String], r)
	}
	keypairs := map[string]row{}
	for _, r := range tables["x509keypair"] {
		keypairs[r["uuid"].String] = r
	}
	for _, r := range tables["cluster"] {
		m.Clusters = append(m.Clusters, mapCluster(r, templates[r["cluster_template_id"].String], ngs[r["uuid"].String]))
	}
	readPKIs(ctx, m.Clusters, tables["cluster"], newCertReader(keypairs, certs))
	for _, r := range tables["quotas"] {
		m.Quotas = append(m.Quotas, mapQuota(r))
	}
	return m, nil
}
