"""Seeds keel's test cloud with what a real cloud's operator would have made.

  seed.py keystone   service users, roles, the keel-test domain, the catalog
  seed.py cloud      the external network and subnet, flavors, an image

Idempotent: what exists is kept. One Python process per phase, since each
`openstack` CLI call costs seconds of imports. Settings come from the
environment hack/openstack.sh exports (KEEL_OS_*).
"""
import os
import sys

import openstack

E = os.environ
SERVICES = ('nova', 'neutron', 'glance', 'placement', 'octavia', 'cinder')
# Octavia's default policy (Zed) lets a project's members use load
# balancers only with load-balancer_member; the others are its read-only
# and admin roles, as a real cloud defines them.
ROLES = ('admin', 'member', 'reader', 'service', 'load-balancer_member',
         'load-balancer_observer', 'load-balancer_admin',
         'load-balancer_global_observer', 'load-balancer_quota_admin')
FLAVORS = (  # name, vCPUs, RAM MiB, disk GiB: devstack's sizes
    ('m1.tiny', 1, 512, 1),
    ('m1.small', 1, 2048, 20),
    ('m1.medium', 2, 4096, 40),
    ('m1.large', 4, 8192, 80),
)


def connect():
    return openstack.connect(
        auth_url=E['KEEL_OS_AUTH_URL'], username='admin',
        password=E['KEEL_OS_PASSWORD'], project_name='admin',
        user_domain_name='Default', project_domain_name='Default',
        region_name='RegionOne', identity_api_version='3')


def keystone(c):
    idc = c.identity
    service = idc.find_project('service', domain_id='default') or \
        idc.create_project(name='service', domain_id='default')
    roles = {r: idc.find_role(r) or idc.create_role(name=r) for r in ROLES}
    users = list(SERVICES) + [E['KEEL_OS_SERVICE_USER']]
    for name in users:
        u = idc.find_user(name, domain_id='default') or idc.create_user(
            name=name, password=E['KEEL_OS_PASSWORD'], domain_id='default',
            default_project_id=service.id)
        idc.assign_project_role_to_user(service, u, roles['admin'])
        if name in SERVICES:
            # The role a service token must carry (keystone_authtoken's
            # service_token_roles): Cinder lets Nova delete a volume
            # attachment at server delete only on a service token.
            idc.assign_project_role_to_user(service, u, roles['service'])
    if not idc.find_domain(E['KEEL_OS_TEST_DOMAIN']):
        idc.create_domain(name=E['KEEL_OS_TEST_DOMAIN'],
                          description='projects and users of keel tests')
    catalog(idc)


def catalog(idc):
    h = E['KEEL_OS_HOST']
    want = (
        ('nova', 'compute', f"http://{h}:{E['KEEL_OS_P_NOVA']}/v2.1"),
        ('placement', 'placement', f"http://{h}:{E['KEEL_OS_P_PLACEMENT']}"),
        ('glance', 'image', f"http://{h}:{E['KEEL_OS_P_GLANCE']}"),
        ('neutron', 'network', f"http://{h}:{E['KEEL_OS_P_NEUTRON']}"),
        ('octavia', 'load-balancer', f"http://{h}:{E['KEEL_OS_P_OCTAVIA']}"),
        ('cinderv3', 'volumev3',
         f"http://{h}:{E['KEEL_OS_P_CINDER']}/v3/%(project_id)s"),
        ('cinder', 'block-storage',
         f"http://{h}:{E['KEEL_OS_P_CINDER']}/v3/%(project_id)s"),
    )
    have = {s.type: s for s in idc.services()}
    for name, typ, url in want:
        s = have.get(typ) or idc.create_service(name=name, type=typ,
                                                is_enabled=True)
        itfs = {ep.interface for ep in idc.endpoints(service_id=s.id)}
        for itf in ('public', 'internal', 'admin'):
            if itf not in itfs:
                idc.create_endpoint(service_id=s.id, url=url, interface=itf,
                                    region_id='RegionOne')


def cloud(c):
    net = c.network.find_network(E['KEEL_OS_EXTERNAL_NETWORK'])
    if not net:
        # flat on a physical network no agent wires: no traffic flows.
        net = c.network.create_network(
            name=E['KEEL_OS_EXTERNAL_NETWORK'], is_router_external=True,
            provider_network_type='flat',
            provider_physical_network='public')
    if not list(c.network.subnets(network_id=net.id)):
        cidr = E['KEEL_OS_FIP_CIDR']
        prefix = cidr.rsplit('.', 1)[0]
        # No DHCP: Neutron refuses a loopback range with DHCP enabled.
        c.network.create_subnet(
            name=E['KEEL_OS_EXTERNAL_NETWORK'] + '-subnet', network_id=net.id,
            ip_version=4, cidr=cidr, gateway_ip=prefix + '.1',
            is_dhcp_enabled=False,
            allocation_pools=[{'start': prefix + '.10',
                               'end': prefix + '.250'}])
    for name, vcpus, ram, disk in FLAVORS:
        if not c.compute.find_flavor(name, ignore_missing=True):
            c.compute.create_flavor(name=name, vcpus=vcpus, ram=ram,
                                    disk=disk, is_public=True)
    image(c)


def image(c):
    name = E['KEEL_OS_IMAGE']
    if c.image.find_image(name):
        return
    # A real image is a multi-GiB qcow2 downloaded from the web; nothing
    # boots it here (Nova's fake driver), so a 1 MiB file of zeros, with the
    # os_distro property Magnum (and keel) require of a cluster's image.
    path = os.path.join(E['KEEL_OS_STATE'], 'data', 'image.raw')
    with open(path, 'wb') as f:
        f.write(b'\0' * (1 << 20))
    c.image.create_image(
        name=name, filename=path, disk_format='raw', container_format='bare',
        visibility='public', wait=True, timeout=120,
        os_distro='ubuntu', os_version='22.04')


if __name__ == '__main__':
    {'keystone': keystone, 'cloud': cloud}[sys.argv[1]](connect())
