package registry

import (
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// workloadStrategy is a Deployment's or ReplicaSet's: its pod template is
// converted as a Pod's spec is, and the kind's rules check it.
type workloadStrategy struct {
	resourceStrategy
	rules workloadRules
}

// workloadRules are what tells a Deployment from a ReplicaSet here.
type workloadRules struct {
	status         func() map[string]any // what a new one's status is
	validate       func(object.Object) field.ErrorList
	validateUpdate func(obj, old object.Object) field.ErrorList
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
)

func (s workloadStrategy) Canonicalize(obj object.Object) {
	s.resourceStrategy.Canonicalize(obj)
	if spec, ok := object.Path(obj, "spec", "template", "spec").(map[string]any); ok {
		convertPodSpec(spec)
	}
}

// PrepareForCreate: a new workload has no status yet.
func (s workloadStrategy) PrepareForCreate(obj object.Object) { obj["status"] = s.rules.status() }

func (s workloadStrategy) Validate(obj object.Object) field.ErrorList { return s.rules.validate(obj) }

func (s workloadStrategy) ValidateUpdate(obj, old object.Object, sub string) field.ErrorList {
	if sub != "" {
		return nil
	}
	return s.rules.validateUpdate(obj, old)
}
