package capo

import "syscall"

// sysProcAttr makes the kernel send the manager SIGTERM when the process
// that started it dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
