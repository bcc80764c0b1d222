"""Octavia's no-op network driver, with the load balancer's VIP on a real port.

The no-op driver (no amphora, no service VM networking) invents the VIP: an
address and port ID Neutron has never heard of, so a floating IP cannot be
associated to it, and Cluster API Provider OpenStack associates one to the
API load balancer's VIP. This driver allocates and deallocates the VIP with
Octavia's real Neutron driver (allowed_address_pairs), so the VIP is a real
Neutron port on the tenant's subnet, and answers the API's subnet, network
and port look-ups from Neutron; everything about amphorae (which do not
exist) stays no-op. Registered as the `keel_real_vip` entry point.
"""
from octavia.network.drivers.noop_driver.driver import NoopNetworkDriver
from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class RealVipNetworkDriver(NoopNetworkDriver):
    """NoopNetworkDriver whose VIP ports and look-ups are Neutron's."""

    _neutron = None

    @classmethod
    def _real(cls):
        # Imported late: the module reads Octavia's config at import time.
        if cls._neutron is None:
            from octavia.network.drivers.neutron import allowed_address_pairs
            cls._neutron = allowed_address_pairs.AllowedAddressPairsDriver()
        return cls._neutron

    def allocate_vip(self, loadbalancer):
        return self._real().allocate_vip(loadbalancer)

    def deallocate_vip(self, vip):
        try:
            self._real().neutron_client.delete_port(vip.port_id)
        except Exception as e:  # a port already gone is deallocated
            LOG.warning('VIP port %s not deleted: %s', vip.port_id, e)

    def _from_neutron(self, what, obj_id, context):
        # The amphora's (invented) networks and ports are not in Neutron:
        # those look-ups keep the no-op answers.
        try:
            return getattr(self._real(), what)(obj_id, context=context)
        except Exception:
            return getattr(super(), what)(obj_id, context=context)

    def get_subnet(self, subnet_id, context=None):
        return self._from_neutron('get_subnet', subnet_id, context)

    def get_network(self, network_id, context=None):
        return self._from_neutron('get_network', network_id, context)

    def get_port(self, port_id, context=None):
        return self._from_neutron('get_port', port_id, context)
