package reconciler

import (
	"fmt"

	"github.com/openkeel/keel/internal/secrets"
)

// decryptFile returns the plaintext of a SOPS-encrypted rendered file (the
// cluster's Secrets), or data unchanged when the file is not encrypted. It
// runs on the in-memory copy of the folder before the kustomize build, so
// the plaintext never touches the disk, and its errors name the file but
// never its content.
//
// Decrypting before the build (as Flux does for files kustomize generators
// read) rather than after keeps the SOPS MAC valid: it covers the values in
// file order, which kustomize's output does not preserve.
func decryptFile(p string, data []byte, kr *secrets.Keyring) ([]byte, error) {
	if !secrets.IsEncrypted(data) {
		return data, nil
	}
	if kr == nil {
		return nil, fmt.Errorf("%s is SOPS-encrypted but the reconciler has no age identity (Options.Keyring)", p)
	}
	plain, err := kr.Decrypt(data)
	if err != nil {
		return nil, fmt.Errorf("decrypting %s: %w", p, err)
	}
	return plain, nil
}
