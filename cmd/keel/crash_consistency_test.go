//go:build crash

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/mgmtcluster"
)

// Crash consistency of keel serve (on a management cluster of the test's
// own where nothing runs Cluster API: this is about the API, Git and the
// read model, and clusters need not progress): five times,
// 50 writers create, rename, resize and delete templates and clusters
// while keel is killed with SIGKILL at a random moment; after a restart on
// the same data dir every acknowledged write is in Git (its request id on
// exactly one commit) and in the API, every refused one made no commit, the
// writes in flight at the kill are either whole (in Git and the API) or
// absent, the repository passes git fsck and keel compile --check, and the
// read model (what the API lists) equals Git HEAD.
//
// Run it with hack/crash-consistency.sh (build tag crash).
func TestCrashConsistency(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "keel")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "data")
	mgmt, err := mgmtcluster.Start(context.Background(), mgmtcluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mgmt.Stop() })
	kubeconfig := filepath.Join(dir, "management.kubeconfig")
	if err := mgmt.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatal(err)
	}
	world := newCrashWorld()
	k := startCrashServe(t, bin, data, kubeconfig)
	for run := 1; run <= 5; run++ {
		res := world.run(t, k.url, run)
		_ = k.cmd.Process.Signal(syscall.SIGKILL)
		_ = k.cmd.Wait()
		res.wait() // every writer has its answer or its error
		k = startCrashServe(t, bin, data, kubeconfig)
		world.verify(t, k.url, data, bin, run, res)
	}
	k.stop(t)
}

// --- keel serve ---

type crashServe struct {
	cmd *exec.Cmd
	url string
}

func startCrashServe(t *testing.T, bin, data, kubeconfig string) *crashServe {
	t.Helper()
	cmd, url := launchServe(t, bin, "serve", "--data-dir", data, "--listen", "127.0.0.1:0", "--kubeconfig", kubeconfig,
		"--auth", "noauth", "--openstack-lookups", "given", "--max-clusters-per-project", "100000", "--log-level", "warn")
	return &crashServe{cmd: cmd, url: url}
}

func (k *crashServe) stop(t *testing.T) {
	_ = k.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- k.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("keel serve exited with %v after SIGTERM", err)
		}
	case <-time.After(90 * time.Second):
		_ = k.cmd.Process.Kill()
		t.Error("keel serve did not stop within 90 s of SIGTERM")
	}
}

// --- writers ---

const crashProject, crashWriters = "crash", 50

// crashObject is what a writer knows of one of its objects.
type crashObject struct {
	kind    string // "template" or "cluster"
	uuid    string // once a create is acknowledged
	name    string // templates: current name; clusters: the name
	nodes   int64  // clusters
	deleted bool
	tmpl    string // clusters: template uuid
}

// crashOp is one write and how it ended.
type crashOp struct {
	writer     int
	what       string // create-template, rename-template, delete-template, create-cluster, resize-cluster, delete-cluster
	obj        *crashObject
	after      crashObject // the object if the write is applied
	status     int         // 0: no answer (in flight at the kill)
	requestID  string
	answerBody string
}

type crashWorld struct {
	mu      sync.Mutex
	objects [crashWriters][]*crashObject
	seq     int
	commits int // commits with a request id at the last verification
}

func newCrashWorld() *crashWorld { return &crashWorld{} }

type crashRun struct {
	wg  sync.WaitGroup
	mu  sync.Mutex
	ops []*crashOp
}

func (r *crashRun) wait() { r.wg.Wait() }

func (w *crashWorld) name(kind string, writer int) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	return fmt.Sprintf("w%d-%s%d", writer, kind, w.seq)
}

// run starts the writers; they stop at their first transport error (the
// kill). It returns once keel should be killed: after a random 5-10 s.
func (w *crashWorld) run(t *testing.T, url string, runNo int) *crashRun {
	res := &crashRun{}
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: crashWriters}}
	for g := 0; g < crashWriters; g++ {
		res.wg.Add(1)
		go func(g int) {
			defer res.wg.Done()
			rng := rand.New(rand.NewPCG(uint64(runNo), uint64(g)))
			for {
				op := w.next(g, rng)
				res.mu.Lock()
				res.ops = append(res.ops, op)
				res.mu.Unlock()
				if !w.send(client, url, op) {
					return // keel is gone
				}
			}
		}(g)
	}
	time.Sleep(time.Duration(5000+rand.IntN(5000)) * time.Millisecond)
	return res
}

