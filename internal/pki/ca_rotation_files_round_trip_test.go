package pki

import (
	"reflect"
	"slices"
	"testing"
)

// The key document's files carry a rotation's new CA, and a PKI without a
// rotation has exactly the files it had before rotations existed.
func TestCARotationFilesRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name                 string
		p                    *ClusterPKI
		wantPublic, wantPriv []string
	}{
		{"no rotation", sharedPKI(t),
			[]string{FileCACert, FileEtcdCert, FileFrontProxyCert, FileSAPub},
			[]string{FileCAKey, FileEtcdKey, FileFrontProxyKey, FileSAKey}},
		{"rotation begun", rotatedPKI(t),
			[]string{FileCACert, FileNextCACert, FileEtcdCert, FileFrontProxyCert, FileSAPub},
			[]string{FileCAKey, FileNextCAKey, FileEtcdKey, FileFrontProxyKey, FileSAKey}},
		{"rotation finished", finishedPKI(t),
			[]string{FileCACert, FileEtcdCert, FileFrontProxyCert, FileSAPub},
			[]string{FileCAKey, FileEtcdKey, FileFrontProxyKey, FileSAKey}},
	} {
		t.Run(c.name, func(t *testing.T) {
			public, private := c.p.Files()
			if got := sortedKeys(public); !reflect.DeepEqual(got, sorted(c.wantPublic)) {
				t.Errorf("public files %v, want %v", got, sorted(c.wantPublic))
			}
			if got := sortedKeys(private); !reflect.DeepEqual(got, sorted(c.wantPriv)) {
				t.Errorf("private files %v, want %v", got, sorted(c.wantPriv))
			}
			back := FromFiles(public, private)
			if !reflect.DeepEqual(back, c.p) {
				t.Errorf("round trip changed the PKI")
			}
			if err := back.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return sorted(out)
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
