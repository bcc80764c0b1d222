package server

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
)

// keel reaches the management cluster through a TCP proxy; once the proxy
// is gone (the apiserver stopped or unreachable), /readyz is 503 and names
// the management cluster while Git and the database still pass.
func TestNotReadyWhenTheManagementClusterIsUnreachable(t *testing.T) {
	p := newTCPProxy(t, env.Config.Host)
	cfg := rest.CopyConfig(env.Config)
	cfg.Host = "https://" + p.addr()
	in, _ := startKeelWith(t, "1.10", func(o *Options) { o.Config = cfg })
	if code, body := getReadyz(t, in.URL); code != http.StatusOK {
		t.Fatalf("/readyz through the proxy: %d %+v, want 200", code, body)
	}

	p.close()
	code, body := getReadyz(t, in.URL)
	if code != http.StatusServiceUnavailable || body.Checks["management-cluster"] == "ok" {
		t.Fatalf("/readyz with the management cluster unreachable: %d %+v, want 503 naming management-cluster", code, body)
	}
	for _, name := range []string{"git", "database"} {
		if body.Checks[name] != "ok" {
			t.Errorf("check %q: %q, want ok", name, body.Checks[name])
		}
	}
}

// tcpProxy forwards connections to target until closed, then refuses them
// and cuts the open ones.
type tcpProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln}
	t.Cleanup(p.close)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", u.Host)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	return p
}

func (p *tcpProxy) addr() string { return p.ln.Addr().String() }

func (p *tcpProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
