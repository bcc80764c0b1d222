package magnumimport_test

import (
	"os"
	"testing"

	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	mdb.Cleanup()
	os.Exit(code)
}
