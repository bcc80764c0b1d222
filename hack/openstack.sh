#!/usr/bin/env bash
# keel's test cloud: the OpenStack Zed control plane from Debian bookworm's
# packages, on 127.0.0.1, with only the hypervisor faked (docs/openstack.md):
# Keystone, Placement, Glance, Nova (fake driver), Neutron (ML2, no agents),
# Octavia (no-op amphorae), Cinder (fake backend), with a private PostgreSQL
# and RabbitMQ. Nothing is written to /etc and no system service is started.
#
#   hack/openstack.sh up            install what is missing, start what is not
#                                   running, seed; print the env file's path
#   hack/openstack.sh env           print the env file's path (fails when down)
#   hack/openstack.sh status        each service's state and the memory used
#   hack/openstack.sh down [--purge] stop (by pid file and process group);
#                                   --purge also deletes the state
#
# State (databases, images, logs, pid files) lives in $KEEL_OPENSTACK_DIR
# (default: the folder of $KEEL_OPENSTACK_ENV when set, else
# /tmp/keel-openstack). The env file ($KEEL_OPENSTACK_DIR/env) holds
# the admin credentials and the seeded names as KEY=VALUE lines; Go tests
# find it through KEEL_OPENSTACK_ENV (internal/testenv/realopenstack). The
# ports are fixed (below 32768, so no test's ephemeral port takes them): one
# stack per machine.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The state directory: KEEL_OPENSTACK_DIR, else the one of the env file
# KEEL_OPENSTACK_ENV names (the stack tests are pointed at), else the default.
S=${KEEL_OPENSTACK_DIR:-${KEEL_OPENSTACK_ENV:+$(dirname "$KEEL_OPENSTACK_ENV")}}
S=${S:-/tmp/keel-openstack}
H=127.0.0.1
P_KEYSTONE=15000 P_NOVA=18774 P_PLACEMENT=18778 P_GLANCE=19292
P_NEUTRON=19696 P_OCTAVIA=19876 P_CINDER=18776
P_PG=15432 P_RABBIT=15699 P_RABBIT_DIST=25699 P_EPMD=14369
# Every service user and admin share one password: the cloud lives on
# loopback for the length of a test run and holds nothing.
PW=keel-openstack-test
KS=http://$H:$P_KEYSTONE
TRANSPORT="rabbit://guest:guest@$H:$P_RABBIT/"
# The external network's floating IPs are on loopback (all of 127.0.0.0/8
# is local on Linux), so a simulated workload API server can listen on the
# floating IP CAPO gives the control plane: see docs/openstack.md.
FIP_CIDR=${KEEL_OPENSTACK_FIP_CIDR:-127.77.0.0/24}
PY=/usr/bin/python3 # Debian's, whose dist-packages hold OpenStack (not pyenv's)
SERVICES="rabbitmq keystone placement glance neutron nova-api nova-conductor nova-scheduler
 nova-compute nova-compute-2 octavia-api octavia-worker cinder-api cinder-scheduler cinder-volume"
PACKAGES="python3-keystone python3-nova python3-neutron python3-glance python3-placement
 python3-octavia python3-cinder python3-openstackclient python3-octaviaclient python3-psycopg2
 uwsgi-core uwsgi-plugin-python3 rabbitmq-server erlang-base postgresql curl openssl"

log() { echo "[openstack $(date +%T)] $*" >&2; }
die() { log "$*"; exit 1; }
now() { date +%s; }
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

running() { [[ -f $S/run/$1.pid ]] && kill -0 "$(cat "$S/run/$1.pid")" 2>/dev/null; }

# start NAME CMD...: in its own session (process group == pid), so that down
# stops it and every worker it forked; with a clean environment (the
# services' subprocesses must find Debian's python3, not another on PATH).
start() {
  local n=$1; shift
  running "$n" && return
  setsid env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$S/home" LANG=C.UTF-8 \
    PYTHONPATH="$S/pylib" "$@" >>"$S/log/$n.out" 2>&1 </dev/null &
  echo $! >"$S/run/$n.pid"
}

# wait_http URL NAME [SECONDS]: until URL answers; fails early when NAME died.
wait_http() {
  local deadline=$(($(now) + ${3:-300}))
  until curl -s -o /dev/null --max-time 5 "$1"; do
    running "$2" || { tail -n 30 "$S/log/$2.out" "$S/log/$2.log" >&2 2>/dev/null || true; die "$2 died"; }
    (($(now) < deadline)) || die "$2 did not answer at $1 in ${3:-300}s (logs in $S/log)"
    sleep 1
  done
}

