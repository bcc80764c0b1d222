package openstack

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	gcos "github.com/gophercloud/gophercloud/v2/openstack"

	"github.com/openkeel/keel/internal/testenv/realopenstack"
)

// realCloud attaches to the test cloud (hack/openstack.sh) and returns
// keel's Client as keel's service user there, as keel serve configures it.
func realCloud(t *testing.T) (*realopenstack.Cloud, *Client) {
	t.Helper()
	cloud := realopenstack.Attach(t)
	return cloud, New(Options{Auth: cloud.ServiceAuth(), Region: cloud.Region})
}

// asCaller scopes ctx as keel's API does a request of p's user under
// --auth keystone: their project, their ID and their token with its
// catalog.
func asCaller(t *testing.T, p *realopenstack.Project) context.Context {
	t.Helper()
	id, catalog, expires := p.UserToken(t)
	return WithScope(context.Background(), Scope{ProjectID: p.ID, UserID: p.UserID,
		Token: NewUserToken(id, catalog, expires, nil)})
}

// identityOf is Keystone as p's user.
func identityOf(t *testing.T, cloud *realopenstack.Cloud, p *realopenstack.Project) *gophercloud.ServiceClient {
	t.Helper()
	ic, err := gcos.NewIdentityV3(p.Provider(t), cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	return ic
}
