"""An ML2 mechanism driver that binds every port, for a Neutron with no agents.

keel's test cloud has no hypervisor and so no Open vSwitch or Linux bridge
agent: Zed's openvswitch and linuxbridge drivers bind a port only on a host
whose agent is alive, and the in-tree test drivers only on magic host names.
Nova then waits for a binding that never comes. This driver stands in for
the agent: it binds the port to the first segment, as the openvswitch driver
would, and marks it ACTIVE (what the agent reports once it has wired the
port). Registered as the `keel_always_bind` entry point (hack/openstack.sh).
"""
from neutron_lib import constants
from neutron_lib.api.definitions import portbindings
from neutron_lib.plugins.ml2 import api


class AlwaysBindMechanismDriver(api.MechanismDriver):
    """Binds each port to the first segment offered, on any host."""

    def initialize(self):
        pass

    def bind_port(self, context):
        for segment in context.segments_to_bind:
            context.set_binding(
                segment[api.ID],
                portbindings.VIF_TYPE_OVS,
                {portbindings.CAP_PORT_FILTER: True,
                 portbindings.OVS_HYBRID_PLUG: False},
                status=constants.PORT_STATUS_ACTIVE)
            return