// next picks a writer's next write on its own objects.
func (w *crashWorld) next(g int, rng *rand.Rand) *crashOp {
	var live []*crashObject
	for _, o := range w.objects[g] {
		if !o.deleted && o.uuid != "" {
			live = append(live, o)
		}
	}
	pick := func(kind string, ok func(*crashObject) bool) *crashObject {
		var c []*crashObject
		for _, o := range live {
			if o.kind == kind && (ok == nil || ok(o)) {
				c = append(c, o)
			}
		}
		if len(c) == 0 {
			return nil
		}
		return c[rng.IntN(len(c))]
	}
	inUse := func(t *crashObject) bool {
		for _, o := range w.objects[g] {
			if o.kind == "cluster" && o.tmpl == t.uuid && !(o.deleted && o.uuid != "") {
				return true
			}
		}
		return false
	}
	switch rng.IntN(6) {
	case 1:
		if t := pick("template", nil); t != nil {
			after := *t
			after.name = w.name("t", g)
			return &crashOp{writer: g, what: "rename-template", obj: t, after: after}
		}
	case 2:
		if t := pick("template", func(o *crashObject) bool { return !inUse(o) }); t != nil {
			after := *t
			after.deleted = true
			return &crashOp{writer: g, what: "delete-template", obj: t, after: after}
		}
	case 3:
		if t := pick("template", nil); t != nil {
			o := &crashObject{kind: "cluster", name: w.name("c", g), nodes: 1, tmpl: t.uuid}
			w.objects[g] = append(w.objects[g], o)
			return &crashOp{writer: g, what: "create-cluster", obj: o, after: *o}
		}
	case 4:
		if c := pick("cluster", nil); c != nil {
			after := *c
			after.nodes = 1 + (c.nodes % 3) // always another count
			return &crashOp{writer: g, what: "resize-cluster", obj: c, after: after}
		}
	case 5:
		if c := pick("cluster", nil); c != nil {
			after := *c
			after.deleted = true
			return &crashOp{writer: g, what: "delete-cluster", obj: c, after: after}
		}
	}
	o := &crashObject{kind: "template", name: w.name("t", g)}
	w.objects[g] = append(w.objects[g], o)
	return &crashOp{writer: g, what: "create-template", obj: o, after: *o}
}

// send makes the request; false when keel did not answer.
func (w *crashWorld) send(client *http.Client, url string, op *crashOp) bool {
	var method, p string
	var body any
	switch op.what {
	case "create-template":
		method, p = "POST", "/v1/clustertemplates"
		body = map[string]any{"name": op.obj.name, "coe": "kubernetes", "image_id": "img", "flavor_id": "m1", "master_flavor_id": "m1",
			"external_network_id": "public", "labels": map[string]string{"kube_tag": "v1.33.4"}}
	case "rename-template":
		method, p = "PATCH", "/v1/clustertemplates/"+op.obj.uuid
		body = []map[string]any{{"op": "replace", "path": "/name", "value": op.after.name}}
	case "delete-template":
		method, p = "DELETE", "/v1/clustertemplates/"+op.obj.uuid
	case "create-cluster":
		method, p = "POST", "/v1/clusters"
		body = map[string]any{"name": op.obj.name, "cluster_template_id": op.obj.tmpl, "master_count": 1, "node_count": 1}
	case "resize-cluster":
		method, p = "PATCH", "/v1/clusters/"+op.obj.uuid
		body = []map[string]any{{"op": "replace", "path": "/node_count", "value": op.after.nodes}}
	case "delete-cluster":
		method, p = "DELETE", "/v1/clusters/"+op.obj.uuid
	}
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, url+p, rd)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Project-Id", crashProject)
	req.Header.Set("X-User-Id", fmt.Sprintf("writer-%d", op.writer))
	req.Header.Set("X-Roles", "member,reader")
	req.Header.Set("OpenStack-API-Version", "container-infra 1.10")
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return false // the answer was cut: not acknowledged
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	op.status, op.requestID, op.answerBody = resp.StatusCode, resp.Header.Get("x-openstack-request-id"), string(data)
	if resp.StatusCode/100 == 2 {
		if strings.HasPrefix(op.what, "create-") {
			var out struct {
				UUID string `json:"uuid"`
			}
			_ = json.Unmarshal(data, &out)
			op.obj.uuid, op.after.uuid = out.UUID, out.UUID
		}
		*op.obj = op.after
	}
	return true
}

