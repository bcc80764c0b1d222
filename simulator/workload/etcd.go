package workload

import (
	"context"
	"crypto/tls"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"sort"
	"sync"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/openkeel/keel/internal/pki"
)

// etcdCluster is the stacked etcd of one simulated workload cluster, as
// Cluster API's KubeadmControlPlane controller sees it: one member per
// control-plane node, reached by port-forwarding to the etcd-<node> static
// pod, answering the calls KCP makes (member list, status, alarms, member
// removal, leadership transfer). The workload cluster's own data lives in a
// real etcd behind its real kube-apiserver; only this membership view is
// simulated, because no etcd peer can run per simulated machine here.
type etcdCluster struct {
	clusterID uint64
	ca        pki.KeyPair

	mu      sync.Mutex
	members map[string]*etcdMember // by node name
	leader  uint64
	revs    int64
}

type etcdMember struct {
	id      uint64
	name    string
	ip      string
	server  *grpc.Server
	listen  *connListener
	stopped bool
}

func newEtcdCluster(name string) *etcdCluster {
	return &etcdCluster{clusterID: hashID("cluster/" + name), members: map[string]*etcdMember{}}
}

func (e *etcdCluster) setCA(ca pki.KeyPair) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ca = ca
}

// hashID gives a stable, non-zero member or cluster ID (etcd's IDs are
// random uint64s; stable ones make logs comparable between runs).
func hashID(s string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	if v := h.Sum64(); v != 0 {
		return v
	}
	return 1
}

// add makes the node an etcd member, as `kubeadm init` / `kubeadm join
// --control-plane` do. The first member becomes the leader.
func (e *etcdCluster) add(node, ip string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.members[node]; ok {
		return nil
	}
	serving, err := issue(e.ca, leafSpec{
		CommonName: node, DNSNames: []string{node, "localhost"},
		IPs: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP(ip)}, Server: true, Client: true,
	})
	if err != nil {
		return err
	}
	cert, err := serving.TLS()
	if err != nil {
		return err
	}
	m := &etcdMember{id: hashID(node), name: node, ip: ip, listen: newConnListener(node)}
	m.server = grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAnyClientCert,
		MinVersion:   tls.VersionTLS12,
	})))
	pb.RegisterClusterServer(m.server, &etcdClusterServer{e: e, self: m})
	pb.RegisterMaintenanceServer(m.server, &etcdMaintenanceServer{e: e, self: m})
	go func() { _ = m.server.Serve(m.listen) }()
	e.members[node] = m
	if e.leader == 0 {
		e.leader = m.id
	}
	e.revs++
	return nil
}

// stop stops a member's server (its machine is gone). It does not remove
// it from the membership: only a MemberRemove call does that, as in etcd,
// where a deleted machine's member stays listed until someone removes it.
func (e *etcdCluster) stop(node string) {
	e.mu.Lock()
	m := e.members[node]
	if m != nil && !m.stopped {
		m.stopped = true
		if e.leader == m.id {
			e.leader = 0
			for _, o := range e.sortedLocked() {
				if !o.stopped {
					e.leader = o.id
					break
				}
			}
		}
	}
	e.mu.Unlock()
	if m != nil {
		m.server.Stop()
	}
}

// stopAll stops every member server (the workload cluster is deleted).
func (e *etcdCluster) stopAll() {
	e.mu.Lock()
	ms := e.sortedLocked()
	e.mu.Unlock()
	for _, m := range ms {
		m.server.Stop()
	}
}

// serve hands a port-forwarded stream to the member of node; it reports
// whether the member exists and runs.
func (e *etcdCluster) serve(ctx context.Context, node string, stream io.ReadWriteCloser) error {
	e.mu.Lock()
	m := e.members[node]
	running := m != nil && !m.stopped
	e.mu.Unlock()
	if !running {
		return fmt.Errorf("etcd on %s is not running", node)
	}
	return m.listen.serve(ctx, stream)
}

func (e *etcdCluster) sortedLocked() []*etcdMember {
	out := make([]*etcdMember, 0, len(e.members))
	for _, m := range e.members {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func (e *etcdCluster) header(self *etcdMember) *pb.ResponseHeader {
	return &pb.ResponseHeader{ClusterId: e.clusterID, MemberId: self.id, Revision: e.revs, RaftTerm: 2}
}

func (m *etcdMember) pb() *pb.Member {
	return &pb.Member{
		ID:         m.id,
		Name:       m.name,
		PeerURLs:   []string{"https://" + m.ip + ":2380"},
		ClientURLs: []string{"https://" + m.ip + ":2379"},
	}
}

type etcdClusterServer struct {
	pb.UnimplementedClusterServer
	e    *etcdCluster
	self *etcdMember
}

func (s *etcdClusterServer) MemberList(context.Context, *pb.MemberListRequest) (*pb.MemberListResponse, error) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	resp := &pb.MemberListResponse{Header: s.e.header(s.self)}
	for _, m := range s.e.sortedLocked() {
		resp.Members = append(resp.Members, m.pb())
	}
	return resp, nil
}

func (s *etcdClusterServer) MemberRemove(_ context.Context, req *pb.MemberRemoveRequest) (*pb.MemberRemoveResponse, error) {
	s.e.mu.Lock()
	var gone *etcdMember
	for name, m := range s.e.members {
		if m.id == req.ID {
			gone = m
			delete(s.e.members, name)
		}
	}
	if gone == nil {
		s.e.mu.Unlock()
		return nil, status.Error(codes.NotFound, "etcdserver: member not found")
	}
	if s.e.leader == gone.id {
		s.e.leader = 0
		for _, o := range s.e.sortedLocked() {
			if !o.stopped {
				s.e.leader = o.id
				break
			}
		}
	}
	s.e.revs++
	resp := &pb.MemberRemoveResponse{Header: s.e.header(s.self)}
	for _, m := range s.e.sortedLocked() {
		resp.Members = append(resp.Members, m.pb())
	}
	s.e.mu.Unlock()
	// A removed member stops serving, as etcd does once it learns it was removed.
	if gone != s.self {
		go gone.server.Stop()
	}
	return resp, nil
}

type etcdMaintenanceServer struct {
	pb.UnimplementedMaintenanceServer
	e    *etcdCluster
	self *etcdMember
}

func (s *etcdMaintenanceServer) Status(context.Context, *pb.StatusRequest) (*pb.StatusResponse, error) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	return &pb.StatusResponse{
		Header:    s.e.header(s.self),
		Version:   "3.6.6",
		DbSize:    4 << 20,
		Leader:    s.e.leader,
		RaftIndex: uint64(s.e.revs),
		RaftTerm:  2,
	}, nil
}

func (s *etcdMaintenanceServer) Alarm(_ context.Context, req *pb.AlarmRequest) (*pb.AlarmResponse, error) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	return &pb.AlarmResponse{Header: s.e.header(s.self)}, nil
}

func (s *etcdMaintenanceServer) MoveLeader(_ context.Context, req *pb.MoveLeaderRequest) (*pb.MoveLeaderResponse, error) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	for _, m := range s.e.members {
		if m.id == req.TargetID && !m.stopped {
			s.e.leader = m.id
			return &pb.MoveLeaderResponse{Header: s.e.header(s.self)}, nil
		}
	}
	return nil, status.Error(codes.NotFound, "etcdserver: bad leader transferee")
}
