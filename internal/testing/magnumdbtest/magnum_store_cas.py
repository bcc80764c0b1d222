"""Stores a cluster's CAs (magnum_cas.py's JSON, on stdin) with one of
Magnum's own certificate managers, as the conductor's
generate_certificates_to_cluster does, and prints the four references as
JSON, by cluster column.

Usage: magnum_store_cas.py local STORAGE_PATH
       magnum_store_cas.py barbican MAGNUM_CONF

local: Magnum's local certificate manager writes text files; the
conductor hands it bytes on Python 3 (Magnum's x509 operations return
bytes), which it cannot write, so the text is given, as Python 2's
Magnum wrote it. barbican: the bytes the conductor gives, stored with
Magnum's service user ([keystone_auth] of MAGNUM_CONF).
"""
import json
import sys

import magnum.conf
from magnum.common import cert_manager

CONF = magnum.conf.CONF
COLUMNS = {"ca": "ca_cert_ref", "etcd": "etcd_ca_cert_ref", "front_proxy": "front_proxy_ca_cert_ref",
           "magnum": "magnum_cert_ref"}

kind, where = sys.argv[1], sys.argv[2]
if kind == "local":
    CONF([], project="magnum", default_config_files=[])
    CONF.set_override("storage_path", where, "certificates")
else:
    CONF([], project="magnum", default_config_files=[where])
CONF.set_override("cert_manager_type", kind, "certificates")


def stored(v):
    return v if kind == "local" else v.encode()


cas = json.load(sys.stdin)
refs = {}
for name, column in COLUMNS.items():
    kp = cas[name]
    refs[column] = cert_manager.get_backend().CertManager.store_cert(
        certificate=stored(kp["certificate"]), private_key=stored(kp["private_key"]),
        private_key_passphrase=kp["private_key_passphrase"], name="kube-ab12c")
json.dump(refs, sys.stdout)
