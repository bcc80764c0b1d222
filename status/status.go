// Package status turns what keel knows of a cluster (the operation of its
// latest commit, whether the reconciler applied it, and what Cluster API
// reports) into Magnum's status, status_reason and health. It is pure, so
// every rule is a table test.
package status

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/openkeel/keel/intent"
)

// Magnum statuses.
const (
	CreateInProgress = "CREATE_IN_PROGRESS"
	CreateComplete   = "CREATE_COMPLETE"
	CreateFailed     = "CREATE_FAILED"
	UpdateInProgress = "UPDATE_IN_PROGRESS"
	UpdateComplete   = "UPDATE_COMPLETE"
	UpdateFailed     = "UPDATE_FAILED"
	DeleteInProgress = "DELETE_IN_PROGRESS"
	DeleteComplete   = "DELETE_COMPLETE"
	DeleteFailed     = "DELETE_FAILED"
)

// Health statuses.
const (
	Healthy   = "HEALTHY"
	Unhealthy = "UNHEALTHY"
	Unknown   = "UNKNOWN"
)

// Operations recorded in commit trailers (Keel-Operation).
const (
	OpCreate = "create"
	OpUpdate = "update"
	OpDelete = "delete"
	// An update that resizes a nodegroup or upgrades the cluster: the
	// status rules treat them as updates; site.review names them apart.
	OpResize  = "resize"
	OpUpgrade = "upgrade"
	// PATCH /v1/credentials: a new application credential for the
	// cluster. An update to the status rules; never a review's (the
	// credential exists in Keystone before the commit, and an unmerged
	// pull request would leave it there, unused).
	OpRotateCredential = "rotate-credential"
	// PATCH /v1/certificates and the phases that follow it: a phase of a
	// CA rotation (intent.CARotation). An update to the status rules;
	// never a review's (each phase waits for the last to roll out).
	OpRotateCA = "rotate-ca"
	// keel compile's commit of re-rendered output.
	OpCompile = "compile"
	// keel import's commit of objects read from Magnum's database.
	OpImport = "import"
)

// Observation is what the management cluster shows of one CAPI Cluster.
type Observation struct {
	Exists                bool `json:"exists"`
	Deleting              bool `json:"deleting,omitempty"`
	Available             bool `json:"available"`
	ControlPlaneAvailable bool `json:"control_plane_available"`
	InfrastructureReady   bool `json:"infrastructure_ready"`
	// Reason is the most specific cause a condition gives (a Machine's
	// before a Cluster condition's summary); it explains why the cluster is
	// not available or its counts are not settled, and beats Events.
	Reason string `json:"reason,omitempty"`
	// Failure is a terminal failure reported by Cluster API or CAPO.
	Failure string `json:"failure,omitempty"`
	// Events are the newest Warning Events of the cluster's objects, one per
	// specificity rank (CompactEvents): the last-resort cause, used only
	// when no condition says why (EventCause).
	Events []Event `json:"events,omitempty"`

	APIAddress      string   `json:"api_address,omitempty"`
	COEVersion      string   `json:"coe_version,omitempty"`
	MasterAddresses []string `json:"master_addresses,omitempty"`
	NodeAddresses   []string `json:"node_addresses,omitempty"`

	ControlPlane Replicas            `json:"control_plane"`
	NodeGroups   map[string]Replicas `json:"node_groups,omitempty"`

	Health       string            `json:"health,omitempty"`
	HealthReason map[string]string `json:"health_reason,omitempty"`

	// Generation is the CAPI Cluster's metadata.generation;
	// TopologyGeneration the generation Cluster API's topology controller
	// last reconciled successfully (the observedGeneration of a True
	// TopologyReconciled condition), and TopologyReason why it is not True.
	// Until the topology controller has reconciled the Cluster's latest
	// spec, the KubeadmControlPlane and MachineDeployments still carry the
	// previous one, and their counts say nothing of the change (an image
	// change keeps every count "ready and up to date" until then).
	Generation         int64  `json:"generation,omitempty"`
	TopologyGeneration int64  `json:"topology_generation,omitempty"`
	TopologyReason     string `json:"topology_reason,omitempty"`

	ObservedAt time.Time `json:"observed_at"`
}

