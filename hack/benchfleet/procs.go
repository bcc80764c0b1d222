package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// roles, in the order the table prints them: which part of keel a process
// is. keel's own process holds the API, the reconciler, the observer and,
// on the embedded default, Cluster API's controllers and the simulated
// OpenStack and (light) workload clusters; with -split those run in
// `keel management` ("cluster-api") and keel's process holds only its own.
var roles = []string{"keel", "cluster-api", "mgmt-apiserver", "mgmt-etcd", "mgmt-gc", "workload-apiservers", "workload-etcd"}

func role(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	cmd := strings.ReplaceAll(string(b), "\x00", " ")
	switch {
	case strings.Contains(cmd, "kube-apiserver") && strings.Contains(cmd, "--etcd-prefix=/workload"):
		return "workload-apiservers"
	case strings.Contains(cmd, "kube-apiserver"):
		return "mgmt-apiserver"
	case strings.Contains(cmd, "kube-controller-manager"):
		return "mgmt-gc"
	case strings.Contains(cmd, "etcd") && strings.Contains(cmd, "--name=workload"):
		return "workload-etcd"
	case strings.Contains(cmd, "etcd"):
		return "mgmt-etcd"
	case strings.Contains(cmd, " management "):
		return "cluster-api"
	}
	return "keel"
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		f := statFields(b)
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			n, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

// statFields are /proc/PID/stat's fields after the command name (which may
// hold spaces): state, ppid, ...
func statFields(b []byte) []string {
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	return strings.Fields(s)
}

// cpuTicks is a process's user + system time, in clock ticks.
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := statFields(b)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// rssKiB is a process's resident memory.
func rssKiB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// usage is one part's memory and CPU over a window.
type usage struct {
	procs int
	rssMB int64
	cpu   float64 // % of one core
}

// clockTicks is Linux's USER_HZ, 100 on every architecture Go runs here.
const clockTicks = 100

// measure samples RSS at the end and CPU over window, per role, of the
// roots and their children.
func measure(roots []int, window time.Duration, during func()) map[string]usage {
	var pids []int
	for _, r := range roots {
		pids = append(append(pids, r), children(r)...)
	}
	t0 := map[int]int64{}
	for _, p := range pids {
		t0[p] = cpuTicks(p)
	}
	start := time.Now()
	if during != nil {
		go during()
	}
	time.Sleep(window)
	secs := time.Since(start).Seconds()
	out := map[string]usage{}
	for _, p := range pids {
		r := role(p)
		u := out[r]
		u.procs++
		u.rssMB += rssKiB(p) / 1024
		u.cpu += float64(cpuTicks(p)-t0[p]) * 100 / (clockTicks * secs)
		out[r] = u
	}
	return out
}
