package server

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/internal/testing/keystonetest"
	"github.com/openkeel/keel/restapi/auth"
)

// givenWithCredentials looks nothing up (there is no fake Nova here) but
// makes and deletes application credentials in Keystone as
// openstack.Client does.
type givenWithCredentials struct {
	openstack.Given
	creds *openstack.Client
}

func (g givenWithCredentials) CreateApplicationCredential(ctx context.Context, name, desc string) (*openstack.ApplicationCredential, error) {
	return g.creds.CreateApplicationCredential(ctx, name, desc)
}

func (g givenWithCredentials) DeleteApplicationCredential(ctx context.Context, userID, id string) error {
	return g.creds.DeleteApplicationCredential(ctx, userID, id)
}

// keel under Keystone, end to end with Cluster API's own controllers: creating a cluster
// makes the caller's application credential, which the management
// cluster's cloud-config Secret carries; deleting the cluster deletes the
// credential in Keystone with keel's (admin) service user once the CAPI
// Cluster is gone.
func TestKeystoneApplicationCredentialLifecycle(t *testing.T) {
	ks := keystonetest.New(t)
	alice := ks.AddUser(keystonetest.User{ID: "alice-id", Name: "alice", Password: "alice-pw",
		ProjectID: "demo-id", ProjectName: "demo", Roles: []string{"member"}})
	ks.AddUser(keystonetest.User{ID: "keel-admin-id", Name: "keel-admin", Password: "pw",
		ProjectID: "service-project-id", ProjectName: keystonetest.ServiceProject, Roles: []string{"admin"}})
	scope := &gophercloud.AuthScope{ProjectName: keystonetest.ServiceProject, DomainName: keystonetest.DomainName}
	cloud := givenWithCredentials{creds: openstack.New(openstack.Options{Region: keystonetest.Region, Auth: gophercloud.AuthOptions{
		IdentityEndpoint: ks.AuthURL, Username: "keel-admin", Password: "pw", DomainName: keystonetest.DomainName, Scope: scope}})}
	in, sc := startRealKeelWith(t, "1.10", func(o *Options) {
		o.Auth = &auth.Keystone{AuthURL: ks.AuthURL, Service: gophercloud.AuthOptions{
			Username: keystonetest.ServiceUser, Password: keystonetest.ServicePass, DomainName: keystonetest.DomainName, Scope: scope}}
		o.AuthURL = ks.AuthURL
		o.OpenStack = cloud
	})
	sc.MoreHeaders = map[string]string{"X-Auth-Token": ks.Issue(t, alice.Name, 0)}
	ctx := context.Background()
	tmpl, err := clustertemplates.Create(ctx, sc, clustertemplates.CreateOpts{
		Name: "k8s", COE: "kubernetes", ImageID: "ubuntu-2204-kube-v1.33", FlavorID: "m1.medium",
		MasterFlavorID: "m1.large", ExternalNetworkID: "public", Labels: map[string]string{"kube_tag": "v1.33.4"},
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	uuid, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: "c1", ClusterTemplateID: tmpl.UUID, MasterCount: &one, NodeCount: &one}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	acs := ks.ApplicationCredentials(alice.ID)
	if len(acs) != 1 || acs[0].Name != uuid {
		t.Fatalf("alice's credentials %+v: want one named %s", acs, uuid)
	}
	got := waitClusterStatus(t, sc, uuid, "CREATE_COMPLETE")

	secretKey := client.ObjectKey{Namespace: kube.Namespace, Name: got.StackID + "-cloud-config"}
	var s corev1.Secret
	if err := in.Client.Get(ctx, secretKey, &s); err != nil {
		t.Fatal(err)
	}
	if s.Annotations[intent.AnnotationAppCredentialID] != acs[0].ID {
		t.Fatalf("cloud-config annotations %v: want credential %s", s.Annotations, acs[0].ID)
	}

	if err := clusters.Delete(ctx, sc, uuid).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, realWait, "the credential to be deleted in Keystone", func() bool {
		return len(ks.ApplicationCredentials(alice.ID)) == 0
	})
	err = in.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: got.StackID}, &clusterv1.Cluster{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("the credential was deleted while the CAPI Cluster exists (%v)", err)
	}
}
