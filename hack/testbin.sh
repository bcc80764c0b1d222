#!/usr/bin/env bash
# Builds the kube-apiserver, kube-controller-manager (its garbage collector
# only) and etcd that keel's embedded management cluster and
# its integration tests run, from the Go modules pinned in hack/tools/go.mod,
# into a cache outside the clone so that every clone (and CI) reuses them.
# A no-op when the binaries are already there. With --gitea it also builds
# the Gitea server the review-mode tests run (hack/gitea.sh); `keel serve`
# never needs it, so `make run` does not build it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ ${1:-} == --gitea ]]; then
  bash "$here/gitea.sh" >/dev/null
fi
tools="$here/tools"
k8s=$(awk '$1=="k8s.io/kubernetes"{print $2; exit}' "$tools/go.mod")
etcd=$(awk '$1=="go.etcd.io/etcd/server/v3"{print $2; exit}' "$tools/go.mod")
dir="${KEEL_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/keel/testbin/k8s-${k8s#v}-etcd-${etcd#v}}"

# Each binary is built only when missing, so that a cache made before keel
# ran kube-controller-manager gains just that one.
bins=(etcd kube-apiserver kube-controller-manager)
declare -A pkgs=(
  [etcd]=go.etcd.io/etcd/server/v3
  [kube-apiserver]=k8s.io/kubernetes/cmd/kube-apiserver
  [kube-controller-manager]=k8s.io/kubernetes/cmd/kube-controller-manager
)
missing=()
for b in "${bins[@]}"; do
  [[ -x "$dir/$b" ]] || missing+=("$b")
done
if ((${#missing[@]} == 0)); then
  echo "$dir"
  exit 0
fi

mkdir -p "$dir"
tmp=$(mktemp -d "$dir/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Progress on stderr: a cold build takes minutes on a small machine.
build() { # name package
  local name=$1 pkg=$2 start=$SECONDS
  echo "keel: building $name from $pkg (first run only; this takes a few minutes)..." >&2
  (cd "$tools" && CGO_ENABLED=0 go build -trimpath -o "$tmp/$name" "$pkg") &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 15
    kill -0 "$pid" 2>/dev/null && echo "keel:   ... $name still building ($((SECONDS - start))s)" >&2
  done
  wait "$pid"
  echo "keel: built $name in $((SECONDS - start))s" >&2
}

for b in "${missing[@]}"; do
  build "$b" "${pkgs[$b]}"
done
# Move into place only when all are complete, so that an interrupted build is
# never mistaken for a finished one.
for b in "${missing[@]}"; do
  mv "$tmp/$b" "$dir/"
done
echo "$dir"