# ---------------------------------------------------------------- packages
install_packages() {
  local missing=() p
  for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  log "apt-get install ${missing[*]}"
  # Only python3-* libraries are installed, not the service packages (nova-
  # api, ...), whose maintainer scripts configure and start system services;
  # rabbitmq-server's and postgresql's would start theirs: a policy-rc.d
  # that answers 101 (action forbidden) stops invoke-rc.d from doing so.
  local prc=/usr/sbin/policy-rc.d made=0
  if [[ ! -e $prc ]]; then
    printf '#!/bin/sh\nexit 101\n' | as_root tee "$prc" >/dev/null && as_root chmod 755 "$prc" && made=1
  fi
  local ok=0 i
  for i in 1 2 3 4 5 6; do # another apt may hold the lists' lock
    as_root apt-get update -qq >/dev/null 2>&1 && break
    sleep 10
  done
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends \
    -o DPkg::Lock::Timeout=900 "${missing[@]}" >"$S/log/apt.log" 2>&1 && ok=1
  ((made)) && as_root rm -f "$prc"
  ((ok)) || { tail -n 20 "$S/log/apt.log" >&2; die "apt-get install failed"; }
}

# The paste pipelines and Cinder's filter file ship in nova-common,
# neutron-common, glance-common and cinder-common, whose maintainer scripts
# we do not want: their .debs are downloaded and only those files taken.
paste_files() {
  [[ -f $S/etc/cinder/resource_filters.json ]] && return
  rm -rf "$S/debs" && mkdir -p "$S/debs/x" "$S"/etc/{nova,neutron,glance,cinder}
  (cd "$S/debs" && apt-get download -q nova-common neutron-common glance-common cinder-common >"$S/log/apt-download.log" 2>&1) ||
    die "apt-get download of the *-common packages failed: $S/log/apt-download.log"
  local d
  for d in "$S"/debs/*.deb; do dpkg-deb -x "$d" "$S/debs/x"; done
  cp "$S/debs/x/usr/share/nova-common/api-paste.ini" "$S/etc/nova/"
  cp "$S/debs/x/usr/share/neutron-common/api-paste.ini" "$S/etc/neutron/"
  cp "$S/debs/x/usr/share/glance-common/glance-api-paste.ini" "$S/etc/glance/"
  cp "$S/debs/x/usr/share/cinder-common/api-paste.ini" "$S/etc/cinder/"
  cp "$S/debs/x/etc/cinder/resource_filters.json" "$S/etc/cinder/"
}

# The service packages' console scripts (nova-api, ...) are not installed:
# tiny wrappers call the same entry points from the python3-* libraries.
wrappers() {
  local pair
  for pair in nova-manage:nova.cmd.manage nova-api:nova.cmd.api nova-conductor:nova.cmd.conductor \
    nova-scheduler:nova.cmd.scheduler nova-compute:nova.cmd.compute \
    neutron-db-manage:neutron.db.migration.cli neutron-server:neutron.cmd.eventlet.server \
    glance-manage:glance.cmd.manage glance-api:glance.cmd.api \
    cinder-manage:cinder.cmd.manage cinder-api:cinder.cmd.api \
    cinder-scheduler:cinder.cmd.scheduler cinder-volume:cinder.cmd.volume; do
    printf '#!%s\nimport sys\nfrom %s import main\nsys.exit(main())\n' "$PY" "${pair#*:}" >"$S/bin/${pair%%:*}"
    chmod +x "$S/bin/${pair%%:*}"
  done
}

# The Python stand-ins for hardware (hack/openstack/*.py), copied so that
# the running stack does not depend on the worktree, with one dist-info
# whose entry points make Neutron and Octavia find their drivers by name.
pylib() {
  cp "$HERE"/openstack/*.py "$S/pylib/"
  local di=$S/pylib/keel_openstack_testcloud-1.dist-info
  mkdir -p "$di"
  printf 'Metadata-Version: 2.1\nName: keel-openstack-testcloud\nVersion: 1\n' >"$di/METADATA"
  cat >"$di/entry_points.txt" <<EOF
[neutron.ml2.mechanism_drivers]
keel_always_bind = keel_always_bind:AlwaysBindMechanismDriver

[octavia.network.drivers]
keel_real_vip = keel_octavia_vip:RealVipNetworkDriver
EOF
}

# ---------------------------------------------------------------- PostgreSQL
pgbin() { ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1; }
aspg() { if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
psqlc() { psql -h "$S/pgsock" -p "$P_PG" -U postgres -qAt "$@"; }
db() { echo "postgresql+psycopg2://keel:keel@$H:$P_PG/$1"; }

postgres_up() {
  local bin; bin=$(pgbin)
  mkdir -p "$S/pg" "$S/pgsock"
  [[ $(id -u) -eq 0 ]] && chown postgres: "$S/pg" "$S/pgsock"
  if [[ ! -f $S/pg/PG_VERSION ]]; then
    aspg "$bin/initdb" -D "$S/pg" -A trust -U postgres >"$S/log/initdb.log" 2>&1 || die "initdb failed: $S/log/initdb.log"
  fi
  if ! aspg "$bin/pg_ctl" -D "$S/pg" status >/dev/null 2>&1; then
    # Durability is worth nothing for a cloud that lives one test run.
    aspg "$bin/pg_ctl" -D "$S/pg" -l "$S/pg/server.log" -w -t 120 start -o \
      "-p $P_PG -k $S/pgsock -c listen_addresses=$H -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400 -c shared_buffers=32MB" \
      >/dev/null || die "PostgreSQL did not start: $S/pg/server.log"
  fi
  psqlc -c "select 1 from pg_roles where rolname='keel'" | grep -q 1 ||
    psqlc -c "create role keel login password 'keel' superuser"
  local d
  for d in keystone placement glance nova_api nova_cell0 nova neutron octavia cinder; do
    psqlc -c "select 1 from pg_database where datname='$d'" | grep -q 1 || psqlc -c "create database $d owner keel"
  done
}

postgres_down() {
  [[ -f $S/pg/PG_VERSION ]] || return 0
  aspg "$(pgbin)/pg_ctl" -D "$S/pg" -m fast -w stop >/dev/null 2>&1 || true
}

# ---------------------------------------------------------------- RabbitMQ
rabbit_up() {
  mkdir -p "$S/rabbit"
  echo '[].' >"$S/rabbit/enabled_plugins"
  printf 'loopback_users = none\nlog.file.level = warning\n' >"$S/rabbit/rabbitmq.conf"
  # epmd in its own session, on a private port: erl would otherwise start
  # one that outlives the stack, detached from every process group.
  start epmd "$(command -v epmd || ls /usr/lib/erlang/erts-*/bin/epmd | head -n 1)" -port "$P_EPMD" -address "$H"
  # One scheduler thread: the broker idles on a shared 2-core machine.
  start rabbitmq env RABBITMQ_NODENAME=keel@localhost RABBITMQ_NODE_IP_ADDRESS=$H \
    RABBITMQ_NODE_PORT=$P_RABBIT RABBITMQ_DIST_PORT=$P_RABBIT_DIST ERL_EPMD_PORT=$P_EPMD \
    RABBITMQ_MNESIA_BASE="$S/rabbit/mnesia" RABBITMQ_LOG_BASE="$S/rabbit/log" \
    RABBITMQ_ENABLED_PLUGINS_FILE="$S/rabbit/enabled_plugins" RABBITMQ_CONFIG_FILE="$S/rabbit/rabbitmq" \
    RABBITMQ_PID_FILE="$S/rabbit/rabbit.pid" HOME="$S/rabbit" \
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="+S 1:1 +A 2 +sbwt none +sbwtdcpu none +sbwtdio none" \
    /usr/lib/rabbitmq/bin/rabbitmq-server
}

