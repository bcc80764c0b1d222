package mgmtcluster

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// KillOrphans stops an etcd left running on dataDir by a keel that died
// without stopping it (a crash, SIGKILL), the kube-apiserver that used
// that etcd and the kube-controller-manager (garbage collector) whose
// kubeconfig lies next to dataDir (gcDir). Only orphans (re-parented to init) are touched: a management
// cluster whose keel is alive is never killed. Linux only (/proc); elsewhere
// it does nothing.
func KillOrphans(dataDir string, log io.Writer) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	abs, _ := filepath.Abs(dataDir)
	type proc struct {
		pid  int
		args []string
	}
	var all []proc
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err != nil || len(cmdline) == 0 {
			continue
		}
		all = append(all, proc{pid, strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")})
	}
	flag := func(args []string, name string) string {
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
				return v
			}
		}
		return ""
	}
	kubeconfig := filepath.Join(gcDir(abs), "kubeconfig")
	for _, k := range all {
		if filepath.Base(k.args[0]) == "kube-controller-manager" && flag(k.args, "kubeconfig") == kubeconfig && orphan(k.pid) {
			fmt.Fprintf(log, "keel: stopping a kube-controller-manager (pid %d) left running by a previous keel\n", k.pid)
			stopProcess(k.pid)
		}
	}
	for _, e := range all {
		if filepath.Base(e.args[0]) != "etcd" || flag(e.args, "data-dir") != abs || !orphan(e.pid) {
			continue
		}
		client := flag(e.args, "listen-client-urls")
		for _, a := range all {
			if filepath.Base(a.args[0]) == "kube-apiserver" && client != "" && strings.Contains(flag(a.args, "etcd-servers"), client) && orphan(a.pid) {
				fmt.Fprintf(log, "keel: stopping a kube-apiserver (pid %d) left running by a previous keel\n", a.pid)
				stopProcess(a.pid)
			}
		}
		fmt.Fprintf(log, "keel: stopping an etcd (pid %d) left running on %s by a previous keel\n", e.pid, abs)
		stopProcess(e.pid)
	}
}

func orphan(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// Fields after the command name (which may hold spaces) start at ") ".
	i := bytes.LastIndex(stat, []byte(") "))
	if i < 0 {
		return false
	}
	fields := strings.Fields(string(stat[i+2:]))
	return len(fields) > 1 && fields[1] == "1"
}

func stopProcess(pid int) {
	_ = syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 50; i++ {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
