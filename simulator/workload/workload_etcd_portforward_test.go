package workload

import (
	"crypto/tls"
	"crypto/x509"
	"testing"
	"time"

	"sigs.k8s.io/cluster-api/controlplane/kubeadm/pkg/etcd"
	"sigs.k8s.io/cluster-api/controlplane/kubeadm/pkg/proxy"
)

// Cluster API's own etcd client (the one KubeadmControlPlane uses) reaches
// each control-plane machine's etcd member by port-forwarding through the
// workload cluster's real kube-apiserver to the etcd-<node> static pod, and
// sees the membership: every control-plane machine, one leader, members
// removable and leadership movable.
func TestEtcdMembersThroughPortForward(t *testing.T) {
	ctx := testContext(t)
	c, p := newCluster(t, "etcd")
	nodes := []Machine{
		{Name: "etcd-control-plane-aaaaa", ControlPlane: true, IP: "10.0.0.21", KubeletVersion: "v1.33.4"},
		{Name: "etcd-control-plane-bbbbb", ControlPlane: true, IP: "10.0.0.22", KubeletVersion: "v1.33.4"},
		{Name: "etcd-control-plane-ccccc", ControlPlane: true, IP: "10.0.0.23", KubeletVersion: "v1.33.4"},
	}
	for _, m := range nodes {
		if err := c.Boot(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	clientCert, err := issue(p.EtcdCA, leafSpec{CommonName: "cluster-api.x-k8s.io", Client: true})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := clientCert.TLS()
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(p.EtcdCA.Cert)
	connect := func(node string) *etcd.Client {
		t.Helper()
		cl, err := etcd.NewClient(ctx, etcd.ClientConfiguration{
			Endpoint: "etcd-" + node,
			Proxy:    proxy.Proxy{Kind: "pods", Namespace: "kube-system", KubeConfig: c.RESTConfig(), Port: 2379},
			// As KCP dials: the static pod name is not in the serving
			// certificate, so only the chain to the etcd CA is verified.
			TLSConfig: &tls.Config{
				Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12,
				InsecureSkipVerify: true, //nolint:gosec // replaced by VerifyConnection, as in KCP
				VerifyConnection: func(cs tls.ConnectionState) error {
					_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: pool})
					return err
				},
			},
			DialTimeout: 10 * time.Second,
			CallTimeout: 10 * time.Second,
		})
		if err != nil {
			t.Fatalf("connecting to etcd-%s through the API server: %v", node, err)
		}
		t.Cleanup(func() { _ = cl.Close() })
		return cl
	}

	first := connect(nodes[0].Name)
	members, err := first.Members(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != 3 {
		t.Fatalf("members = %d, want 3", len(members))
	}
	if first.LeaderID != hashID(nodes[0].Name) {
		t.Fatalf("leader = %x, want the first control-plane machine", first.LeaderID)
	}
	if err := first.MoveLeader(ctx, hashID(nodes[1].Name)); err != nil {
		t.Fatal(err)
	}
	if err := first.RemoveMember(ctx, hashID(nodes[2].Name)); err != nil {
		t.Fatal(err)
	}
	second := connect(nodes[1].Name)
	if second.LeaderID != hashID(nodes[1].Name) {
		t.Fatalf("after MoveLeader the leader is %x, want the second machine", second.LeaderID)
	}
	members, err = second.Members(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != 2 {
		t.Fatalf("after MemberRemove: %d members, want 2", len(members))
	}
	alarms, err := second.Alarms(ctx)
	if err != nil || len(alarms) != 0 {
		t.Fatalf("alarms = %v, %v; want none", alarms, err)
	}
}
