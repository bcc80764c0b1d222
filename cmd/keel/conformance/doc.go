// Package conformance holds only tests: OpenStack's own conformance suites
// for Magnum (tempest's magnum-tempest-plugin, gophercloud's containerinfra
// acceptance tests) run against keel with a real Keystone under uwsgi and
// Cluster API's own controllers (docs/conformance.md).
package conformance