rabbit_wait() {
  local deadline=$(($(now) + 180))
  until (exec 3<>"/dev/tcp/$H/$P_RABBIT") 2>/dev/null; do
    running rabbitmq || { tail -n 30 "$S/log/rabbitmq.out" >&2; die "rabbitmq died"; }
    (($(now) < deadline)) || die "rabbitmq not listening on $P_RABBIT in 180s"
    sleep 1
  done
}

# ---------------------------------------------------------------- config
svcauth() { # SECTION USER: a service's credentials for calling another
  cat <<EOF
[$1]
auth_type = password
auth_url = $KS/v3
project_domain_name = Default
user_domain_name = Default
project_name = service
username = $2
password = $PW
region_name = RegionOne
EOF
}

authtoken() { # USER: how a service validates the tokens it is given
  svcauth keystone_authtoken "$1"
  echo "www_authenticate_uri = $KS/v3"
}

uwsgi_app() { # NAME PORT WSGI-FILE CONFIG-ENV [THREADS]
  # Connection: close, or clients reuse connections uwsgi has closed.
  start "$1" /usr/bin/uwsgi-core --plugin python3 --http-socket "$H:$2" --wsgi-file "$3" --env "$4" \
    --master --die-on-term --processes 1 --threads "${5:-4}" --enable-threads --lazy-apps \
    --buffer-size 65535 --need-app --no-orphans --add-header "Connection: close"
}

