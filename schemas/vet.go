package schemas

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/intent"
)

// DefaultSiteFile is where a cluster repository keeps its site narrowing.
const DefaultSiteFile = "site.cue"

// VetOptions tune Vet.
type VetOptions struct {
	// Strict refuses labels outside the catalogue (see ValidateOptions).
	Strict bool
	// Allow lists label names or prefixes* strict mode accepts anyway.
	Allow []string
	// SiteFile is the site narrowing file, relative to the repository root;
	// empty means site.cue. A missing file means no narrowing.
	SiteFile string
}

// Vet validates every intent document of a keel cluster repository:
//
//	projects/<project>/clustertemplates/<uuid>.yaml
//	projects/<project>/clusters/<name>-<stack_id>/cluster.yaml
//	projects/<project>/clusters/<name>-<stack_id>/nodegroups/<name>.yaml
//	quotas/<project>.yaml
//
// against the schema narrowed by the repository's site file, and checks that
// each document sits where its fields say it should and that references
// between documents resolve. Fields of violations and warnings are prefixed
// with the file path (projects/p/.../cluster.yaml:labels.kube_tag). The error
// is for problems that stop the check (an unreadable repository, a bad site
// file), not for invalid documents.
func Vet(root string, o VetOptions) (violations []Violation, warnings []Warning, err error) {
	c, err := Load()
	if err != nil {
		return nil, nil, err
	}
	site := o.SiteFile
	if site == "" {
		site = DefaultSiteFile
	}
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(site)))
	switch {
	case err == nil:
		if c, err = c.WithSite(src); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", site, err)
		}
	case !errors.Is(err, fs.ErrNotExist) || o.SiteFile != "":
		return nil, nil, err
	}

	files, err := intentFiles(root)
	if err != nil {
		return nil, nil, err
	}
	v := &vetRun{c: c, o: o, templates: map[string]string{}, clusters: map[string]vetCluster{}}
	for _, f := range files {
		v.file(root, f)
	}
	v.crossChecks()
	sortViolations(v.vs)
	return v.vs, v.ws, nil
}

