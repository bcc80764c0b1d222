#!/usr/bin/env bash
# What `keel serve --cluster-api=real` costs on this machine: memory (RSS) and
# CPU use over an idle window, of keel itself (API, reconciler, observer and
# Cluster API's controllers, all in-process), the management cluster's
# kube-apiserver, etcd and kube-controller-manager (garbage collector only),
# and the workload clusters' kube-apiservers and shared etcd, with 0 clusters
# and with N clusters CREATE_COMPLETE (every server booted, the addons
# delivered, every Node Ready), SETTLE seconds (default 60) after the last
# one completed.
#
#   hack/bench-real-clusters.sh [N]     # default N=20; WORKLOAD_APISERVERS=light for lightapi
#
# A fleet of hundreds is hack/benchfleet's job (make bench-fleet).
#
# A measurement, not a test: it prints a table and asserts nothing. It needs
# the testbin binaries (make test or make run builds them).
set -euo pipefail
n=${1:-20}
window=${WINDOW:-30}
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
url=http://127.0.0.1:$port
go build -o "$dir/keel" ./cmd/keel
"$dir/keel" serve --data-dir "$dir/data" --listen "127.0.0.1:$port" --cluster-api real --workload-apiservers "${WORKLOAD_APISERVERS:-real}" --simulate-step 2s --log-level warn >"$dir/keel.log" 2>&1 &
keel=$!
cleanup() { kill "$keel" 2>/dev/null || true; wait "$keel" 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
for _ in $(seq 600); do curl -fs "$url/readyz" >/dev/null 2>&1 && break; sleep 1; done
curl -fs "$url/readyz" >/dev/null || { tail -20 "$dir/keel.log"; exit 1; }

# role PID: which part of keel a process is.
role() {
	local cmd
	cmd=$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null || true)
	case "$cmd" in
	*kube-apiserver*--etcd-prefix=/workload*) echo workload-apiservers ;;
	*kube-apiserver*) echo mgmt-apiserver ;;
	*kube-controller-manager*) echo mgmt-gc ;;
	*etcd*--name=workload*) echo workload-etcd ;;
	*etcd*) echo mgmt-etcd ;;
	*) echo keel ;;
	esac
}
pids() { echo "$keel"; pgrep -P "$keel" || true; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

# sample LABEL: RSS now, CPU share over the next $window seconds, per role.
sample() {
	declare -A t0 r cpu count
	for p in $(pids); do t0[$p]=$(ticks "$p"); done
	sleep "$window"
	local hz
	hz=$(getconf CLK_TCK)
	for p in $(pids); do
		local k
		k=$(role "$p")
		r[$k]=$(( ${r[$k]:-0} + $(rss "$p") ))
		cpu[$k]=$(( ${cpu[$k]:-0} + $(ticks "$p") - ${t0[$p]:-0} ))
		count[$k]=$(( ${count[$k]:-0} + 1 ))
	done
	echo "== $1"
	printf '%-22s %9s %10s %14s\n' part processes "RSS (MB)" "CPU (% of 1 core)"
	for k in keel mgmt-apiserver mgmt-etcd mgmt-gc workload-apiservers workload-etcd; do
		[ -n "${count[$k]:-}" ] || continue
		printf '%-22s %9d %10d %14.1f\n' "$k" "${count[$k]}" $(( ${r[$k]} / 1024 )) "$(awk -v t="${cpu[$k]}" -v hz="$hz" -v w="$window" 'BEGIN { print t * 100 / (hz * w) }')"
	done
}

sample "0 clusters (idle ${window}s)"

h=(-H 'Content-Type: application/json')
curl -fs "${h[@]}" -X POST "$url/v1/clustertemplates" -d '{"name":"k8s","image_id":"ubuntu-2204-kube-v1.33.1","external_network_id":"public","coe":"kubernetes","flavor_id":"m1.medium","master_flavor_id":"m1.large","network_driver":"calico","labels":{"kube_tag":"v1.33.1"}}' >/dev/null
start=$(date +%s)
for i in $(seq "$n"); do
	curl -fs "${h[@]}" -X POST "$url/v1/clusters" -d "{\"name\":\"c$i\",\"cluster_template_id\":\"k8s\",\"master_count\":1,\"node_count\":1,\"create_timeout\":60}" >/dev/null
done
# Every cluster complete: its servers booted, its addons (CNI, cloud
# controller manager) delivered by Cluster API's ClusterResourceSets, its
# Nodes Ready.
for _ in $(seq 900); do
	up=0 failed=0
	for i in $(seq "$n"); do
		st=$(curl -fs "$url/v1/clusters/c$i" | grep -o '"status": *"[A-Z_]*"' || true)
		case $st in *CREATE_COMPLETE*) up=$((up + 1)) ;; *FAILED*) failed=$((failed + 1)) ;; esac
	done
	[ $((up + failed)) -ge "$n" ] && break
	sleep 2
done
echo "$up of $n clusters CREATE_COMPLETE ($failed failed) after $(( $(date +%s) - start )) s"
sleep "${SETTLE:-60}" # the last clusters' addons and rollouts settle
sample "$n clusters complete (idle ${window}s)"