// Replicas are the counts of a KubeadmControlPlane or MachineDeployment.
type Replicas struct {
	Desired   int64    `json:"desired"`
	Current   int64    `json:"current"`
	Ready     int64    `json:"ready"`
	UpToDate  int64    `json:"up_to_date"`
	Exists    bool     `json:"exists"`
	Addresses []string `json:"addresses,omitempty"`
	// Stale: the controller has not yet observed the object's latest
	// generation (status.observedGeneration < metadata.generation), so the
	// counts above describe the previous spec.
	Stale bool `json:"stale,omitempty"`
	// Deleting counts the set's Machines being deleted (deletionTimestamp
	// set). Cluster API's counts leave them out ("non-terminated
	// machines"), but they are still servers, draining or going away, and
	// still in node_addresses: a scale-down or rollout is not over before
	// they are gone.
	Deleting int64 `json:"deleting,omitempty"`
	// SpecVersion is the Kubernetes version the object asks for
	// (KubeadmControlPlane spec.version, MachineDeployment
	// spec.template.spec.version); MachineVersions the versions its Machines
	// run (Machine spec.version), sorted, each once.
	SpecVersion     string   `json:"spec_version,omitempty"`
	MachineVersions []string `json:"machine_versions,omitempty"`
}

// Settled reports whether a set of machines reached its desired count with
// every machine ready and up to date, and, when version is set, whether the
// set asks for that Kubernetes version and every machine runs it. Counts
// alone are not enough: right after an upgrade is applied they still
// describe the old machines, all ready and up to date with the old spec.
func (r Replicas) Settled(want int64, version string) bool {
	if !r.Exists || r.Stale || r.Deleting > 0 || r.Desired != want || r.Current != want || r.Ready != want || r.UpToDate != want {
		return false
	}
	return version == "" || (sameVersion(r.SpecVersion, version) && r.runs(version))
}

// runs reports whether every machine of the set runs version.
func (r Replicas) runs(version string) bool {
	for _, v := range r.MachineVersions {
		if !sameVersion(v, version) {
			return false
		}
	}
	return true
}

func sameVersion(a, b string) bool { return strings.TrimPrefix(a, "v") == strings.TrimPrefix(b, "v") }

// Input is everything Derive needs for one cluster.
type Input struct {
	// Operation of the latest commit that changed the cluster.
	Operation string
	// InGit is false once the cluster's folder left Git.
	InGit bool
	// DesiredRevision is the commit that last changed the cluster's folder;
	// AppliedRevision the commit the reconciler last applied for it, and
	// ApplyError the error of the last attempt (empty when it succeeded).
	DesiredRevision, AppliedRevision, ApplyError string
	// ApplyStalled marks ApplyError as a change that will not be retried.
	ApplyStalled bool
	// AppliedGeneration is the CAPI Cluster's metadata.generation right
	// after the reconciler applied AppliedRevision (0: unknown). An
	// observation of an older generation predates the apply: its counts
	// describe the previous spec.
	AppliedGeneration int64
	// CompletedRevision is the revision whose operation already completed.
	CompletedRevision string
	// DeletingReason is set by the reconciler while a teardown waits.
	DeletingReason string
	// DeleteFailed: the teardown gave up a step (DeletingReason says
	// which); the reconciler retries it.
	DeleteFailed bool
	// RetiringReason is what a credential rotation still waits for (the
	// workload cluster's consumers moving to the new credential, the old
	// one's deletion); the operation is not complete before it is "".
	RetiringReason string
	// Expected counts and Kubernetes version (kube_tag; empty: not checked)
	// from the intent.
	KubeVersion string
	MasterCount int64
	NodeGroups  map[string]int64 // worker nodegroup → node_count (-1: autoscaled)
	// StartedAt is when the operation began (commit time); Deadline the
	// time allowed (create_timeout for creates).
	StartedAt time.Time
	Deadline  time.Duration
	Now       time.Time

	Observed *Observation

	// Imported is set for a read-only record imported from Magnum's
	// database: keel does not manage the cluster, so its status is the
	// one Magnum had, whatever the commit's operation (an import is
	// never an operation in progress).
	Imported *intent.Imported
	// AdoptedStatus is Magnum's status of a cluster keel adopted
	// (intent.Adopted): until keel's first operation on it, the import is
	// the cluster's last operation, and it keeps Magnum's CREATE or UPDATE.
	AdoptedStatus string
	// CARotation is where the cluster's CA rotation stands, from its
	// intent; read with Operation OpRotateCA.
	CARotation *intent.CARotation
}

