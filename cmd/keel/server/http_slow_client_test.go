package server

import (
	"bufio"
	"net"
	"net/http"
	"testing"
	"time"
)

// A client that sends half a request and stops is disconnected once the
// header timeout passes, and many such clients do not keep a well-behaved
// one from being answered.
func TestSlowClientsCannotHoldTheAPI(t *testing.T) {
	srv := newHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	srv.ReadHeaderTimeout = 300 * time.Millisecond // the test's; production's is readHeaderTimeout
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	var slow []net.Conn
	for i := 0; i < 200; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := c.Write([]byte("GET /v1 HTTP/1.1\r\nHost: x\r\n")); err != nil { // never finished
			t.Fatal(err)
		}
		slow = append(slow, c)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatalf("a well-behaved client behind 200 stalled ones: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("status %d", resp.StatusCode)
	}
	// The stalled client is answered (408 or closed) once the timeout passes.
	_ = slow[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(slow[0]).ReadString('\n')
	if err == nil && line != "HTTP/1.1 408 Request Timeout\r\n" {
		t.Fatalf("stalled client got %q, want a 408 or a closed connection", line)
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the stalled client was still connected after 5s: the header timeout does not apply")
	}
	if srv.ReadTimeout == 0 || srv.WriteTimeout == 0 || srv.IdleTimeout == 0 || srv.MaxHeaderBytes == 0 {
		t.Fatalf("unbounded server: %+v", srv)
	}
}
