package registry

import (
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// workloadStrategy is a Deployment's, ReplicaSet's or StatefulSet's: its pod
// template is converted as a Pod's spec is, and the kind's rules check it (a
// StatefulSet's own rules are not checked yet).
type workloadStrategy struct {
	resourceStrategy
	rules workloadRules
}

// workloadRules are what tells the workload kinds apart here.
type workloadRules struct {
	status         func() map[string]any // what a new one's status is
	validate       func(object.Object) field.ErrorList
	validateUpdate func(obj, old object.Object) field.ErrorList // nil with validate: no rules
}

var (
	deploymentRules = workloadRules{
		status:         func() map[string]any { return map[string]any{} },
		validate:       validation.Deployment,
		validateUpdate: validation.DeploymentUpdate,
	}
	replicaSetRules = workloadRules{
		status:         func() map[string]any { return map[string]any{"replicas": 0} },
		validate:       validation.ReplicaSet,
		validateUpdate: validation.ReplicaSetUpdate,
	}
	statefulSetRules = workloadRules{
		status: func() map[string]any { return map[string]any{"replicas": 0, "availableReplicas": 0} },
	}
)

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

// PrepareForCreate: a new workload has no status yet.
func (s workloadStrategy) PrepareForCreate(obj object.Object) { obj["status"] = s.rules.status() }

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

// PrepareForUpdate: a write to a Deployment's status may change its
// annotations too, as kube's deploymentStatusStrategy lets it (the controller
// records the revision so, without a new generation).
func (s deploymentStrategy) PrepareForUpdate(obj, old object.Object, sub string) object.Object {
	out := s.workloadStrategy.PrepareForUpdate(obj, old, sub)
	if sub == "status" {
		setOrDelete(object.Meta(out), "annotations", object.Meta(obj))
	}
	return out
}