// intentFiles lists the YAML/JSON files under projects/ and quotas/, as
// slash paths relative to root, skipping rendered output.
func intentFiles(root string) ([]string, error) {
	var out []string
	for _, top := range []string{intent.ProjectsDir, intent.QuotasDir} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && p == filepath.Join(root, top) {
					return fs.SkipDir
				}
				return err
			}
			if d.IsDir() {
				if d.Name() == intent.RenderedDir || strings.HasPrefix(d.Name(), ".") {
					return fs.SkipDir
				}
				return nil
			}
			switch filepath.Ext(p) {
			case ".yaml", ".yml", ".json":
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

type vetCluster struct {
	file       string
	uuid       string
	project    string
	templateID string
	// imported: a read-only record of keel import, whose template may
	// be a Heat-era one the import left out by design (docs/migration.md).
	imported   bool
	nodegroups map[string]bool
}

type vetRun struct {
	c         *Catalogue
	o         VetOptions
	vs        []Violation
	ws        []Warning
	templates map[string]string     // uuid → file
	clusters  map[string]vetCluster // cluster dir → cluster
	ngs       []vetNodeGroup
}

type vetNodeGroup struct {
	file, dir, clusterID, project string
}

// header is the part of a document Vet's own checks read.
type header struct {
	Kind       string            `json:"kind"`
	UUID       string            `json:"uuid"`
	Name       string            `json:"name"`
	ProjectID  string            `json:"project_id"`
	ClusterID  string            `json:"cluster_id"`
	TemplateID string            `json:"cluster_template_id"`
	StackID    string            `json:"stack_id"`
	Labels     map[string]string `json:"labels"`
	Imported   *struct{}         `json:"imported"`
}

func (v *vetRun) violation(file, field, value, msg string) {
	v.vs = append(v.vs, Violation{Field: file + ":" + field, Value: value, Message: msg})
}

func (v *vetRun) file(root, rel string) {
	kind := intent.KindOf(rel)
	if kind == "" && isClusterSecret(rel) {
		return // keel's SOPS-encrypted key material, checked when decrypted
	}
	if kind == "" {
		v.ws = append(v.ws, Warning{Field: rel, Message: "not a keel document location; not validated"})
		return
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		v.violation(rel, "", "", "unreadable: "+err.Error())
		return
	}
	found := v.c.ValidateDocument(kind, data)
	for _, x := range found {
		x.Field = rel + ":" + x.Field
		v.vs = append(v.vs, x)
	}
	var h header
	if err := yaml.Unmarshal(data, &h); err != nil {
		return // already reported by ValidateDocument
	}
	bad := map[string]bool{}
	for _, x := range found {
		field := strings.TrimPrefix(x.Field, rel+":")
		bad[strings.SplitN(field, ".", 2)[0]] = true
	}
	if scope, ok := kindScope[kind]; ok {
		more, ws := v.c.labelFindings(rel+":labels", scope, h.Labels, ValidateOptions{Strict: v.o.Strict, Allow: v.o.Allow}, prefixed(rel, found))
		v.vs = append(v.vs, more...)
		v.ws = append(v.ws, ws...)
	}

	parts := strings.Split(rel, "/")
	check := func(field, got, want, why string) {
		if !bad[field] && got != want {
			v.violation(rel, field, got, fmt.Sprintf("must be %q: %s", want, why))
		}
	}
	switch kind {
	case intent.KindClusterTemplate:
		check("uuid", h.UUID, strings.TrimSuffix(parts[3], path.Ext(parts[3])), "a template file is named after its uuid")
		check("project_id", h.ProjectID, parts[1], "the document is in that project's folder")
		if !bad["uuid"] {
			v.templates[h.UUID] = rel
		}
	case intent.KindCluster:
		check("project_id", h.ProjectID, parts[1], "the document is in that project's folder")
		if !bad["name"] && !bad["stack_id"] && parts[3] != h.Name+"-"+h.StackID {
			v.violation(rel, "name", h.Name, fmt.Sprintf("the cluster folder %q must be <name>-<stack_id> = %q", parts[3], h.Name+"-"+h.StackID))
		}
		ngs := v.clusters[path.Dir(rel)].nodegroups // names seen before the cluster file
		if ngs == nil {
			ngs = map[string]bool{}
		}
		v.clusters[path.Dir(rel)] = vetCluster{file: rel, uuid: h.UUID, project: h.ProjectID, templateID: h.TemplateID,
			imported: h.Imported != nil, nodegroups: ngs}
	case intent.KindNodeGroup:
		check("name", h.Name, strings.TrimSuffix(parts[5], path.Ext(parts[5])), "a nodegroup file is named after the nodegroup")
		check("project_id", h.ProjectID, parts[1], "the document is in that project's folder")
		v.ngs = append(v.ngs, vetNodeGroup{file: rel, dir: path.Join(parts[:4]...), clusterID: h.ClusterID, project: h.ProjectID})
		if !bad["name"] {
			v.ngNames(path.Join(parts[:4]...), h.Name)
		}
	case intent.KindQuota:
		check("project_id", h.ProjectID, strings.TrimSuffix(parts[1], path.Ext(parts[1])), "a quota file is named after its project")
	}
}

func prefixed(rel string, vs []Violation) []Violation {
	out := make([]Violation, len(vs))
	for i, x := range vs {
		x.Field = rel + ":" + x.Field
		out[i] = x
	}
	return out
}

// ngNames records a nodegroup name for its cluster folder, in a pending
// entry when the cluster file has not been read yet.
func (v *vetRun) ngNames(dir, name string) {
	cl, ok := v.clusters[dir]
	if !ok {
		cl = vetCluster{nodegroups: map[string]bool{}}
	}
	cl.nodegroups[name] = true
	v.clusters[dir] = cl
}

func (v *vetRun) crossChecks() {
	for _, ng := range v.ngs {
		cl, ok := v.clusters[ng.dir]
		if !ok || cl.file == "" {
			v.violation(ng.file, "cluster_id", ng.clusterID, "no cluster.yaml in "+ng.dir)
			continue
		}
		if cl.uuid != "" && ng.clusterID != cl.uuid {
			v.violation(ng.file, "cluster_id", ng.clusterID, fmt.Sprintf("must be %q, the uuid of %s", cl.uuid, cl.file))
		}
	}
	for dir, cl := range v.clusters {
		if cl.file == "" {
			continue
		}
		if cl.templateID != "" && !cl.imported {
			if _, ok := v.templates[cl.templateID]; !ok {
				v.violation(cl.file, "cluster_template_id", cl.templateID, "no cluster template with this uuid in the repository")
			}
		}
		for _, name := range []string{intent.DefaultMasterNodeGroup, intent.DefaultWorkerNodeGroup} {
			if !cl.nodegroups[name] {
				v.ws = append(v.ws, Warning{Field: cl.file, Message: fmt.Sprintf("no %s nodegroup in %s", name, path.Join(dir, intent.NodeGroupsDir))})
			}
		}
	}
}

// isClusterSecret reports whether rel is an encrypted document in a
// cluster folder's secrets/ (its CAs, its application credential).
func isClusterSecret(rel string) bool {
	dir, ok := intent.ClusterDirOfPath(rel)
	return ok && path.Dir(rel) == path.Join(dir, intent.SecretsDir) && strings.HasSuffix(rel, ".sops.yaml")
}
