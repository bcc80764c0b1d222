"""Cinder's fake volume driver, without the image copies it cannot do.

Cinder ships FakeLoggingVolumeDriver (volumes that exist only in the
database, attachable to Nova's fake servers) for its own tests. It inherits
the LVM driver's image copy, which writes the image to /dev/mapper/...: a
volume created from an image (a boot volume) would fail. With no disk
behind the volume there is nothing to copy, so both copies do nothing.
"""
from cinder.tests.fake_driver import FakeLoggingVolumeDriver


class NoopVolumeDriver(FakeLoggingVolumeDriver):
    """FakeLoggingVolumeDriver whose image copies are no-ops."""

    def copy_image_to_volume(self, context, volume, image_service, image_id,
                             *args, **kwargs):
        pass

    def copy_volume_to_image(self, context, volume, image_service,
                             image_meta):
        pass
