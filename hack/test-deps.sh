#!/usr/bin/env bash
# Installs what keel's tests need besides Go, when it is missing: git, the
# cue CLI (at the library's version, from the Go module proxy) and Debian's
# PostgreSQL server binaries (the tests start their own throwaway server),
# and the conformance suites' OpenStack tools (cmd/keel/conformance,
# docs/conformance.md): tempest with magnum-tempest-plugin, and Keystone
# (python3-keystone, without the keystone package, whose maintainer scripts
# configure a system Keystone under /etc) served by uwsgi.
# golangci-lint is not a test dependency: `make lint` installs it itself.
set -euo pipefail
cue_version=${1:?usage: test-deps.sh CUE_VERSION}

missing=()
command -v git >/dev/null || missing+=(git)
command -v curl >/dev/null || missing+=(curl) # hack/coe-scenario.sh's waits
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
dpkg -s python3-openstackclient >/dev/null 2>&1 || missing+=(python3-openstackclient)
dpkg -s python3-magnumclient >/dev/null 2>&1 || missing+=(python3-magnumclient)
# keel import's tests (magnumimport): Magnum's own schema, made by
# magnum-db-manage (python3-magnum, with the MySQL and PostgreSQL drivers it
# connects through), in a throwaway MariaDB the tests start themselves.
for p in tempest magnum-tempest-plugin python3-keystone uwsgi uwsgi-plugin-python3 \
  python3-magnum python3-pymysql python3-psycopg2 mariadb-server; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# keel import's CAs in Barbican (magnumimport): a real Barbican and
# Keystone the tests serve themselves under uwsgi (internal/testing/
# barbicantest) with their own ports, databases and configuration; the
# package's own service (port 9311, /etc/barbican), if its maintainer
# scripts start it, is not used.
dpkg -s barbican-api >/dev/null 2>&1 || missing+=(barbican-api)
# The notification tests (docs/notifications.md): a throwaway RabbitMQ
# they start themselves, and a consumer written with oslo.messaging, as
# Ceilometer's notification agent is.
for p in rabbitmq-server python3-oslo.messaging; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "keel: installing ${missing[*]} (Debian packages)" >&2
  sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
  # Another apt may hold the lock (unattended upgrades, a parallel job).
  $sudo apt-get -o DPkg::Lock::Timeout=900 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${missing[@]}" >/dev/null
fi

gobin=$(go env GOPATH)/bin
if ! go version -m "$gobin/cue" 2>/dev/null | grep "cuelang.org/go.*$cue_version" >/dev/null; then
  echo "keel: installing cue $cue_version" >&2
  go install "cuelang.org/go/cmd/cue@$cue_version"
fi
# The sops CLI proves keel's SOPS files are what sops (and Flux) read.
sops_version=v3.13.3
# (go version -m reads the build info; `sops --version` would call GitHub.)
if ! go version -m "$gobin/sops" 2>/dev/null | grep "getsops/sops/v3.*$sops_version" >/dev/null; then
  echo "keel: installing sops $sops_version (a few minutes the first time)" >&2
  go install "github.com/getsops/sops/v3/cmd/sops@$sops_version"
fi

# A PostgreSQL server for the read-model tests: Debian's default cluster,
# started if it is not running, with a keel role and a keel_test database.
if [[ ${KEEL_SKIP_POSTGRES:-} != 1 ]]; then
  sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
  ver=$(ls /usr/lib/postgresql | sort -V | tail -1)
  if ! pg_lsclusters -h 2>/dev/null | awk '{print $1" "$2}' | grep "^$ver main$" >/dev/null; then
    $sudo pg_createcluster "$ver" main >/dev/null
  fi
  if ! pg_lsclusters -h | awk -v v="$ver" '$1==v && $2=="main"{print $4}' | grep online >/dev/null; then
    $sudo pg_ctlcluster "$ver" main start
  fi
  aspg="sudo -u postgres"; [[ $(id -u) -eq 0 ]] && aspg="runuser -u postgres --"
  $aspg psql -qtAc "SELECT 1 FROM pg_roles WHERE rolname='keel'" | grep -q 1 ||
    $aspg psql -qc "CREATE ROLE keel LOGIN PASSWORD 'keel' CREATEDB"
  $aspg psql -qtAc "SELECT 1 FROM pg_database WHERE datname='keel_test'" | grep -q 1 ||
    $aspg psql -qc "CREATE DATABASE keel_test OWNER keel"
fi
