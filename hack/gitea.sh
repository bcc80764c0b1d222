#!/usr/bin/env bash
# Builds the Gitea server that the review-mode tests run on loopback (SQLite,
# API only), from the Gitea module the Go module proxy serves, into the same
# cache as kube-apiserver and etcd. A no-op when the binary is already there.
#
# `go install` refuses Gitea (its go.mod has replace directives), so the
# module is downloaded and built in a copy of its folder, where its own go.mod
# and replaces apply. Tags: SQLite only; no bindata (the API needs no web assets).
set -euo pipefail

version=v1.27.3
bin="${KEEL_TESTBIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/keel/testbin}/gitea-$version"

if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

mkdir -p "$(dirname "$bin")"
src=$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "code.gitea.io/gitea@$version" | awk -F'"' '$2=="Dir"{print $4}')
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
cp -r "$src/." "$tmp/"
chmod -R u+w "$tmp"

start=$SECONDS
echo "keel: building gitea $version (first run only; this takes several minutes)..." >&2
(cd "$tmp" && CGO_ENABLED=1 GOTOOLCHAIN=local go build -trimpath -tags 'sqlite sqlite_unlock_notify' \
  -ldflags "-s -w -X main.Version=${version#v}" -o "$tmp/gitea.bin" .) &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  sleep 15
  kill -0 "$pid" 2>/dev/null && echo "keel:   ... gitea still building ($((SECONDS - start))s)" >&2
done
wait "$pid"
echo "keel: built gitea in $((SECONDS - start))s" >&2
# Move into place only when complete, so an interrupted build is never
# mistaken for a finished one.
mv "$tmp/gitea.bin" "$bin"
echo "$bin"
