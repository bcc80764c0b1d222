package mgmtcluster

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// Terminate stops a child process the way its supervisor would: SIGTERM,
// then SIGKILL when it has not exited (done closed) within grace. It
// returns an error naming the process only when it had to be killed.
func Terminate(p *os.Process, done <-chan struct{}, name string, grace time.Duration) error {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-done:
		return nil
	case <-time.After(grace):
	}
	_ = p.Kill()
	<-done
	return errors.New(name + " did not end within " + grace.String() + " of SIGTERM; killed it")
}