keystone_conf() {
  mkdir -p "$S/etc/keystone" "$S/keystone/fernet" "$S/keystone/credential"
  chmod 700 "$S/keystone/fernet" "$S/keystone/credential"
  # bcrypt with 4 rounds: tests create a user each, and the default 12
  # rounds cost a quarter of a second of CPU per password check. The cache
  # (without it Keystone is too slow on a loaded machine: validations time
  # out) is in-process and pickled: dogpile.cache.memory hands out the cached
  # objects themselves, and under concurrent tests a token came back with
  # another user's role (admin), so creating its application credential
  # failed; memory_pickle copies, as a real cloud's memcached does.
  cat >"$S/etc/keystone/keystone.conf" <<EOF
[DEFAULT]
log_file = $S/log/keystone.log
[database]
connection = $(db keystone)
[token]
provider = fernet
[fernet_tokens]
key_repository = $S/keystone/fernet
[fernet_receipts]
key_repository = $S/keystone/fernet
[credential]
key_repository = $S/keystone/credential
[identity]
password_hash_algorithm = bcrypt
password_hash_rounds = 4
[cache]
enabled = true
backend = dogpile.cache.memory_pickle
EOF
}

keystone_up() {
  keystone_conf
  local km=(keystone-manage --config-file "$S/etc/keystone/keystone.conf")
  if [[ ! -f $S/keystone/.bootstrapped ]]; then
    log "keystone: db_sync, bootstrap"
    { "${km[@]}" db_sync &&
      "${km[@]}" fernet_setup --keystone-user "$(id -un)" --keystone-group "$(id -gn)" &&
      "${km[@]}" credential_setup --keystone-user "$(id -un)" --keystone-group "$(id -gn)" &&
      "${km[@]}" bootstrap --bootstrap-password "$PW" --bootstrap-region-id RegionOne \
        --bootstrap-admin-url "$KS/v3" --bootstrap-internal-url "$KS/v3" --bootstrap-public-url "$KS/v3"
    } >>"$S/log/keystone-manage.log" 2>&1 || die "keystone-manage failed: $S/log/keystone-manage.log"
    touch "$S/keystone/.bootstrapped"
  fi
  # One thread: Keystone's threads race. Seen here: oslo.policy's first
  # load of the rules failing with "dictionary changed size during
  # iteration", and an application credential refused because the effective
  # role assignments listed for its owner lacked the member role the same
  # owner's token carried. Requests are CPU-bound under the GIL anyway.
  uwsgi_app keystone "$P_KEYSTONE" /usr/bin/keystone-wsgi-public "OS_KEYSTONE_CONFIG_DIR=$S/etc/keystone" 1
}

# A phase is seeded once per version of seed.py: a state folder kept from
# an older version gets what the new one adds (the seed is idempotent).
seed_mark() { echo "$S/.seed-$1-$(sha1sum "$HERE/openstack/seed.py" | cut -c1-12)"; }
seeded() { [[ -f $(seed_mark "$1") ]]; }
mark_seeded() { touch "$(seed_mark "$1")"; }

seed() { # PHASE: hack/openstack/seed.py with the stack's settings
  env -i PATH=/usr/bin:/bin HOME="$S/home" LANG=C.UTF-8 \
    KEEL_OS_AUTH_URL="$KS/v3" KEEL_OS_PASSWORD="$PW" KEEL_OS_HOST="$H" KEEL_OS_STATE="$S" \
    KEEL_OS_SERVICE_USER=keel KEEL_OS_TEST_DOMAIN=keel-test KEEL_OS_EXTERNAL_NETWORK=public \
    KEEL_OS_FIP_CIDR="$FIP_CIDR" KEEL_OS_IMAGE=ubuntu-2204-kube \
    KEEL_OS_P_NOVA=$P_NOVA KEEL_OS_P_PLACEMENT=$P_PLACEMENT KEEL_OS_P_GLANCE=$P_GLANCE \
    KEEL_OS_P_NEUTRON=$P_NEUTRON KEEL_OS_P_OCTAVIA=$P_OCTAVIA KEEL_OS_P_CINDER=$P_CINDER \
    "$PY" "$HERE/openstack/seed.py" "$1" >>"$S/log/seed.log" 2>&1 || { tail -n 20 "$S/log/seed.log" >&2; die "seeding ($1) failed"; }
}

once() { # MARKER CMD...: run a database set-up once per state
  [[ -f $S/$1 ]] && return
  "${@:2}" >>"$S/log/${1#.}.log" 2>&1 || die "$* failed: $S/log/${1#.}.log"
  touch "$S/$1"
}

