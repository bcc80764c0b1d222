// Package testenv gives each integration-test package one management
// cluster (mgmtcluster, the same code that runs keel serve's embedded one).
package testenv

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/openkeel/keel/mgmtcluster"
)

// Env is a running management cluster.
type Env = mgmtcluster.Env

// Main starts one management cluster for a whole test package, stores it in
// *env, runs the tests and stops it. Use it from TestMain:
//
//	var env *testenv.Env
//	func TestMain(m *testing.M) { testenv.Main(m, &env) }
func Main(m *testing.M, env **Env) {
	e, err := mgmtcluster.Start(context.Background(), mgmtcluster.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		os.Exit(1)
	}
	*env = e
	code := m.Run()
	if err := e.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "testenv: stop:", err)
	}
	os.Exit(code)
}
