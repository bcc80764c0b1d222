package openstack

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
)

// UserToken is the caller's own Keystone token and the service catalog
// Keystone returned with it. With it in the Scope, Client looks up as the
// caller, as Magnum does with the request context's auth token: the
// caller's keypairs, private images and flavors shared with the caller's
// project resolve without an admin service user.
//
// The token is a secret: its fields are unexported and it prints, logs and
// marshals as "[redacted]", so neither logs nor Git ever receive it.
type UserToken struct {
	id        string
	hash      string // SHA-256 of id, hex: the cache key
	catalog   *tokens.ServiceCatalog
	expiresAt time.Time
	// rejected, when set, is told that a service refused the token (401).
	rejected func()
}

// NewUserToken returns the caller's token id, valid until expiresAt, with
// the catalog of its validation. rejected (may be nil) is called when a
// service answers 401 to it, so the validator can forget the token. Nil
// without a token or a catalog: Client then looks up as keel's service
// user.
func NewUserToken(id string, catalog []tokens.CatalogEntry, expiresAt time.Time, rejected func()) *UserToken {
	if id == "" || len(catalog) == 0 {
		return nil
	}
	sum := sha256.Sum256([]byte(id))
	return &UserToken{id: id, hash: hex.EncodeToString(sum[:]),
		catalog: &tokens.ServiceCatalog{Entries: catalog}, expiresAt: expiresAt, rejected: rejected}
}

// ExpiresAt is when Keystone said the token expires.
func (t *UserToken) ExpiresAt() time.Time { return t.expiresAt }

const redacted = "[redacted]"

// String hides the token from fmt (%v and %+v of structs holding it).
func (t *UserToken) String() string { return redacted }

// GoString hides the token from %#v.
func (t *UserToken) GoString() string { return redacted }

// LogValue hides the token from slog.
func (t *UserToken) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalText hides the token from JSON and YAML encoders.
func (t *UserToken) MarshalText() ([]byte, error) { return []byte(redacted), nil }
