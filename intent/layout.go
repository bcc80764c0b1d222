package intent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"reflect"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// The repository layout, designed for humans reviewing pull requests (see
// docs/repository.md):
//
//	clusterclasses/<class>/                       shared ClusterClass + templates (rendered)
//	projects/<project>/clustertemplates/<uuid>.yaml
//	projects/<project>/clusters/<name>-<stack_id>/cluster.yaml
//	projects/<project>/clusters/<name>-<stack_id>/nodegroups/<nodegroup>.yaml
//	projects/<project>/clusters/<name>-<stack_id>/rendered/   what the compiler made of the above
//	quotas/<project>.yaml
const (
	ClusterClassesDir = "clusterclasses"
	ProjectsDir       = "projects"
	QuotasDir         = "quotas"
	RenderedDir       = "rendered"
	ClusterFile       = "cluster.yaml"
	NodeGroupsDir     = "nodegroups"
)

// join builds a repository path from its segments without cleaning it:
// path.Join would turn a crafted project id "../x" into a path outside the
// layout that looks valid. Left as they are, such segments reach
// gitstore.CheckPath, which refuses every commit that holds one; the API
// refuses them earlier, with a 400 that names the field (ValidProjectID).
func join(segments ...string) string { return strings.Join(segments, "/") }

// TemplatePath is where a cluster template lives.
func TemplatePath(project, uuid string) string {
	return join(ProjectsDir, project, "clustertemplates", uuid+".yaml")
}

// ClusterDir is the folder of one cluster: its intent and its rendered output.
func ClusterDir(project, name, stackID string) string {
	return join(ProjectsDir, project, "clusters", name+"-"+stackID)
}

// ClusterDirOf is ClusterDir for a cluster document.
func ClusterDirOf(c *Cluster) string { return ClusterDir(c.ProjectID, c.Name, c.StackID) }

// NodeGroupPath is where a nodegroup of the cluster in dir lives.
func NodeGroupPath(clusterDir, name string) string {
	return join(clusterDir, NodeGroupsDir, name+".yaml")
}

// RenderedPath is the folder of the compiled Cluster API objects of a cluster.
func RenderedPath(clusterDir string) string { return path.Join(clusterDir, RenderedDir) }

// ClusterClassDir is the folder of one rendered ClusterClass.
func ClusterClassDir(class string) string { return join(ClusterClassesDir, class) }

// QuotaPath is where a project's quota lives.
func QuotaPath(project string) string { return join(QuotasDir, project+".yaml") }

// IsClusterFile reports whether p is a cluster intent document, and returns
// its cluster folder.
func IsClusterFile(p string) (dir string, ok bool) {
	parts := strings.Split(p, "/")
	if len(parts) == 5 && parts[0] == ProjectsDir && parts[2] == "clusters" && parts[4] == ClusterFile {
		return path.Dir(p), true
	}
	return "", false
}

// ClusterDirOfPath returns the cluster folder that contains p, if any.
func ClusterDirOfPath(p string) (string, bool) {
	parts := strings.Split(p, "/")
	if len(parts) >= 5 && parts[0] == ProjectsDir && parts[2] == "clusters" {
		return path.Join(parts[:4]...), true
	}
	return "", false
}

// IsTemplateFile reports whether p is a cluster template document.
func IsTemplateFile(p string) bool {
	parts := strings.Split(p, "/")
	return len(parts) == 4 && parts[0] == ProjectsDir && parts[2] == "clustertemplates" && strings.HasSuffix(p, ".yaml")
}

// IsNodeGroupFile reports whether p is a nodegroup document.
func IsNodeGroupFile(p string) bool {
	parts := strings.Split(p, "/")
	return len(parts) == 6 && parts[0] == ProjectsDir && parts[2] == "clusters" && parts[4] == NodeGroupsDir && strings.HasSuffix(p, ".yaml")
}

// IsQuotaFile reports whether p is a quota document.
func IsQuotaFile(p string) bool {
	parts := strings.Split(p, "/")
	return len(parts) == 2 && parts[0] == QuotasDir && strings.HasSuffix(p, ".yaml")
}

