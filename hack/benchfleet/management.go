package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// management is one `keel management` (-split): the management cluster,
// Cluster API's controllers and the simulated OpenStack and workload
// clusters in a process of their own, as a real deployment runs Cluster
// API apart from keel.
type management struct {
	bin, dataDir, apiServers, profiler string
	step                               time.Duration
	cmd                                *exec.Cmd
	exited                             chan error
}

func (m *management) kubeconfig() string { return filepath.Join(m.dataDir, "management.kubeconfig") }

// start runs keel management and waits for its kubeconfig, which it writes
// once the management cluster answers.
func (m *management) start(limit time.Duration) error {
	log, err := os.OpenFile(filepath.Join(filepath.Dir(m.dataDir), "management.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	m.cmd = exec.Command(m.bin, "management", "--data-dir", m.dataDir, "--simulate-step", m.step.String(), //nolint:gosec // the bench's own build
		"--workload-apiservers", m.apiServers, "--log-level", "warn", "--profiler-address", m.profiler)
	m.cmd.Stdout, m.cmd.Stderr = log, log
	if err := m.cmd.Start(); err != nil {
		return err
	}
	m.exited = make(chan error, 1)
	go func() { m.exited <- m.cmd.Wait(); _ = log.Close() }()
	for start := time.Now(); time.Since(start) < limit; {
		if _, err := os.Stat(m.kubeconfig()); err == nil {
			return nil
		}
		select {
		case err := <-m.exited:
			return fmt.Errorf("keel management exited: %v (see management.log)", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
	return errors.New("keel management wrote no kubeconfig within " + limit.String())
}

// stop sends SIGTERM and waits.
func (m *management) stop() error { return stopProcess("keel management", m.cmd, m.exited) }
