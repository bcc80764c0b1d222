"""Prints a cluster's CAs as Magnum's conductor makes them, as JSON.

It runs Magnum's own code (Debian's python3-magnum): the three CAs and the
client certificate of magnum/conductor/handlers/common/cert_manager.py's
generate_certificates_to_cluster, each private key PKCS #8-encrypted with
its own random passphrase, as the x509keypair rows hold them, plus the key
as Magnum's decrypt_key gives it back (what the test compares keel's copy
with).

Usage: magnum_cas.py ISSUER
"""
import json
import sys

import magnum.conf  # noqa: F401 (registers [x509]'s defaults)
from magnum.common import short_id
from magnum.common.x509 import operations


def text(v):
    return v.decode() if isinstance(v, bytes) else v


def keypair(made, password):
    return {"certificate": text(made["certificate"]), "private_key": text(made["private_key"]),
            "private_key_passphrase": password,
            "decrypted": text(operations.decrypt_key(made["private_key"], password))}


def ca(issuer):
    password = short_id.generate_id()
    return operations.generate_ca_certificate(issuer, encryption_password=password), password


issuer = sys.argv[1]
(k8s, k8s_pw), (etcd, etcd_pw), (proxy, proxy_pw) = ca(issuer), ca(issuer), ca(issuer)
client_pw = short_id.generate_id()
client = operations.generate_client_certificate(issuer, "admin", "system:masters", k8s["private_key"],
                                                encryption_password=client_pw, ca_key_password=k8s_pw)
json.dump({"ca": keypair(k8s, k8s_pw), "etcd": keypair(etcd, etcd_pw), "front_proxy": keypair(proxy, proxy_pw),
           "magnum": keypair(client, client_pw)}, sys.stdout)
