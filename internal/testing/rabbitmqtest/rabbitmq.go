// Package rabbitmqtest runs a throwaway RabbitMQ (Debian's rabbitmq-server)
// for tests: its own node name, ports, Erlang port mapper and folders, so a
// system RabbitMQ on the machine is left alone. Tests that need it skip
// without rabbitmq-server unless KEEL_REQUIRE_RABBITMQ=1 (make test sets
// it), which makes that a failure.
package rabbitmqtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
)

// The server script itself: Debian's /usr/sbin wrapper switches to the
// rabbitmq user when run as root, which could not write the test's folders.
const server = "/usr/lib/rabbitmq/bin/rabbitmq-server"

// Server is a running (or stopped) throwaway RabbitMQ.
type Server struct {
	t    testing.TB
	env  []string
	port int
	epmd int
	cmd  *exec.Cmd
	done chan struct{}
	// logFile is rabbitmq-server's output.
	logFile string
}

// Start starts a RabbitMQ and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := os.Stat(server); err != nil {
		if os.Getenv("KEEL_REQUIRE_RABBITMQ") == "1" {
			t.Fatalf("KEEL_REQUIRE_RABBITMQ=1 but %s is missing (hack/test-deps.sh installs rabbitmq-server)", server)
		}
		t.Skipf("%s missing: RabbitMQ not tested here (make test installs it and sets KEEL_REQUIRE_RABBITMQ=1)", server)
	}
	dir := t.TempDir()
	s := &Server{t: t, port: freePort(t), epmd: freePort(t)}
	plugins := filepath.Join(dir, "enabled_plugins")
	if err := os.WriteFile(plugins, []byte("[].\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.env = append(os.Environ(), "HOME="+dir, // the Erlang cookie
		fmt.Sprintf("RABBITMQ_NODENAME=keeltest%d@localhost", s.port),
		"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1", "RABBITMQ_NODE_PORT="+strconv.Itoa(s.port),
		"RABBITMQ_DIST_PORT="+strconv.Itoa(freePort(t)), "ERL_EPMD_PORT="+strconv.Itoa(s.epmd),
		"RABBITMQ_MNESIA_BASE="+filepath.Join(dir, "mnesia"), "RABBITMQ_LOG_BASE="+filepath.Join(dir, "log"),
		"RABBITMQ_ENABLED_PLUGINS_FILE="+plugins, "RABBITMQ_CONFIG_FILE="+filepath.Join(dir, "none"),
		"RABBITMQ_ADVANCED_CONFIG_FILE="+filepath.Join(dir, "none.config"), "RABBITMQ_CONF_ENV_FILE="+filepath.Join(dir, "none.env"))
	s.Start()
	t.Cleanup(func() {
		s.Stop()
		// The port mapper the node started for its own port.
		_ = exec.Command("epmd", "-port", strconv.Itoa(s.epmd), "-kill").Run()
	})
	return s
}

// URL is the broker's AMQP URL (the default guest user, allowed on
// loopback).
func (s *Server) URL() string { return fmt.Sprintf("amqp://guest:guest@127.0.0.1:%d/", s.port) }

// Start (re)starts the broker on the same port and data, and waits until
// it accepts AMQP connections.
func (s *Server) Start() {
	s.t.Helper()
	s.cmd = exec.Command(server)
	s.cmd.Env = s.env
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	log, err := os.Create(filepath.Join(s.t.TempDir(), "rabbitmq.out"))
	if err != nil {
		s.t.Fatal(err)
	}
	s.cmd.Stdout, s.cmd.Stderr = log, log
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.done = make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	// An Erlang node boots in seconds on an idle machine and in over a
	// minute on a loaded one (make test runs two packages side by side).
	s.logFile = log.Name()
	s.waitAccepting(3*time.Minute, s.done, s.logFile)
}

// waitAccepting polls until the broker accepts an AMQP connection, and
// fails the test when exited closes first or within passes.
func (s *Server) waitAccepting(within time.Duration, exited <-chan struct{}, logFile string) {
	s.t.Helper()
	for deadline := time.Now().Add(within); ; time.Sleep(100 * time.Millisecond) {
		if c, err := amqp091.Dial(s.URL()); err == nil {
			c.Close()
			return
		}
		select {
		case <-exited:
			s.t.Fatalf("rabbitmq-server exited:\n%s", tail(logFile))
		default:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("RabbitMQ did not accept connections within %s:\n%s", within, tail(logFile))
		}
	}
}

// Stop stops the broker (SIGTERM: a clean shutdown) and waits for it.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(60 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
	s.cmd = nil
}

// StopApp stops RabbitMQ inside its running node (rabbitmqctl stop_app):
// for clients the broker is down (connections closed, port closed), and
// StartApp brings it back in seconds, where a new node takes tens.
func (s *Server) StopApp() { s.ctl("stop_app") }

// StartApp starts RabbitMQ again in its node and waits until it accepts
// AMQP connections.
func (s *Server) StartApp() {
	s.t.Helper()
	s.ctl("start_app")
	s.waitAccepting(60*time.Second, s.done, s.logFile)
}

func (s *Server) ctl(action string) {
	s.t.Helper()
	cmd := exec.Command("/usr/lib/rabbitmq/bin/rabbitmqctl", "-n", fmt.Sprintf("keeltest%d@localhost", s.port), action)
	cmd.Env = s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("rabbitmqctl %s: %v\n%s", action, err, out)
	}
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// tail is the end of a log, for a failure message: the test's folder,
// where the log is, is gone by the time anyone reads CI's output.
func tail(p string) string {
	data, err := os.ReadFile(p)
	if err != nil {
		return err.Error()
	}
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}
