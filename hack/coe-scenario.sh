#!/usr/bin/env bash
# The `openstack coe` scenario: what an operator does with the real CLI
# (Debian's python3-openstackclient + python3-magnumclient) against a running
# keel. Usage: coe-scenario.sh http://127.0.0.1:9511 [WORKDIR]
# Every step checks what it got; the first failure stops the script (exit 1)
# and says which step and what came back.
set -euo pipefail
endpoint=${1:?usage: coe-scenario.sh ENDPOINT [WORKDIR]}
work=${2:-$(mktemp -d)}
mkdir -p "$work"
# python-magnumclient's `cluster config` reads os.environ['SHELL'] to choose
# between sh and csh syntax and dies with KeyError 'SHELL' when it is unset
# (as under CI runners and systemd units).
export SHELL="${SHELL:-/bin/sh}"

coe() { openstack --os-auth-type none --os-endpoint "$endpoint/v1" coe "$@"; }
step() { echo "== $*" >&2; }
# contains LINES WORD: whether a line equals WORD. (Not a pipe into grep:
# with pipefail, grep quitting early makes the CLI fail with SIGPIPE.)
contains() { grep -qx -- "$2" <<<"$1"; }
fail() { echo "coe-scenario: FAILED: $*" >&2; exit 1; }
field() { # field OBJECT-KIND NAME FIELD...
  local kind=$1 name=$2; shift 2
  local args=()
  for f in "$@"; do args+=(-c "$f"); done
  coe $kind show "$name" -f value "${args[@]}"
}
# api_status CLUSTER: the cluster's status straight from the API (the HTTP
# status code when it has none, e.g. 404). The waits poll with it: each
# `openstack` run costs a second or two of CPU, the CLI's own checks stay.
api_status() {
  curl -s "$endpoint/v1/clusters/$1" -w '\n%{http_code}' | python3 -c '
import json, sys
body, _, code = sys.stdin.read().rpartition("\n")
try:
    print(json.loads(body)["status"])
except Exception:
    print(code)'
}
wait_status() { # wait_status CLUSTER STATUS [TIMEOUT]
  local c=$1 want=$2 deadline=$((SECONDS + ${3:-300})) got=""
  while ((SECONDS < deadline)); do
    got=$(api_status "$c")
    if [[ $got == "$want" ]]; then
      got=$(field cluster "$c" status) # as the CLI shows it
      [[ $got == "$want" ]] && return 0
    fi
    [[ $got == *_FAILED ]] && fail "cluster $c is $got: $(field cluster "$c" status_reason)"
    sleep 1
  done
  fail "cluster $c is $got after ${3:-300}s, want $want"
}

step "cluster template create / list / show / update"
coe cluster template create scen-k8s --coe kubernetes --image ubuntu-2204 \
  --external-network public --flavor m1.medium --master-flavor m1.large \
  --network-driver calico --labels kube_tag=v1.33.4 -f value -c uuid >"$work/tmpl"
contains "$(coe cluster template list -f value -c name)" scen-k8s || fail "template not listed"
[[ $(coe cluster template show scen-k8s -f value -c network_driver) == calico ]] || fail "template network_driver"
coe cluster template update scen-k8s replace tags=scenario >/dev/null
[[ $(coe cluster template show scen-k8s -f value -c tags) == scenario ]] || fail "template update"
coe cluster template create scen-k8s-next --coe kubernetes --image ubuntu-2204 \
  --external-network public --flavor m1.medium --master-flavor m1.large \
  --network-driver calico --labels kube_tag=v1.34.1 >/dev/null

step "a refused request: the CLI's error names the label and what is allowed"
if out=$(coe cluster template create scen-bad --coe kubernetes --image ubuntu-2204 \
  --external-network public --flavor m1.medium --network-driver calico \
  --labels kube_tag=v1.33.4,calico_ipv4pool=not-a-cidr 2>&1); then
  fail "a template with calico_ipv4pool=not-a-cidr was accepted"
fi
[[ $out == *calico_ipv4pool* && $out == *not-a-cidr* && $out == *"HTTP 400"* ]] ||
  fail "the CLI's error does not name the label and its value: $out"
contains "$(coe cluster template list -f value -c name)" scen-bad && fail "the refused template was stored"

