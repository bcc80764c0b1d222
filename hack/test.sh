#!/usr/bin/env bash
# The test suite as `make test` runs it: two `go test` runs side by side.
#
# The real-OpenStack world (TestRealOpenStack…, TestSimulatedCAPOMatchesReal…;
# docs/simulator.md) waits on OpenStack and the real CAPO far more than it
# computes, and its longest test (the cluster lifecycle, about 18 minutes)
# would otherwise start only after cmd/keel/server's serial tests, since
# `go test` holds a package's parallel tests until its serial ones end. So it
# runs from the start as a run of its own, and the other run skips it. The
# other run lists the longest packages first so that they start first.
#
# Usage: hack/test.sh [go test flags...]   (make test GOTESTFLAGS=...)
# Exit status: non-zero when either run fails. The real-OpenStack run's
# output is printed after the other's, whole.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

real='^(TestRealOpenStack|TestSimulatedCAPOMatchesReal)'
# The packages that hold such tests, found rather than listed, so that a new
# one is never skipped by both runs.
mapfile -t real_pkgs < <(git grep -lE '^func (TestRealOpenStack|TestSimulatedCAPOMatchesReal)' -- '*_test.go' |
  xargs -n1 dirname | sort -u | sed 's#^#./#')
first_pkgs=(./cmd/keel/server ./cmd/keel ./restapi ./cmd/keel/conformance)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/real-openstack.out
# Their test binaries are built once, first: both runs need them, and side
# by side they would each compile them.
"${GO:-go}" test -c -o "$tmp" "${real_pkgs[@]}" || exit 1
"${GO:-go}" test -count=1 -timeout 60m "$@" -run "$real" "${real_pkgs[@]}" >"$out" 2>&1 &
real_pid=$!
"${GO:-go}" test -count=1 -timeout 60m "$@" -skip "$real" "${first_pkgs[@]}" ./...
rest=$?
wait "$real_pid"
realrc=$?
echo "== the real-OpenStack world (go test -run '$real' ${real_pkgs[*]})"
cat "$out"
if ((rest != 0 || realrc != 0)); then
  echo "make test: FAILED (the rest: exit $rest; the real-OpenStack world: exit $realrc)" >&2
  exit 1
fi