placement_up() {
  mkdir -p "$S/etc/placement"
  cat >"$S/etc/placement/placement.conf" <<EOF
[DEFAULT]
log_file = $S/log/placement.log
[placement_database]
connection = $(db placement)
[api]
auth_strategy = keystone
$(authtoken placement)
EOF
  once .placement-db placement-manage --config-file "$S/etc/placement/placement.conf" db sync
  uwsgi_app placement "$P_PLACEMENT" /usr/bin/placement-api "OS_PLACEMENT_CONFIG_DIR=$S/etc/placement"
}

glance_up() {
  mkdir -p "$S/glance/images" "$S/glance/staging" "$S/glance/tasks"
  cat >"$S/etc/glance/glance-api.conf" <<EOF
[DEFAULT]
bind_host = $H
bind_port = $P_GLANCE
workers = 1
log_file = $S/log/glance.log
enabled_backends = fs:file
[glance_store]
default_backend = fs
[fs]
filesystem_store_datadir = $S/glance/images
[os_glance_staging_store]
filesystem_store_datadir = $S/glance/staging
[os_glance_tasks_store]
filesystem_store_datadir = $S/glance/tasks
[database]
connection = $(db glance)
[paste_deploy]
flavor = keystone
config_file = $S/etc/glance/glance-api-paste.ini
$(authtoken glance)
EOF
  once .glance-db "$S/bin/glance-manage" --config-file "$S/etc/glance/glance-api.conf" db_sync
  start glance "$S/bin/glance-api" --config-file "$S/etc/glance/glance-api.conf"
}

neutron_up() {
  mkdir -p "$S/neutron/lock"
  # keel_always_bind binds ports with no agent; openvswitch stays listed
  # because the trunk plugin refuses to load without it. The L3 plugin is
  # the agentless subclass (floating IP status); no DHCP agent to notify.
  cat >"$S/etc/neutron/neutron.conf" <<EOF
[DEFAULT]
bind_host = $H
bind_port = $P_NEUTRON
core_plugin = ml2
service_plugins = keel_agentless_l3.AgentlessL3RouterPlugin,trunk,segments
allow_overlapping_ips = true
auth_strategy = keystone
api_paste_config = $S/etc/neutron/api-paste.ini
state_path = $S/neutron
api_workers = 1
rpc_workers = 1
rpc_state_report_workers = 0
transport_url = $TRANSPORT
notify_nova_on_port_status_changes = true
notify_nova_on_port_data_changes = true
dhcp_agent_notification = false
log_file = $S/log/neutron.log
[database]
connection = $(db neutron)
[oslo_concurrency]
lock_path = $S/neutron/lock
$(authtoken neutron)
$(svcauth nova neutron)
[quotas]
quota_network = -1
quota_subnet = -1
quota_port = -1
quota_router = -1
quota_floatingip = -1
quota_security_group = -1
quota_security_group_rule = -1
[ml2]
type_drivers = flat,vlan,vxlan
tenant_network_types = vxlan
mechanism_drivers = keel_always_bind,openvswitch
extension_drivers = port_security,dns
[ml2_type_flat]
flat_networks = *
[ml2_type_vlan]
network_vlan_ranges = public
[ml2_type_vxlan]
vni_ranges = 1:10000
EOF
  once .neutron-db "$S/bin/neutron-db-manage" --config-file "$S/etc/neutron/neutron.conf" upgrade heads
  start neutron "$S/bin/neutron-server" --config-file "$S/etc/neutron/neutron.conf"
}

nova_conf() {
  mkdir -p "$S/nova/instances" "$S/nova/lock"
  cat >"$S/etc/nova/nova.conf" <<EOF
[DEFAULT]
host = keel-compute-1
my_ip = $H
state_path = $S/nova
instances_path = $S/nova/instances
compute_driver = fake.FakeDriver
transport_url = $TRANSPORT
enabled_apis = osapi_compute
osapi_compute_listen = $H
osapi_compute_listen_port = $P_NOVA
osapi_compute_workers = 1
log_dir = $S/log
vif_plugging_is_fatal = false
vif_plugging_timeout = 0
[wsgi]
api_paste_config = $S/etc/nova/api-paste.ini
[api]
auth_strategy = keystone
[api_database]
connection = $(db nova_api)
[database]
connection = $(db nova)
[quota]
instances = -1
cores = -1
ram = -1
server_groups = -1
server_group_members = -1
key_pairs = -1
[conductor]
workers = 1
[scheduler]
workers = 1
discover_hosts_in_cells_interval = 10
[oslo_concurrency]
lock_path = $S/nova/lock
[vnc]
enabled = false
[glance]
region_name = RegionOne
[cinder]
os_region_name = RegionOne
$(authtoken nova)
$(svcauth placement nova)
$(svcauth neutron nova)
$(svcauth service_user nova)
send_service_user_token = true
EOF
}

