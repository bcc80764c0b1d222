package magnumimport

import (
	"context"
	"strings"
	"sync"

	"github.com/gophercloud/gophercloud/v2"
)

// CertStores are where the import reads the certificate references that
// are not x509keypair rows of Magnum's database: cert_manager_type local
// (files of the conductor's [certificates] storage_path) and barbican
// (certificate containers). A store left unset leaves its clusters' CAs
// unimported, with a note saying which flag reads them.
type CertStores struct {
	// LocalDir is the conductor's [certificates] storage_path (Magnum's
	// default /var/lib/magnum/certificates/).
	LocalDir string
	// Barbican opens the key-manager client, on the first Barbican
	// reference only: an import without one authenticates nowhere.
	Barbican func(context.Context) (*gophercloud.ServiceClient, error)
}

// magnumCert is one certificate reference as any of Magnum's certificate
// managers returns it (cert_manager.Cert): the certificate and private
// key as Magnum stored them, and the key's passphrase.
type magnumCert struct {
	Certificate, PrivateKey, Passphrase string
}

// Where a reference points, as the plan names it.
const (
	inDatabase = "Magnum's database"
	inBarbican = "Barbican"
	inLocal    = "the conductor's storage_path"
)

// certReader reads certificate references from the three stores.
type certReader struct {
	keypairs map[string]row
	dir      string
	barbican *lazyClient
}

func newCertReader(keypairs map[string]row, s CertStores) *certReader {
	r := &certReader{keypairs: keypairs, dir: s.LocalDir}
	if s.Barbican != nil {
		r.barbican = &lazyClient{open: s.Barbican}
	}
	return r
}

// lazyClient opens a client once, for every cluster read in parallel.
type lazyClient struct {
	open   func(context.Context) (*gophercloud.ServiceClient, error)
	once   sync.Once
	client *gophercloud.ServiceClient
	err    error
}

func (l *lazyClient) get(ctx context.Context) (*gophercloud.ServiceClient, error) {
	l.once.Do(func() { l.client, l.err = l.open(ctx) })
	return l.client, l.err
}

// where says which store ref is in: an x509keypair row's uuid, a Barbican
// container's URL, or else a local file name (local's references are
// bare uuids, like x509keypair's, but have no row).
func (c *certReader) where(ref string) string {
	if _, ok := c.keypairs[ref]; ok {
		return inDatabase
	}
	if strings.Contains(ref, "/containers/") {
		return inBarbican
	}
	return inLocal
}

// readable reports whether the import was given the store ref is in.
func (c *certReader) readable(ref string) bool {
	switch c.where(ref) {
	case inBarbican:
		return c.barbican != nil
	case inLocal:
		return c.dir != ""
	}
	return true
}

// read returns the certificate ref names from its store.
func (c *certReader) read(ctx context.Context, ref string) (magnumCert, error) {
	switch c.where(ref) {
	case inBarbican:
		return c.readBarbican(ctx, ref)
	case inLocal:
		return readLocal(c.dir, ref)
	}
	kp := c.keypairs[ref]
	return magnumCert{Certificate: kp["certificate"].String, PrivateKey: kp["private_key"].String,
		Passphrase: kp["private_key_passphrase"].String}, nil
}