// Result is the Magnum view.
type Result struct {
	Status       string
	StatusReason string
	// Advance is set while a CA rotation is in progress and its committed
	// phase rolled out everywhere: its next phase is due (the status stays
	// UPDATE_IN_PROGRESS until the last phase rolled out).
	Advance bool `json:"-"`
}

// Derive computes the cluster status.
func Derive(in Input) Result {
	r := derive(in)
	if in.Operation != OpRotateCA || in.CARotation == nil || !strings.HasPrefix(r.Status, "UPDATE_") {
		return r
	}
	return caRotationResult(in.CARotation, r)
}

// caPhaseAims say what each phase of a CA rotation does.
var caPhaseAims = map[string]string{
	intent.CAPhaseTrust:  "every machine trusts the old and the new CA",
	intent.CAPhaseSign:   "the new CA signs",
	intent.CAPhaseFinish: "the old CA is dropped",
}

// caRotationResult names the phase of a CA rotation in its status: a
// phase that rolled out everywhere is not the end of the operation, only
// the last one is (Advance: the next phase is due).
func caRotationResult(rot *intent.CARotation, r Result) Result {
	phase := fmt.Sprintf("Rotating the certificate authority, phase %d of %d (%s)", rot.PhaseNumber(), len(intent.CAPhases), caPhaseAims[rot.Phase])
	switch {
	case r.Status == UpdateComplete && rot.InProgress():
		next := &intent.CARotation{Generation: rot.Generation, Phase: rot.Next()}
		return Result{Status: UpdateInProgress, Advance: true, StatusReason: fmt.Sprintf(
			"%s: rolled out to every machine; phase %d (%s) is committed next", phase, next.PhaseNumber(), caPhaseAims[next.Phase])}
	case r.Status == UpdateComplete:
		return r
	case r.StatusReason == "":
		r.StatusReason = phase
	default:
		r.StatusReason = phase + ": " + r.StatusReason
	}
	return r
}

