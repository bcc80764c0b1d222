package magnumimport

import (
	"context"
	"fmt"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/config"
	"github.com/gophercloud/gophercloud/v2/openstack/config/clouds"
	"github.com/gophercloud/gophercloud/v2/openstack/keymanager/v1/containers"
	"github.com/gophercloud/gophercloud/v2/openstack/keymanager/v1/secrets"
)

// BarbicanFromCloud reads a clouds.yaml cloud (clouds.WithCloudName and
// the other options of gophercloud's clouds package) and returns what
// opens Barbican's client with it; Keystone is asked only then. Magnum
// stores the CAs with its own service user (magnum.conf's
// [keystone_auth], in its project, usually "service"), and Barbican's
// default policy lets only tokens of that project read them: the cloud
// must be that user or an admin of that project.
func BarbicanFromCloud(opts ...clouds.ParseOption) (func(context.Context) (*gophercloud.ServiceClient, error), error) {
	auth, eo, tlsConfig, err := clouds.Parse(opts...)
	if err != nil {
		return nil, fmt.Errorf("clouds.yaml: %w", err)
	}
	return func(ctx context.Context) (*gophercloud.ServiceClient, error) {
		pc, err := config.NewProviderClient(ctx, auth, config.WithTLSConfig(tlsConfig))
		if err != nil {
			return nil, fmt.Errorf("reading Magnum's CAs from Barbican: authenticating at %s: %w", auth.IdentityEndpoint, err)
		}
		c, err := openstack.NewKeyManagerV1(pc, eo)
		if err != nil {
			return nil, fmt.Errorf("reading Magnum's CAs from Barbican: its endpoint in region %q: %w", eo.Region, err)
		}
		return c, nil
	}, nil
}

// readBarbican reads a certificate container as Magnum's barbican
// certificate manager stored it: a container of type certificate whose
// secrets are named certificate, private_key and, when the key has one,
// private_key_passphrase. Each payload is read in the content type it was
// stored with (Accept */*): Zed's Magnum stores bytes (octet-stream),
// later ones text/plain; both are the PEM text.
func (c *certReader) readBarbican(ctx context.Context, ref string) (magnumCert, error) {
	client, err := c.barbican.get(ctx)
	if err != nil {
		return magnumCert{}, err
	}
	ct, err := containers.Get(ctx, client, lastID(ref, "/containers/")).Extract()
	if err != nil {
		return magnumCert{}, barbicanErr("certificate container", ref, err)
	}
	return containerSecrets(ctx, client, ct) // the caller names ref
}

// containerSecrets reads the payloads of a certificate container's
// secrets, by their names in the container.
func containerSecrets(ctx context.Context, client *gophercloud.ServiceClient, ct *containers.Container) (magnumCert, error) {
	refs := map[string]string{}
	for _, s := range ct.SecretRefs {
		refs[s.Name] = s.SecretRef
	}
	var out magnumCert
	var err error
	for _, f := range []struct {
		name     string
		to       *string
		required bool
	}{{"certificate", &out.Certificate, true}, {"private_key", &out.PrivateKey, true},
		{"private_key_passphrase", &out.Passphrase, false}} {
		if *f.to, err = secretPayload(ctx, client, refs[f.name], f.name, f.required); err != nil {
			return magnumCert{}, err
		}
	}
	return out, nil
}

// secretPayload reads one secret of a container; a missing optional one
// is empty.
func secretPayload(ctx context.Context, client *gophercloud.ServiceClient, ref, name string, required bool) (string, error) {
	if ref == "" {
		if required {
			return "", fmt.Errorf("no %s secret (a Magnum certificate container has certificate and private_key)", name)
		}
		return "", nil
	}
	b, err := secrets.GetPayload(ctx, client, lastID(ref, "/secrets/"),
		secrets.GetPayloadOpts{PayloadContentType: "*/*"}).Extract()
	if err != nil {
		return "", barbicanErr(name+" secret", ref, err)
	}
	return string(b), nil
}

// lastID is the id after marker in a Barbican reference: the container or
// secret is read at the catalog's key-manager endpoint, which may differ
// from the address Magnum's conductor saw.
func lastID(ref, marker string) string {
	_, id, _ := strings.Cut(ref, marker)
	return strings.Trim(id, "/")
}

// barbicanErr says what a refused or failed read means.
func barbicanErr(what, ref string, err error) error {
	switch {
	case gophercloud.ResponseCodeIs(err, statusForbidden):
		return fmt.Errorf("reading %s %s: 403 Forbidden from Barbican to these credentials: "+
			"Magnum stored it with its service user (magnum.conf [keystone_auth]); --os-cloud must be that user "+
			"or an admin of its project", what, ref)
	case gophercloud.ResponseCodeIs(err, statusNotFound):
		return fmt.Errorf("reading %s %s: 404 Not Found in Barbican (deleted, or not the Barbican of Magnum's cloud)", what, ref)
	}
	return fmt.Errorf("reading %s %s from Barbican: %w", what, ref, err)
}

// Barbican's answers the import tells apart (net/http's values: keel
// import serves no HTTP and does not import it, internal/layering).
const (
	statusForbidden = 403
	statusNotFound  = 404
)
