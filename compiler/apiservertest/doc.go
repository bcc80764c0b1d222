// Package apiservertest holds the tests that submit keel's rendered objects,
// and what Cluster API derives from them, to a real kube-apiserver with the
// Cluster API and CAPO CRDs. It is a package of its own so that the
// compiler's fast unit tests do not start a management cluster.
package apiservertest
