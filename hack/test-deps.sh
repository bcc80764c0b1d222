#!/usr/bin/env bash
# Installs what keel's tests need besides Go, when it is missing: git, the
# cue CLI (at the library's version, from the Go module proxy) and Debian's
# PostgreSQL server binaries (the tests start their own throwaway server).
set -euo pipefail
cue_version=${1:?usage: test-deps.sh CUE_VERSION}

missing=()
command -v git >/dev/null || missing+=(git)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
if ((${#missing[@]})); then
  echo "keel: installing ${missing[*]} (Debian packages)" >&2
  sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

gobin=$(go env GOPATH)/bin
if ! "$gobin/cue" version 2>/dev/null | grep -q "$cue_version"; then
  echo "keel: installing cue $cue_version" >&2
  go install "cuelang.org/go/cmd/cue@$cue_version"
fi
