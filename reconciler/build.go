package reconciler

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/internal/secrets"
)

// kustomizeMu serialises kustomize builds, as Flux's kustomize-controller
// and Kargo do: kustomize reads and writes shared maps (kubernetes-sigs/
// kustomize#3659), and the reconciler's workers build folders at once.
// The build is a small part of an apply; the API calls stay concurrent.
var kustomizeMu sync.Mutex

func kustomize(fs filesys.FileSystem) (resmap.ResMap, error) {
	kustomizeMu.Lock()
	defer kustomizeMu.Unlock()
	return krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/src")
}

// build runs a kustomize build of the folder dir of a snapshot, in memory:
// the rendered files never touch the disk (they will hold decrypted Secrets).
// SOPS-encrypted files are decrypted into the in-memory copy.
func build(sn *gitstore.Snapshot, dir string, kr *secrets.Keyring) ([]*unstructured.Unstructured, error) {
	fs := filesys.MakeFsInMemory()
	err := sn.Walk(dir, func(p string, data []byte) error {
		rel := strings.TrimPrefix(p, dir+"/")
		data, err := decryptFile(p, data, kr)
		if err != nil {
			return err
		}
		return fs.WriteFile(path.Join("/src", rel), data)
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	resMap, err := kustomize(fs)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	var objs []*unstructured.Unstructured
	for _, r := range resMap.Resources() {
		u, err := objectOf(r)
		if err != nil {
			return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
		}
		objs = append(objs, u)
	}
	return objs, nil
}
