// Package magnumimport moves an existing Magnum cloud onto keel: it reads
// Magnum's database read-only (MariaDB/MySQL, PostgreSQL or SQLite, named
// by the URL magnum.conf's [database] connection holds), maps cluster
// templates, clusters, nodegroups and quotas onto keel's intent documents
// and writes them into keel's repository as one reviewable commit per
// project (docs/migration.md). Clusters are imported as read-only records
// (intent.Imported): nothing on the management cluster or in OpenStack is
// touched for them.
//
// It is the import's service: keel import (cmd/keel) only parses flags and
// prints. It imports no HTTP framework and none of the stages that apply,
// observe or serve (internal/layering).
package magnumimport
