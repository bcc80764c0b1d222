#!/usr/bin/env bash
# Crash consistency, measured: keel serve (embedded default, --cluster-api
# simulated) killed with SIGKILL five times during 50 concurrent writers;
# after each restart every acknowledged write is in Git and in the API,
# nothing in flight is half-applied, the repository passes git fsck and
# keel compile --check, and the read model equals Git HEAD. Prints the
# figures of each run (cmd/keel/crash_consistency_test.go).
set -euo pipefail
cd "$(dirname "$0")/.."
bash hack/testbin.sh >/dev/null
go test -tags crash -count=1 -timeout 30m -run '^TestCrashConsistency$' -v ./cmd/keel | grep -E '^(=== RUN|--- |    crash_consistency_test.go|PASS|FAIL|ok)' 
