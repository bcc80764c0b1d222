#!/usr/bin/env bash
# Installs the pinned golangci-lint into $(go env GOPATH)/bin when it is
# missing or another version, and prints its path. Used by `make lint` and
# hack/test-deps.sh. The first install builds it from the Go module proxy
# (a few minutes); afterwards this is a no-op.
set -euo pipefail
version=v2.15.0
bin=$(go env GOPATH)/bin/golangci-lint
# (go version -m reads the build info, whatever the binary prints.)
if ! go version -m "$bin" 2>/dev/null | grep -E "golangci-lint/v2[[:space:]]+$version\b" >/dev/null; then
  echo "keel: installing golangci-lint $version" >&2
  go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$version"
fi
echo "$bin"