// --- verification ---

type crashFigures struct {
	acked, inGit, inAPI, refused, refusedCommitted, inFlight, inFlightApplied, halfApplied int
	commits, expectedCommits                                                               int
	readModelEqualsHead                                                                    bool
}

func (w *crashWorld) verify(t *testing.T, url, data, bin string, runNo int, res *crashRun) {
	t.Helper()
	fg := crashFigures{}
	gitDir := filepath.Join(data, "repo.git")
	// The repository is whole, and its rendered output is current.
	if out, err := exec.Command("git", "--git-dir", gitDir, "fsck", "--no-dangling").CombinedOutput(); err != nil {
		t.Errorf("run %d: git fsck: %v\n%s", runNo, err, out)
	}
	if out, err := exec.Command(bin, "compile", "--check", "--repo", gitDir).CombinedOutput(); err != nil {
		t.Errorf("run %d: keel compile --check: %v\n%s", runNo, err, out)
	}
	ids := commitRequestIDs(t, gitDir)
	total := 0
	for id, n := range ids {
		total += n
		if n > 1 {
			t.Errorf("run %d: request %s is on %d commits", runNo, id, n)
		}
	}
	fg.commits, w.commits = total-w.commits, total
	api := &crashAPI{t: t, url: url}

	// The writes in flight at the kill: whole or absent.
	for _, op := range res.ops {
		if op.status != 0 {
			continue
		}
		fg.inFlight++
		after, before := op.after, *op.obj
		if strings.HasPrefix(op.what, "create-") {
			before = crashObject{kind: op.obj.kind, name: op.obj.name, deleted: true}
		}
		switch uuid, ok := api.shows(after); {
		case ok:
			fg.inFlightApplied++
			after.uuid = uuid
			*op.obj = after // the next run goes on from what keel has
		case api.ok(before):
			*op.obj = before
		default:
			fg.halfApplied++
			t.Errorf("run %d: %s %s in flight at the kill is neither applied nor absent", runNo, op.what, op.after.name)
			*op.obj = crashObject{kind: op.obj.kind, deleted: true} // out of the game
		}
	}
	// Every object is as its acknowledged (or applied) writes left it.
	okObj := map[*crashObject]bool{}
	for g := range w.objects {
		for _, o := range w.objects[g] {
			if o.uuid == "" && o.deleted {
				continue // never created
			}
			if okObj[o] = api.ok(*o); !okObj[o] {
				t.Errorf("run %d: the API does not show %s %s (%s) as written: want %+v", runNo, o.kind, o.name, o.uuid, *o)
			}
		}
	}
	for _, op := range res.ops {
		switch {
		case op.status/100 == 2:
			fg.acked++
			if ids[op.requestID] == 1 {
				fg.inGit++
			} else {
				t.Errorf("run %d: acknowledged %s %s (request %s) is on %d commits", runNo, op.what, op.after.name, op.requestID, ids[op.requestID])
			}
			if okObj[op.obj] {
				fg.inAPI++
			}
		case op.status != 0:
			fg.refused++
			if op.requestID == "" || ids[op.requestID] != 0 {
				fg.refusedCommitted++
				t.Errorf("run %d: refused %s %s (%d %s) made a commit", runNo, op.what, op.after.name, op.status, op.answerBody)
			}
		}
	}
	// Every commit of the run is an acknowledged write or an applied one
	// in flight: nothing else moved HEAD.
	fg.expectedCommits = fg.acked + fg.inFlightApplied
	if fg.commits != fg.expectedCommits {
		t.Errorf("run %d: %d commits, want %d (acknowledged %d + applied in flight %d)", runNo, fg.commits, fg.expectedCommits, fg.acked, fg.inFlightApplied)
	}
	store, err := gitstore.Open(gitDir)
	if err != nil {
		t.Fatal(err)
	}
	fg.readModelEqualsHead = api.equalsHead(store)
	if !fg.readModelEqualsHead {
		t.Errorf("run %d: the read model differs from Git HEAD", runNo)
	}
	t.Logf("run %d: acknowledged writes %d, in Git %d, in the API %d; refused %d (committed %d); in flight at the kill %d (applied %d, half-applied %d); commits %d (expected %d); read model == HEAD: %v",
		runNo, fg.acked, fg.inGit, fg.inAPI, fg.refused, fg.refusedCommitted, fg.inFlight, fg.inFlightApplied, fg.halfApplied, fg.commits, fg.expectedCommits, fg.readModelEqualsHead)
}