// Marshal renders an intent document as YAML. Keys are sorted, so the same
// object always gives the same bytes. What it writes reads back as exactly
// v (ErrNoRoundTrip otherwise): a document in Git that means something else
// than what was asked (a label key "<<" read as YAML's merge key) would
// poison every later read of the object.
func Marshal(v any) ([]byte, error) {
	out, err := yaml.Marshal(v)
	if err != nil {
		return nil, err
	}
	out = quoteMergeKeys(out)
	if err := checkRoundTrip(v, out); err != nil {
		return nil, err
	}
	return out, nil
}

// ErrNoRoundTrip: a document's YAML would not read back as what was written.
var ErrNoRoundTrip = errors.New("the document would not read back from YAML as written")

// RoundTrips reports whether v survives Marshal and a read back.
func RoundTrips(v any) bool {
	_, err := Marshal(v)
	return err == nil
}

func checkRoundTrip(v any, out []byte) error {
	want, err := json.Marshal(v)
	if err != nil {
		return err
	}
	got, err := yaml.YAMLToJSON(out)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoRoundTrip, err)
	}
	var a, b any
	if json.Unmarshal(want, &a) != nil || json.Unmarshal(got, &b) != nil || !reflect.DeepEqual(a, b) {
		return ErrNoRoundTrip
	}
	return nil
}

// mergeKey is a plain "<<" mapping key, alone or as a list item's first
// key, as the YAML encoder writes it; plain, YAML reads it as a merge key.
var mergeKey = regexp.MustCompile(`^(\s*(?:- )*)<<:( |$)`)

// blockStart ends a line that opens a block scalar (`key: |-`, `- >`, `? |`).
var blockStart = regexp.MustCompile(`(^\s*|: |- |\? )[|>][-+]?[0-9]?$`)

// quoteMergeKeys quotes plain "<<" keys, outside block scalars (whose lines
// are content, not keys).
func quoteMergeKeys(out []byte) []byte {
	if !bytes.Contains(out, []byte("<<:")) {
		return out
	}
	lines := strings.SplitAfter(string(out), "\n")
	block := -1 // indentation of the key that opened a block scalar
	for i, l := range lines {
		indent := len(l) - len(strings.TrimLeft(l, " "))
		if block >= 0 && (indent > block || strings.TrimSpace(l) == "") {
			continue
		}
		block = -1
		lines[i] = mergeKey.ReplaceAllString(l, `$1"<<":$2`)
		if blockStart.MatchString(strings.TrimRight(l, "\n")) {
			block = indent
		}
	}
	return []byte(strings.Join(lines, ""))
}

// Unmarshal reads an intent document strictly: an unknown key is an error, so
// a typo in a hand-edited file is caught rather than silently dropped.
func Unmarshal(data []byte, v any) error {
	if err := yaml.UnmarshalStrict(data, v); err != nil {
		return err
	}
	return nil
}

// Decode reads the document at p and checks its kind.
func Decode[T any](p string, data []byte, kind string, v *T) error {
	var tm TypeMeta
	if err := yaml.Unmarshal(data, &tm); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if tm.APIVersion != APIVersion || tm.Kind != kind {
		return fmt.Errorf("%s: expected apiVersion %s kind %s, found %q %q", p, APIVersion, kind, tm.APIVersion, tm.Kind)
	}
	if err := Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// StackIDPrefix starts every generated stack id (kube-xxxxx, as the
// reference driver names CAPI Clusters: short enough that node names stay
// within 63 characters).
const StackIDPrefix = "kube-"

// StackIDLen is the length of a stack id.
const StackIDLen = len(StackIDPrefix) + 5

// StackIDOfDir returns the stack id at the end of a cluster folder's name
// (<name>-<stack_id>).
func StackIDOfDir(dir string) (string, bool) {
	base := path.Base(dir)
	if len(base) < StackIDLen+2 {
		return "", false
	}
	id := base[len(base)-StackIDLen:]
	if !strings.HasPrefix(id, StackIDPrefix) || base[len(base)-StackIDLen-1] != '-' {
		return "", false
	}
	return id, true
}

// ValidStackID reports whether id has keel's stack id form (kube- and 5
// lowercase letters or digits), which schemas/documents.cue requires.
func ValidStackID(id string) bool {
	if len(id) != StackIDLen || !strings.HasPrefix(id, StackIDPrefix) {
		return false
	}
	for _, r := range id[len(StackIDPrefix):] {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}
