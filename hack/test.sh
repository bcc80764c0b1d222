#!/usr/bin/env bash
# make test's `go test`: every package, with cmd/keel/server's end-to-end
# tests against the real OpenStack in a second test binary beside the rest.
#
# Why two: those tests (TestRealOpenStack…, TestSimulatedCAPOMatchesReal…)
# are t.Parallel, and Go starts a package's parallel tests only after its
# serial ones have all finished, so in one binary they waited ~27 minutes
# behind the serial end-to-end tests and then ran ~18 minutes more, the
# CI's critical path. They wait on OpenStack and CAPO far more than they
# compute, so started at once beside the rest they finish within it.
#
# The environment (KEEL_REQUIRE_*, KEEL_OPENSTACK_ENV, …) comes from make.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
go=${GO:-go}

# The tests' exact names: a pattern would also match internal/openstack's
# and restapi's TestRealOpenStack… tests, which stay in the main run.
names=$(grep -ho '^func Test\(RealOpenStack\|SimulatedCAPO\)[A-Za-z0-9_]*' cmd/keel/server/*_test.go | sed 's/^func //' | paste -sd'|')
[[ -n $names ]] || { echo "hack/test.sh: no real-OpenStack tests found in cmd/keel/server" >&2; exit 1; }
beside="^($names)\$"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$go" test -count=1 -timeout 60m -run "$beside" ./cmd/keel/server >"$log" 2>&1 &
pid=$!
"$go" test -count=1 -timeout 60m -skip "$beside" ./...
main=$?
wait "$pid"
real=$?
echo "== cmd/keel/server, the real-OpenStack end-to-end tests ($beside)"
cat "$log"
((main == 0 && real == 0))
