"""Neutron's L3 router plugin for a cloud without an L3 agent.

A floating IP's status is the L3 agent's report: ACTIVE once the agent has
set up the NAT for the port it is associated with, DOWN once it is not. With
no agent it stays DOWN forever, and Cluster API Provider OpenStack waits for
ACTIVE after associating the API server's floating IP (and for DOWN after
disassociating it). This subclass reports, at create and update, what the
agent would have: ACTIVE when associated to a port, DOWN when not.
"""
from neutron.services.l3_router.l3_router_plugin import L3RouterPlugin
from neutron_lib import constants


class AgentlessL3RouterPlugin(L3RouterPlugin):
    """L3RouterPlugin whose floating IPs take the status an agent reports."""

    def _agent_status(self, context, fip):
        want = constants.FLOATINGIP_STATUS_DOWN
        if fip.get('port_id'):
            want = constants.FLOATINGIP_STATUS_ACTIVE
        if fip.get('status') != want:
            self.update_floatingip_status(context, fip['id'], want)
            fip['status'] = want
        return fip

    def create_floatingip(self, context, floatingip, *args, **kwargs):
        fip = super().create_floatingip(context, floatingip, *args, **kwargs)
        return self._agent_status(context, fip)

    def update_floatingip(self, context, id, floatingip):
        fip = super().update_floatingip(context, id, floatingip)
        return self._agent_status(context, fip)