nova_up() {
  nova_conf
  local nm=("$S/bin/nova-manage" --config-file "$S/etc/nova/nova.conf")
  if [[ ! -f $S/.nova-db ]]; then
    log "nova: db sync, cells"
    { "${nm[@]}" api_db sync && "${nm[@]}" cell_v2 map_cell0 --database_connection "$(db nova_cell0)" &&
      { "${nm[@]}" cell_v2 list_cells | grep -q cell1 || "${nm[@]}" cell_v2 create_cell --name cell1; } &&
      "${nm[@]}" db sync; } >>"$S/log/nova-db.log" 2>&1 || die "nova-manage failed: $S/log/nova-db.log"
    touch "$S/.nova-db"
  fi
  local n
  for n in api conductor scheduler compute; do
    start "nova-$n" "$S/bin/nova-$n" --config-file "$S/etc/nova/nova.conf"
  done
  # A second fake hypervisor: a nodegroup with a hard anti-affinity policy
  # needs a host per server, and a rolling replacement (an upgrade) makes
  # the new server before deleting the old one.
  printf '[DEFAULT]\nhost = keel-compute-2\nlog_file = nova-compute-2.log\n' >"$S/etc/nova/nova-compute-2.conf"
  start nova-compute-2 "$S/bin/nova-compute" --config-file "$S/etc/nova/nova.conf" --config-file "$S/etc/nova/nova-compute-2.conf"
}

octavia_conf() {
  mkdir -p "$S/etc/octavia" "$S/octavia/lock"
  # Creating a load balancer signs an amphora certificate even with no-op
  # drivers, and Octavia's local generator wants an encrypted CA key.
  if [[ ! -f $S/octavia/ca.pem ]]; then
    openssl genrsa -aes256 -passout pass:keel-octavia-ca -out "$S/octavia/ca.key" 2048 >/dev/null 2>&1
    openssl req -x509 -new -key "$S/octavia/ca.key" -passin pass:keel-octavia-ca -out "$S/octavia/ca.pem" \
      -subj /CN=keel-octavia-test-ca -days 3650 >/dev/null 2>&1
  fi
  cat >"$S/etc/octavia/octavia.conf" <<EOF
[DEFAULT]
transport_url = $TRANSPORT
log_file = $S/log/octavia.log
[api_settings]
bind_host = $H
bind_port = $P_OCTAVIA
auth_strategy = keystone
default_provider_driver = amphora
[database]
connection = $(db octavia)
[controller_worker]
amphora_driver = amphora_noop_driver
compute_driver = compute_noop_driver
network_driver = keel_real_vip
volume_driver = volume_noop_driver
image_driver = image_noop_driver
loadbalancer_topology = SINGLE
amp_image_tag = amphora
amp_flavor_id = 1
amp_boot_network_list = 00000000-0000-0000-0000-000000000001
client_ca = $S/octavia/ca.pem
[haproxy_amphora]
client_cert = $S/octavia/ca.pem
server_ca = $S/octavia/ca.pem
[certificates]
ca_certificate = $S/octavia/ca.pem
ca_private_key = $S/octavia/ca.key
ca_private_key_passphrase = keel-octavia-ca
server_certs_key_passphrase = keel-octavia-test-0123456789abcd
[task_flow]
jobboard_enabled = false
[oslo_messaging]
topic = octavia_prov
[oslo_concurrency]
lock_path = $S/octavia/lock
$(authtoken octavia)
$(svcauth service_auth octavia)
EOF
}

octavia_up() {
  octavia_conf
  if [[ ! -f $S/.octavia-db ]]; then
    { env PYTHONPATH="$S/pylib" "$PY" "$S/pylib/octavia_schema.py" "$S/etc/octavia/octavia.conf" &&
      octavia-db-manage --config-file "$S/etc/octavia/octavia.conf" stamp head; } >>"$S/log/octavia-db.log" 2>&1 ||
      die "octavia schema failed: $S/log/octavia-db.log"
    touch "$S/.octavia-db"
  fi
  start octavia-api /usr/bin/octavia-api --config-file "$S/etc/octavia/octavia.conf"
  start octavia-worker /usr/bin/octavia-worker --config-file "$S/etc/octavia/octavia.conf"
}

