package registry

import (
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/schema"
	"kubeplay/core/validation"
)

// workloadStrategy is a Deployment's, ReplicaSet's, StatefulSet's,
// DaemonSet's, Job's or CronJob's: its pod template is converted as a Pod's
// spec is, and the kind's rules check it (those of the kinds beyond
// Deployments and ReplicaSets are not checked yet).
type workloadStrategy struct {
	resourceStrategy
	rules workloadRules
}

// workloadRules are what tells the workload kinds apart here.
type workloadRules struct {
	status         func() map[string]any // what a new one's status is
	validate       func(object.Object) field.ErrorList
	validateUpdate func(obj, old object.Object) field.ErrorList // nil with validate: no rules
	// usedIn is what a name is used in that kube warns of when it is no
	// DNS label ("": a name that must be one).
	usedIn string
	// prepare, when set, adds what the kind's strategy does to the object
	// stored (out) on create (old nil) and update (in: the one sent).
	prepare func(out, in, old object.Object, sub string)
}

var (
	deploymentRules = workloadRules{
		status:         emptyStatus,
		validate:       validation.Deployment,
		validateUpdate: validation.DeploymentUpdate,
		usedIn:         "Pod names and hostnames",
		prepare:        prepareDeployment,
	}
	replicaSetRules = workloadRules{
		status:         func() map[string]any { return map[string]any{"replicas": 0} },
		validate:       validation.ReplicaSet,
		validateUpdate: validation.ReplicaSetUpdate,
		usedIn:         "Pod names and hostnames",
	}
	statefulSetRules = workloadRules{
		status:         func() map[string]any { return map[string]any{"replicas": 0, "availableReplicas": 0} },
		validate:       validation.StatefulSet,
		validateUpdate: validation.StatefulSetUpdate,
	}
	daemonSetRules = workloadRules{
		status: func() map[string]any {
			return map[string]any{"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0, "numberReady": 0}
		},
		prepare: prepareDaemonSet,
	}
	jobRules     = workloadRules{status: emptyStatus, prepare: prepareJob}
	cronJobRules = workloadRules{status: emptyStatus}
)

func emptyStatus() map[string]any { return map[string]any{} }

// Canonicalize adds to the defaults what kube's conversion of a workload
// does: its template's spec as a Pod's, and a StatefulSet's claim templates
// named as PersistentVolumeClaims (as kube has since 1.17 kept doing).
func (s workloadStrategy) Canonicalize(obj object.Object) {
	s.resourceStrategy.Canonicalize(obj)
	if spec, ok := object.Path(obj, "spec", "template", "spec").(map[string]any); ok {
		convertPodSpec(spec)
	}
	spec, _ := obj["spec"].(map[string]any)
	for _, claim := range object.Objects(spec, "volumeClaimTemplates") {
		claim["apiVersion"], claim["kind"] = "v1", "PersistentVolumeClaim"
	}
}

// PrepareForCreate: a new workload's status is the kind's first one, then
// the kind's prepare hook.
func (s workloadStrategy) PrepareForCreate(obj object.Object) {
	obj["status"] = s.rules.status()
	if s.rules.prepare != nil {
		s.rules.prepare(obj, obj, nil, "")
	}
}

func (s workloadStrategy) Validate(obj object.Object) field.ErrorList {
	if s.rules.validate == nil {
		return nil
	}
	return s.rules.validate(obj)
}

func (s workloadStrategy) ValidateUpdate(obj, old object.Object, sub string) field.ErrorList {
	if sub != "" || s.rules.validateUpdate == nil {
		return nil
	}
	return s.rules.validateUpdate(obj, old)
}

// WarningsOnCreate: a name that is no DNS label is warned of where the kind
// uses it.
func (s workloadStrategy) WarningsOnCreate(obj object.Object) []string {
	if s.rules.usedIn == "" {
		return nil
	}
	return dnsLabelWarning(obj, s.rules.usedIn)
}

// PrepareForUpdate is the resource's, then the kind's prepare hook.
func (s workloadStrategy) PrepareForUpdate(obj, old object.Object, sub string) object.Object {
	out := s.resourceStrategy.PrepareForUpdate(obj, old, sub)
	if s.rules.prepare != nil {
		s.rules.prepare(out, obj, old, sub)
	}
	return out
}

// prepareDeployment: a write to a Deployment's status may change its
// annotations too, as kube's deploymentStatusStrategy lets it (the controller
// records the revision so, without a new generation).
func prepareDeployment(out, in, _ object.Object, sub string) {
	if sub == "status" {
		schema.SetOrDelete(object.Meta(out), "annotations", object.Meta(in))
	}
}