func derive(in Input) Result {
	if !in.InGit || in.Operation == OpDelete {
		if in.DeleteFailed {
			return Result{Status: DeleteFailed, StatusReason: in.DeletingReason}
		}
		if in.Observed != nil && in.Observed.Exists {
			return Result{Status: DeleteInProgress, StatusReason: firstNonBlank(in.DeletingReason, "Deleting the Cluster API cluster")}
		}
		if in.DeletingReason != "" {
			return Result{Status: DeleteInProgress, StatusReason: in.DeletingReason}
		}
		return Result{Status: DeleteComplete, StatusReason: ""}
	}
	if in.Imported != nil {
		return Result{Status: in.Imported.Status, StatusReason: in.Imported.Reason}
	}
	prefix := "UPDATE"
	if in.Operation == OpCreate || (in.Operation == OpImport && strings.HasPrefix(in.AdoptedStatus, "CREATE")) {
		prefix = "CREATE"
	}
	if in.CompletedRevision != "" && in.CompletedRevision == in.DesiredRevision {
		return Result{Status: prefix + "_COMPLETE", StatusReason: ""}
	}
	inProgress := func(reason string) Result {
		if in.Deadline > 0 && !in.StartedAt.IsZero() && in.Now.Sub(in.StartedAt) > in.Deadline {
			why := "timed out after " + in.Deadline.String()
			if reason != "" {
				why += ": " + reason
			}
			return Result{Status: prefix + "_FAILED", StatusReason: why}
		}
		return Result{Status: prefix + "_IN_PROGRESS", StatusReason: reason}
	}
	if in.AppliedRevision != in.DesiredRevision {
		if in.ApplyStalled {
			return Result{Status: prefix + "_FAILED", StatusReason: in.ApplyError}
		}
		if in.ApplyError != "" {
			return inProgress("Applying to the management cluster failed and is retried: " + in.ApplyError)
		}
		return inProgress("Applying revision " + intent.ShortRevision(in.DesiredRevision) + " to the management cluster")
	}
	o := in.Observed
	if o == nil || !o.Exists {
		return inProgress("Waiting for the Cluster API cluster to appear")
	}
	if o.Failure != "" {
		return Result{Status: prefix + "_FAILED", StatusReason: o.Failure}
	}
	if o.Generation < in.AppliedGeneration {
		return inProgress("Waiting for Cluster API to see the applied change (Cluster generation " + itoa(in.AppliedGeneration) + ")")
	}
	// Conditions are more specific than Events: an Event only fills in when
	// no condition says why (the reference driver showed the newest Cluster
	// Event even when a Machine said why).
	cause := firstNonBlank(o.Reason, EventCause(o.Events, in.StartedAt))
	if !o.Available || !o.ControlPlaneAvailable || !o.InfrastructureReady {
		return inProgress(firstNonBlank(cause, "Waiting for the Cluster API cluster to become available"))
	}
	if o.Generation > 0 && o.TopologyGeneration < o.Generation {
		why := "Waiting for Cluster API's topology controller to reconcile Cluster generation " + itoa(o.Generation)
		if o.TopologyReason != "" {
			why += ": " + o.TopologyReason
		}
		return inProgress(why)
	}
	if !o.ControlPlane.Settled(in.MasterCount, in.KubeVersion) {
		return inProgress(withCause("Waiting for the control plane: "+progress(o.ControlPlane, in.MasterCount, in.KubeVersion), cause))
	}
	names := make([]string, 0, len(in.NodeGroups))
	for n := range in.NodeGroups {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		want := in.NodeGroups[n]
		got := o.NodeGroups[n]
		if want < 0 { // autoscaled: the autoscaler chooses the count
			want = got.Desired
		}
		if !got.Settled(want, in.KubeVersion) {
			return inProgress(withCause("Waiting for nodegroup "+n+": "+progress(got, want, in.KubeVersion), cause))
		}
	}
	if in.RetiringReason != "" {
		return inProgress(in.RetiringReason)
	}
	return Result{Status: prefix + "_COMPLETE"}
}

// withCause adds why to a count-based reason (e.g. the Nova quota that keeps
// a resize's new machine from coming up).
func withCause(reason, cause string) string {
	if cause == "" {
		return reason
	}
	return reason + "; " + cause
}

func progress(r Replicas, want int64, version string) string {
	if !r.Exists {
		return "not created yet"
	}
	switch {
	case version != "" && r.SpecVersion != "" && !sameVersion(r.SpecVersion, version):
		return "Kubernetes " + version + " not rolled out to it yet (it asks for " + r.SpecVersion + ")"
	case r.Stale:
		return "Cluster API has not observed the change yet"
	}
	s := itoa(r.Ready) + "/" + itoa(want) + " machines ready, " + itoa(r.UpToDate) + " up to date"
	if r.Deleting > 0 {
		s += ", " + itoa(r.Deleting) + " being deleted"
	}
	if version != "" && !r.runs(version) {
		s += ", machines at " + strings.Join(r.MachineVersions, ", ") + " (upgrading to " + version + ")"
	}
	return s
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// firstNonBlank returns the first string that is not blank (cmp.Or would
// return one made of spaces).
func firstNonBlank(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// Stalled is an error for a change that Cluster API cannot make (a Kubernetes
// downgrade, a change of an immutable field): the reconciler applies nothing
// of it, does not retry it, and the cluster shows *_FAILED with Message until
// Git changes again.
type Stalled struct {
	Reason  string
	Message string
}

func (s *Stalled) Error() string { return s.Reason + ": " + s.Message }
