package reconciler

import (
	"fmt"
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/internal/secrets"
)

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
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(fs, "/src")
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	var objs []*unstructured.Unstructured
	for _, r := range resMap.Resources() {
		// Through JSON: kustomize's maps hold Go ints, which the Kubernetes
		// machinery (deep copies, SSA) does not accept.
		data, err := r.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
		}
		objs = append(objs, u)
	}
	return objs, nil
}