// commitRequestIDs counts the commits of the repository's branch per
// Keel-Request-Id (commits without one, the repository's first, are not
// API writes).
func commitRequestIDs(t *testing.T, gitDir string) map[string]int {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", gitDir, "log", "--format=%(trailers:key=Keel-Request-Id,valueonly)").Output()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			ids[l]++
		}
	}
	return ids
}

type crashAPI struct {
	t   *testing.T
	url string
}

func (a *crashAPI) get(p string, out any) int {
	a.t.Helper()
	req, _ := http.NewRequest("GET", a.url+p, nil)
	req.Header.Set("X-Project-Id", crashProject)
	req.Header.Set("X-User-Id", "checker")
	req.Header.Set("X-Roles", "reader")
	req.Header.Set("OpenStack-API-Version", "container-infra 1.10")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK && out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			a.t.Fatalf("GET %s: %v", p, err)
		}
	}
	return resp.StatusCode
}

type crashView struct {
	UUID      string `json:"uuid"`
	Name      string `json:"name"`
	NodeCount int64  `json:"node_count"`
	Status    string `json:"status"`
}

func (a *crashAPI) ok(o crashObject) bool { _, ok := a.shows(o); return ok }

// shows reports whether the API shows o (deleted: does not show it), and
// o's uuid when it does.
func (a *crashAPI) shows(o crashObject) (string, bool) {
	ident := o.uuid
	if ident == "" {
		ident = o.name
	}
	var v crashView
	code := a.get("/v1/"+map[string]string{"template": "clustertemplates", "cluster": "clusters"}[o.kind]+"/"+ident, &v)
	gone := code == http.StatusNotFound || (o.kind == "cluster" && code == http.StatusOK && strings.HasPrefix(v.Status, "DELETE"))
	if o.deleted {
		return "", gone
	}
	if code != http.StatusOK || gone || v.Name != o.name || (o.kind == "cluster" && v.NodeCount != o.nodes) {
		return "", false
	}
	return v.UUID, true
}

// equalsHead compares what the API lists (the read model) with the
// project's templates and clusters at Git HEAD.
func (a *crashAPI) equalsHead(store *gitstore.Store) bool {
	a.t.Helper()
	sn, err := store.SnapshotHead()
	if err != nil {
		a.t.Fatal(err)
	}
	inGit := map[string]string{}
	files, _ := sn.List(path.Join(intent.ProjectsDir, crashProject, "clustertemplates"))
	for _, f := range files {
		tm, err := intent.ReadTemplate(sn, path.Join(intent.ProjectsDir, crashProject, "clustertemplates", f.Name))
		if err != nil {
			a.t.Fatal(err)
		}
		inGit["template "+tm.UUID] = tm.Name
	}
	dirs, err := intent.ClusterDirs(sn)
	if err != nil {
		a.t.Fatal(err)
	}
	for _, d := range dirs {
		st, err := intent.ReadCluster(sn, d)
		if err != nil {
			a.t.Fatal(err)
		}
		var nodes int64
		for _, ng := range st.NodeGroups {
			if ng.Role != intent.RoleMaster {
				nodes += ng.NodeCount
			}
		}
		inGit["cluster "+st.Cluster.UUID] = fmt.Sprintf("%s %d", st.Cluster.Name, nodes)
	}
	listed := map[string]string{}
	var ts struct {
		Items []crashView `json:"clustertemplates"`
	}
	a.get("/v1/clustertemplates?limit=1000", &ts)
	for _, v := range ts.Items {
		listed["template "+v.UUID] = v.Name
	}
	var cs struct {
		Items []crashView `json:"clusters"`
	}
	a.get("/v1/clusters?limit=1000", &cs)
	for _, v := range cs.Items {
		if !strings.HasPrefix(v.Status, "DELETE") {
			listed["cluster "+v.UUID] = fmt.Sprintf("%s %d", v.Name, v.NodeCount)
		}
	}
	same := len(listed) == len(inGit)
	for k, v := range inGit {
		if listed[k] != v {
			a.t.Logf("at HEAD %s is %q, the API lists %q", k, v, listed[k])
			same = false
		}
	}
	for k, v := range listed {
		if _, ok := inGit[k]; !ok {
			a.t.Logf("the API lists %s %q, not at HEAD", k, v)
			same = false
		}
	}
	return same
}