cinder_up() {
  mkdir -p "$S/cinder/lock"
  # No default_volume_type: Cinder's own __DEFAULT__ exists, another name
  # would not. resource_query_filters_file: without it ?name= is a 400.
  cat >"$S/etc/cinder/cinder.conf" <<EOF
[DEFAULT]
transport_url = $TRANSPORT
auth_strategy = keystone
osapi_volume_listen = $H
osapi_volume_listen_port = $P_CINDER
osapi_volume_workers = 1
api_paste_config = $S/etc/cinder/api-paste.ini
state_path = $S/cinder
my_ip = $H
host = keel-volume-1
enabled_backends = fake
log_dir = $S/log
resource_query_filters_file = $S/etc/cinder/resource_filters.json
quota_volumes = -1
quota_gigabytes = -1
quota_snapshots = -1
[fake]
volume_driver = keel_noop_volume.NoopVolumeDriver
volume_backend_name = fake
[database]
connection = $(db cinder)
[oslo_concurrency]
lock_path = $S/cinder/lock
$(authtoken cinder)
EOF
  once .cinder-db "$S/bin/cinder-manage" --config-file "$S/etc/cinder/cinder.conf" db sync
  local n
  for n in api scheduler volume; do
    start "cinder-$n" "$S/bin/cinder-$n" --config-file "$S/etc/cinder/cinder.conf"
  done
}

# Nova schedules only onto compute hosts mapped into a cell.
compute_host_wait() {
  local nm=("$S/bin/nova-manage" --config-file "$S/etc/nova/nova.conf") deadline=$(($(now) + 300))
  until [[ $("${nm[@]}" cell_v2 list_hosts 2>/dev/null | grep -c 'keel-compute-[12] ') == 2 ]]; do
    "${nm[@]}" cell_v2 discover_hosts >/dev/null 2>&1 || true
    running nova-compute || { tail -n 30 "$S/log/nova-compute.log" >&2; die "nova-compute died"; }
    running nova-compute-2 || { tail -n 30 "$S/log/nova-compute-2.log" >&2; die "nova-compute-2 died"; }
    (($(now) < deadline)) || die "the fake compute hosts never registered ($S/log/nova-compute.log)"
    sleep 2
  done
}

write_env() {
  cat >"$S/clouds.yaml" <<EOF
clouds:
  keel-admin:
    auth: {auth_url: "$KS/v3", username: admin, password: $PW, project_name: admin, user_domain_name: Default, project_domain_name: Default}
    region_name: RegionOne
    identity_api_version: 3
EOF
  cat >"$S/env.tmp" <<EOF
OS_AUTH_URL=$KS/v3
OS_USERNAME=admin
OS_PASSWORD=$PW
OS_PROJECT_NAME=admin
OS_USER_DOMAIN_NAME=Default
OS_PROJECT_DOMAIN_NAME=Default
OS_REGION_NAME=RegionOne
OS_IDENTITY_API_VERSION=3
KEEL_OPENSTACK_DIR=$S
KEEL_OPENSTACK_CLOUDS_YAML=$S/clouds.yaml
KEEL_OPENSTACK_SERVICE_USER=keel
KEEL_OPENSTACK_SERVICE_PROJECT=service
KEEL_OPENSTACK_SERVICE_PASSWORD=$PW
KEEL_OPENSTACK_TEST_DOMAIN=keel-test
KEEL_OPENSTACK_EXTERNAL_NETWORK=public
KEEL_OPENSTACK_FIP_CIDR=$FIP_CIDR
KEEL_OPENSTACK_IMAGE=ubuntu-2204-kube
KEEL_OPENSTACK_FLAVORS=m1.tiny,m1.small,m1.medium,m1.large
KEEL_OPENSTACK_OCTAVIA_DB=postgres://keel:keel@$H:$P_PG/octavia
EOF
  mv "$S/env.tmp" "$S/env"
}

all_running() {
  local n
  for n in epmd $SERVICES; do running "$n" || return 1; done
  aspg "$(pgbin)/pg_ctl" -D "$S/pg" status >/dev/null 2>&1
}

# Another state directory's stack holds the ports: say so, rather than
# start services that cannot bind.
ports_free() {
  if curl -s -o /dev/null --max-time 3 "$KS/v3" && ! running keystone; then
    die "port $P_KEYSTONE answers but not for $S: another keel OpenStack runs (set KEEL_OPENSTACK_DIR to its state directory, or stop it)"
  fi
}

