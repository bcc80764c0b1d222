package workload

import (
	"context"
	"io"
	"net"
	"sync"
	"time"
)

// connListener is a net.Listener whose connections are port-forwarded
// streams: the simulated kubelet hands each stream for a pod's port to the
// server that plays the process in that pod (etcd's gRPC server).
type connListener struct {
	name   string
	conns  chan net.Conn
	done   chan struct{}
	closed sync.Once
}

func newConnListener(name string) *connListener {
	return &connListener{name: name, conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.closed.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return streamAddr(l.name) }

// serve hands the stream to the server and blocks until either side closes
// it, as the kubelet's port-forward does for the life of the stream.
func (l *connListener) serve(ctx context.Context, stream io.ReadWriteCloser) error {
	c := &streamConn{rwc: stream, name: l.name, closed: make(chan struct{})}
	select {
	case l.conns <- c:
	case <-l.done:
		return net.ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-c.closed:
	case <-ctx.Done():
		_ = c.Close()
	case <-l.done:
		_ = c.Close()
	}
	return nil
}

type streamAddr string

func (a streamAddr) Network() string { return "portforward" }
func (a streamAddr) String() string  { return string(a) }

// streamConn makes a port-forward stream a net.Conn. Deadlines are not
// supported by the stream; gRPC and TLS only use them as timeouts, and the
// kubelet side closes idle streams.
type streamConn struct {
	rwc    io.ReadWriteCloser
	name   string
	once   sync.Once
	closed chan struct{}
}

func (c *streamConn) Read(b []byte) (int, error)  { return c.rwc.Read(b) }
func (c *streamConn) Write(b []byte) (int, error) { return c.rwc.Write(b) }
func (c *streamConn) Close() error {
	var err error
	c.once.Do(func() { err = c.rwc.Close(); close(c.closed) })
	return err
}
func (c *streamConn) LocalAddr() net.Addr              { return streamAddr(c.name) }
func (c *streamConn) RemoteAddr() net.Addr             { return streamAddr("kube-apiserver") }
func (c *streamConn) SetDeadline(time.Time) error      { return nil }
func (c *streamConn) SetReadDeadline(time.Time) error  { return nil }
func (c *streamConn) SetWriteDeadline(time.Time) error { return nil }
