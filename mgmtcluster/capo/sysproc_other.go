//go:build !linux

package capo

import "syscall"

// sysProcAttr: no parent-death signal outside Linux; Stop ends the managers.
func sysProcAttr() *syscall.SysProcAttr { return nil }