up() {
  local t0; t0=$(now)
  mkdir -p "$S"/{etc,log,run,bin,pylib,data,home}
  S=$(cd "$S" && pwd)
  if [[ -f $S/.ready ]] && all_running && curl -s -o /dev/null --max-time 5 "$KS/v3"; then
    write_env # a stack started by an older version of this script gets the new variables
    echo "$S/env"
    return
  fi
  ports_free
  install_packages
  local t_pkg=$(($(now) - t0))
  paste_files
  wrappers
  pylib
  postgres_up
  rabbit_up
  keystone_up
  wait_http "$KS/v3" keystone
  seeded keystone || { seed keystone && mark_seeded keystone; }
  local t_ks=$(($(now) - t0))
  rabbit_wait
  placement_up
  glance_up
  neutron_up
  nova_up
  octavia_up
  cinder_up
  wait_http "http://$H:$P_PLACEMENT" placement
  wait_http "http://$H:$P_GLANCE" glance
  wait_http "http://$H:$P_NEUTRON" neutron
  wait_http "http://$H:$P_NOVA" nova-api
  wait_http "http://$H:$P_OCTAVIA" octavia-api
  wait_http "http://$H:$P_CINDER" cinder-api
  compute_host_wait
  seeded cloud || { seed cloud && mark_seeded cloud; }
  write_env
  touch "$S/.ready"
  local total=$(($(now) - t0))
  echo "$(date -u +%FT%TZ) packages=${t_pkg}s keystone=${t_ks}s total=${total}s" >>"$S/log/timings"
  log "up in ${total}s (packages ${t_pkg}s, Keystone answering at ${t_ks}s); env: $S/env"
  echo "$S/env"
}

down() {
  [[ -d $S ]] || { log "no state in $S"; return; }
  S=$(cd "$S" && pwd)
  rm -f "$S/.ready"
  local n pid order
  order=$(echo "$SERVICES epmd" | tr ' ' '\n' | tac | tr '\n' ' ')
  for n in $order; do
    running "$n" && kill -TERM -- "-$(cat "$S/run/$n.pid")" 2>/dev/null || true
  done
  for n in $order; do
    [[ -f $S/run/$n.pid ]] || continue
    pid=$(cat "$S/run/$n.pid")
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    # what ignored TERM, and workers left in the group after their master
    kill -KILL -- "-$pid" 2>/dev/null || true
    rm -f "$S/run/$n.pid"
  done
  postgres_down
  if [[ ${1:-} == --purge ]]; then
    [[ -f $S/env || -d $S/pg || -d $S/run ]] || die "$S does not look like a keel OpenStack state directory; not deleting it"
    rm -rf "$S"
    log "purged $S"
  fi
  log "down"
}

# pss PID...: the processes' proportional set size, in MiB
pss() {
  local kib=0 p v
  for p in "$@"; do
    v=$(awk '/^Pss:/{print $2}' "/proc/$p/smaps_rollup" 2>/dev/null) || continue
    kib=$((kib + ${v:-0}))
  done
  echo $((kib / 1024))
}

status() {
  local n pids total=() pg
  for n in epmd $SERVICES; do
    if running "$n"; then
      mapfile -t pids < <(ps -o pid= -g "$(cat "$S/run/$n.pid")" | tr -d ' ')
      total+=("${pids[@]}")
      printf '%-17s running  %3d processes %5d MiB\n' "$n" "${#pids[@]}" "$(pss "${pids[@]}")"
    else
      printf '%-17s stopped\n' "$n"
    fi
  done
  if [[ -f $S/pg/postmaster.pid ]]; then
    pg=$(head -n 1 "$S/pg/postmaster.pid")
    mapfile -t pids < <(echo "$pg"; ps -o pid= --ppid "$pg" | tr -d ' ')
    total+=("${pids[@]}")
    printf '%-17s running  %3d processes %5d MiB\n' postgresql "${#pids[@]}" "$(pss "${pids[@]}")"
  fi
  printf '%-17s          %3d processes %5d MiB (PSS)\n' total "${#total[@]}" "$(pss "${total[@]}")"
}

# up and down hold a lock beside the state folder: two of them at once (a
# developer's `make openstack` while CI's starts the stack, say) would both
# install, initialise the databases and start every service twice. flock(1)
# holds it and runs this script again under it (-o: without the lock's
# descriptor, which every service started would otherwise inherit, holding
# the lock as long as the stack runs).
locked() {
  mkdir -p "$(dirname "$S")"
  exec flock -o "$S.lock" "$BASH" "${BASH_SOURCE[0]}" --locked "$@"
}

case ${1:-} in
up | down) locked "$@" ;;
--locked) if [[ $2 == up ]]; then up; else down "${3:-}"; fi ;;
env) [[ -f $S/.ready ]] && all_running && echo "$(cd "$S" && pwd)/env" || die "no keel OpenStack running in $S (hack/openstack.sh up)" ;;
status) status ;;
*) sed -n '2,20p' "${BASH_SOURCE[0]}" >&2; exit 2 ;;
esac
