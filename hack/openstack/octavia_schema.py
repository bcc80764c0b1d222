"""Creates Octavia's database schema on PostgreSQL.

Octavia's alembic migrations are written for MySQL (one drops a constraint
named "PRIMARY") and fail on PostgreSQL. The schema is made from the models
instead, the lookup tables seeded as Octavia's functional tests seed them,
and hack/openstack.sh then stamps the migration head so that octavia-api
finds the version it expects. Usage: octavia_schema.py OCTAVIA_CONF
"""
import sys

from octavia.common import config


def main(conf):
    config.init(['--config-file', conf])
    from octavia.db import api as db_api
    from octavia.db import base_models
    from octavia.tests.functional.db import base

    base_models.BASE.metadata.create_all(db_api.get_engine())

    class Seeder:
        """Borrows the functional tests' seeding, which needs no test."""

        def _seed_lookup_table(self, session, names, model):
            base.OctaviaDBTestBase._seed_lookup_table(
                self, session, names, model)

    base.OctaviaDBTestBase._seed_lookup_tables(
        Seeder(), db_api.get_session())


if __name__ == '__main__':
    main(sys.argv[1])