step "cluster create → CREATE_COMPLETE"
coe cluster create scen-a --cluster-template scen-k8s --master-count 1 --node-count 1 >/dev/null
contains "$(coe cluster list -f value -c name)" scen-a || fail "cluster not listed"
wait_status scen-a CREATE_COMPLETE
[[ $(field cluster scen-a api_address) == https://* ]] || fail "no api_address"
[[ $(field cluster scen-a coe_version) == v1.33.4 ]] || fail "coe_version"

step "cluster resize → UPDATE_COMPLETE with 2 nodes"
coe cluster resize scen-a 2 >/dev/null
wait_status scen-a UPDATE_COMPLETE
[[ $(field cluster scen-a node_count) == 2 ]] || fail "node_count after resize"

step "cluster update (node_count through PATCH)"
coe cluster update scen-a replace node_count=3 >/dev/null
wait_status scen-a UPDATE_COMPLETE
[[ $(field cluster scen-a node_count) == 3 ]] || fail "node_count after update"

step "nodegroup create / list / show / update / delete"
coe nodegroup create scen-a gpu --node-count 1 --flavor m1.large >/dev/null
contains "$(coe nodegroup list scen-a -f value -c name)" gpu || fail "nodegroup not listed"
[[ $(coe nodegroup show scen-a gpu -f value -c flavor_id) == m1.large ]] || fail "nodegroup flavor"
wait_status scen-a UPDATE_COMPLETE
coe nodegroup update scen-a gpu replace max_node_count=3 >/dev/null
[[ $(coe nodegroup show scen-a gpu -f value -c max_node_count) == 3 ]] || fail "nodegroup update"
coe nodegroup delete scen-a gpu >/dev/null

step "ca show / sign, cluster config"
coe ca show scen-a >"$work/ca.pem"
grep -q "BEGIN CERTIFICATE" "$work/ca.pem" || fail "ca show"
openssl req -new -newkey rsa:2048 -nodes -keyout "$work/client.key" -subj "/CN=scenario/O=system:masters" -out "$work/client.csr" 2>/dev/null
coe ca sign scen-a "$work/client.csr" >"$work/client.pem"
openssl verify -CAfile "$work/ca.pem" "$work/client.pem" >/dev/null || fail "signed certificate does not verify"
mkdir -p "$work/config"
coe cluster config scen-a --dir "$work/config" --force >/dev/null
grep -q "client-certificate-data" "$work/config/config" || fail "cluster config"

step "cluster upgrade to the next template"
coe cluster upgrade scen-a scen-k8s-next >/dev/null
wait_status scen-a UPDATE_COMPLETE 420
[[ $(field cluster scen-a coe_version) == v1.34.1 ]] || fail "coe_version after upgrade"

step "quotas, stats, service list"
project=$(field cluster scen-a project_id)
coe quotas create --project-id other-project --resource Cluster --hard-limit 5 >/dev/null
# magnumclient 4.0.0 prints quotas as a property table (no -f/-c).
quota_limit() { coe quotas show --project-id other-project --resource Cluster | awk -F'|' '$2 ~ /hard_limit/ {gsub(/ /, "", $3); print $3}'; }
[[ $(quota_limit) == 5 ]] || fail "quota show"
coe quotas update --project-id other-project --resource Cluster --hard-limit 7 >/dev/null
[[ $(quota_limit) == 7 ]] || fail "quota update"
[[ $(coe quotas list --all-tenants) == *other-project* ]] || fail "quota list"
coe quotas delete --project-id other-project --resource Cluster >/dev/null
[[ $(coe stats list "$project") == *clusters* ]] || fail "stats"
[[ $(coe service list) == *magnum-conductor* ]] || fail "service list"

step "cluster delete → gone"
coe cluster delete scen-a >/dev/null
deadline=$((SECONDS + 300))
while [[ $(api_status scen-a) != 404 ]]; do
  ((SECONDS < deadline)) || fail "cluster still there 300s after delete"
  sleep 1
done
coe cluster show scen-a >/dev/null 2>&1 && fail "the CLI still shows the deleted cluster"
coe cluster template delete scen-k8s >/dev/null
coe cluster template delete scen-k8s-next >/dev/null
echo "coe-scenario: all steps passed" >&2
