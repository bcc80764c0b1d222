#!/usr/bin/env bash
# Builds the real Cluster API Provider OpenStack controller manager (CAPO)
# and the openstack-resource-controller manager (ORC) that the real-OpenStack
# tests run as host processes (mgmtcluster/capo), from the Go modules pinned
# in hack/capo/go.mod and hack/orc/go.mod, into the same cache as
# kube-apiserver and etcd (one file per version, so a version bump rebuilds).
# A no-op when both are there. Prints the two paths, CAPO's first.
#
# Each has its own module: CAPO v0.14 pins Cluster API v1.12 and
# controller-runtime v0.22, keel builds against Cluster API v1.14; ORC is
# kept apart from CAPO so that each binary has exactly its own pins.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir="${KEEL_TESTBIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/keel/testbin}"
# The version that follows a module's path in a go.mod (a require line or block).
version() { awk -v m="$1" '{ for (i = 1; i < NF; i++) if ($i == m) { print $(i + 1); exit } }' "$2"; }
capo=$(version sigs.k8s.io/cluster-api-provider-openstack "$here/capo/go.mod")
orc=$(version github.com/k-orc/openstack-resource-controller/v2 "$here/orc/go.mod")
[[ -n $capo && -n $orc ]] || { echo "keel: cannot read the CAPO or ORC version from hack/capo/go.mod, hack/orc/go.mod" >&2; exit 1; }

declare -A mods=([capo-$capo]=capo [orc-$orc]=orc)
declare -A pkgs=(
  [capo-$capo]=sigs.k8s.io/cluster-api-provider-openstack
  [orc-$orc]=github.com/k-orc/openstack-resource-controller/v2/cmd/manager
)

build() { # name
  local name=$1 start=$SECONDS
  [[ -x "$dir/$name" ]] && return 0
  mkdir -p "$dir"
  local tmp
  tmp=$(mktemp "$dir/.$name.XXXXXX")
  echo "keel: building $name from ${pkgs[$name]} (first run only; this takes several minutes)..." >&2
  (cd "$here/${mods[$name]}" && CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath -o "$tmp" "${pkgs[$name]}") &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 15
    kill -0 "$pid" 2>/dev/null && echo "keel:   ... $name still building ($((SECONDS - start))s)" >&2
  done
  if ! wait "$pid"; then
    rm -f "$tmp"
    return 1
  fi
  echo "keel: built $name in $((SECONDS - start))s" >&2
  # Moved into place only when complete, so that an interrupted build is
  # never mistaken for a finished one.
  mv "$tmp" "$dir/$name"
}

build "capo-$capo"
build "orc-$orc"
echo "$dir/capo-$capo"
echo "$dir/orc-$orc"
