package magnumimport

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// readLocal reads a reference of Magnum's local certificate manager: the
// files REF.crt (certificate) and REF.key (private key) in the conductor's
// storage_path, and REF.pass (the key's passphrase), which it writes only
// when there is one. REF.int (intermediates) is not read: Magnum's CAs are
// self-signed and have none.
func readLocal(dir, ref string) (magnumCert, error) {
	// A reference is a file name there, never a path out of the folder.
	if ref != filepath.Base(ref) || ref == "." || ref == ".." {
		return magnumCert{}, fmt.Errorf("%q is not a file name of --magnum-cert-dir (local references are uuids)", ref)
	}
	var c magnumCert
	var err error
	base := filepath.Join(dir, ref)
	if c.Certificate, err = readCertFile(base+".crt", true); err != nil {
		return c, err
	}
	if c.PrivateKey, err = readCertFile(base+".key", true); err != nil {
		return c, err
	}
	c.Passphrase, err = readCertFile(base+".pass", false)
	return c, err
}

// readCertFile reads one of a reference's files; a missing optional one
// is empty.
func readCertFile(path string, required bool) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading Magnum's local certificate store (--magnum-cert-dir): %w", err)
	}
	return string(b), nil
}
