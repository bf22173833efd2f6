package registry

import (
	"encoding/base64"
	"fmt"
	"slices"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/defaults"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/schema"
	"kubeplay/core/validation"
)

// Strategy is what one kind does differently on its way into storage, as kube's
// rest.RESTCreateStrategy, RESTUpdateStrategy and RESTDeleteStrategy are. The
// generic Store calls it; a new kind or rule is a strategy, not a branch there.
type Strategy interface {
	// Canonicalize writes what a request decoded into in the form kube stores:
	// the kind's defaults (core/defaults), which kube gives every object it
	// decodes, and its conversion's effects (a Secret's stringData written
	// into data).
	Canonicalize(obj object.Object)
	// PrepareForCreate sets what a new object starts with (its status), before
	// it is validated.
	PrepareForCreate(obj object.Object)
	// PrepareForUpdate returns the object to store when a write to sub (""
	// for the resource itself) turns old into obj: each part changes only its
	// own fields.
	PrepareForUpdate(obj, old object.Object, sub string) object.Object
	// Validate checks a new object against the kind's own rules (metadata is
	// checked for every kind).
	Validate(obj object.Object) field.ErrorList
	// ValidateUpdate checks the object a write to sub turns old into: the
	// kind's rules, and what may not change.
	ValidateUpdate(obj, old object.Object, sub string) field.ErrorList
	// NewGeneration says whether an update of old to obj bumps
	// metadata.generation (for the kinds that track it).
	NewGeneration(obj, old object.Object) bool
	// BeginDelete marks obj for deletion (deletionTimestamp, finalizers) and says
	// whether it goes now; an error refuses the delete.
	BeginDelete(t Target, obj object.Object, now time.Time) (deleteHow, error)
	// DeleteWhenFinalized: an update that leaves obj, being deleted, with nothing
	// holding it removes it.
	DeleteWhenFinalized(obj, old object.Object) bool
}

// deleteHow is what a delete does.
type deleteHow int

const (
	deleteLater deleteHow = iota // marked: finalizers (or content) hold it
	deleteNow                    // removed at once
)

// strategyFor is the strategy of a resource's kind.
func strategyFor(res *schema.Resource) Strategy {
	base := resourceStrategy{res: res}
	switch res.Group + "/" + res.Kind {
	case "flowcontrol.apiserver.k8s.io/FlowSchema":
		return flowSchemaStrategy{base}
	case "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration":
		return priorityLevelStrategy{base}
	case "/Namespace":
		return namespaceStrategy{base}
	case "/Secret":
		return secretStrategy{base}
	case "/ConfigMap":
		return configMapStrategy{base}
	case "/Pod":
		return podStrategy{base}
	case "/Service":
		return serviceStrategy{base}
	case "apps/Deployment":
		return deploymentStrategy{workloadStrategy{base, deploymentRules}}
	case "apps/ReplicaSet":
		return workloadStrategy{base, replicaSetRules}
	case "apps/StatefulSet":
		return workloadStrategy{base, statefulSetRules}
	case "apps/DaemonSet":
		return workloadStrategy{base, daemonSetRules}
	case "batch/Job":
		return workloadStrategy{base, jobRules}
	case "batch/CronJob":
		return workloadStrategy{base, cronJobRules}
	}
	return base
}

// resourceStrategy is what every kind does: the kind's defaults, a status
// subresource that owns status, finalizers that hold a deleted object.
type resourceStrategy struct{ res *schema.Resource }

// Canonicalize gives the object its defaults; kinds without built-in Go
// types (custom resources) have none here.
func (s resourceStrategy) Canonicalize(obj object.Object) {
	defaults.Apply(s.res.APIVersion(), s.res.Kind, obj)
}

// NewGeneration: a kind that tracks generation bumps it when anything but
// metadata and status changes.
func (s resourceStrategy) NewGeneration(obj, old object.Object) bool {
	return s.res.Generation && specChanged(old, obj)
}

func (resourceStrategy) PrepareForCreate(object.Object)                              {}
func (resourceStrategy) Validate(object.Object) field.ErrorList                      { return nil }
func (resourceStrategy) ValidateUpdate(_, _ object.Object, _ string) field.ErrorList { return nil }

func (s resourceStrategy) PrepareForUpdate(obj, old object.Object, sub string) object.Object {
	switch {
	case sub == "status":
		out := object.DeepCopy(old)
		setOrDelete(out, "status", obj)
		keepManagedFields(out, obj)
		return out
	case s.res.Sub("status") != nil:
		setOrDelete(obj, "status", old)
	}
	return obj
}

// keepManagedFields gives a subresource's result the managedFields of the
// object written (an apply's), as kube's status strategies keep them.
func keepManagedFields(out, obj object.Object) {
	setOrDelete(object.Meta(out), "managedFields", object.Meta(obj))
}

// setOrDelete sets dst's field to src's, or removes it when src has none.
func setOrDelete(dst object.Object, key string, src object.Object) {
	if v, ok := src[key]; ok {
		dst[key] = v
	} else {
		delete(dst, key)
	}
}

func (resourceStrategy) BeginDelete(_ Target, obj object.Object, now time.Time) (deleteHow, error) {
	meta := object.Meta(obj)
	if len(object.Strings(meta, "finalizers")) == 0 {
		return deleteNow, nil
	}
	markDeleted(meta, now)
	return deleteLater, nil
}

// markDeleted sets what a graceful deletion sets, once.
func markDeleted(meta map[string]any, now time.Time) {
	if meta["deletionTimestamp"] == nil {
		meta["deletionTimestamp"] = Timestamp(now)
		meta["deletionGracePeriodSeconds"] = 0
	}
}

// DeleteWhenFinalized is kube's ShouldDeleteDuringUpdate: the object is being
// deleted, with no grace period left, and its last finalizer is gone.
func (resourceStrategy) DeleteWhenFinalized(obj, old object.Object) bool {
	meta := object.Meta(obj)
	grace, set := object.Meta(old)["deletionGracePeriodSeconds"]
	return meta["deletionTimestamp"] != nil && len(object.Strings(meta, "finalizers")) == 0 &&
		set && fmt.Sprint(grace) == "0"
}

// deploymentStrategy: annotations bump a Deployment's generation too (kube
// copies them to its ReplicaSets).
type deploymentStrategy struct{ workloadStrategy }

func (s deploymentStrategy) NewGeneration(obj, old object.Object) bool {
	return s.resourceStrategy.NewGeneration(obj, old) ||
		!object.Equal(object.Meta(obj)["annotations"], object.Meta(old)["annotations"])
}

// namespaceStrategy: a namespace is held by its spec.finalizers until the
// namespace controller has emptied it, and only the finalize subresource changes
// them.
type namespaceStrategy struct{ resourceStrategy }

// namespaceTerminatingMessage is kube's answer to deleting a namespace that is
// already being deleted.
const namespaceTerminatingMessage = "The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system."

// PrepareForCreate: a new namespace is Active, and held by the kubernetes
// finalizer until the namespace controller has emptied it.
func (namespaceStrategy) PrepareForCreate(obj object.Object) {
	obj["status"] = map[string]any{"phase": "Active"}
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		obj["spec"] = spec
	}
	finalizers, _ := spec["finalizers"].([]any)
	if !slices.Contains(finalizers, any("kubernetes")) {
		spec["finalizers"] = append(finalizers, "kubernetes")
	}
}

// PrepareForUpdate: only the finalize subresource changes spec.finalizers.
func (s namespaceStrategy) PrepareForUpdate(obj, old object.Object, sub string) object.Object {
	if sub != "finalize" {
		obj = s.resourceStrategy.PrepareForUpdate(obj, old, sub)
		if sub == "" {
			spec, _ := obj["spec"].(map[string]any)
			if spec == nil {
				spec = map[string]any{}
				obj["spec"] = spec
			}
			oldSpec, _ := old["spec"].(map[string]any)
			setOrDelete(spec, "finalizers", oldSpec)
		}
		return obj
	}
	out := object.DeepCopy(old)
	keepManagedFields(out, obj)
	spec, _ := out["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		out["spec"] = spec
	}
	if f, ok := object.Path(obj, "spec", "finalizers").([]any); ok && len(f) > 0 {
		spec["finalizers"] = f
	} else {
		delete(spec, "finalizers")
	}
	return out
}

func (s namespaceStrategy) BeginDelete(t Target, obj object.Object, now time.Time) (deleteHow, error) {
	spec, _ := obj["spec"].(map[string]any)
	if len(object.Strings(spec, "finalizers")) == 0 {
		return s.resourceStrategy.BeginDelete(t, obj, now)
	}
	meta := object.Meta(obj)
	if meta["deletionTimestamp"] != nil {
		return 0, apierrors.NewConflict("", "namespaces", t.Name, namespaceTerminatingMessage)
	}
	markDeleted(meta, now)
	status, _ := obj["status"].(map[string]any)
	if status == nil {
		status = map[string]any{}
		obj["status"] = status
	}
	status["phase"] = "Terminating"
	return deleteLater, nil
}

// DeleteWhenFinalized needs the namespace's own finalizers gone too.
func (s namespaceStrategy) DeleteWhenFinalized(obj, old object.Object) bool {
	spec, _ := obj["spec"].(map[string]any)
	return len(object.Strings(spec, "finalizers")) == 0 && s.resourceStrategy.DeleteWhenFinalized(obj, old)
}

// secretStrategy: stringData is written into data.
type secretStrategy struct{ resourceStrategy }

func (s secretStrategy) Canonicalize(obj object.Object) {
	s.resourceStrategy.Canonicalize(obj)
	sd, _ := obj["stringData"].(map[string]any)
	data, _ := obj["data"].(map[string]any)
	if data == nil && len(sd) > 0 {
		data = map[string]any{}
		obj["data"] = data
	}
	keys := make([]string, 0, len(sd))
	for k := range sd {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if s, ok := sd[k].(string); ok {
			data[k] = base64.StdEncoding.EncodeToString([]byte(s))
		}
	}
	delete(obj, "stringData")
}

func (secretStrategy) Validate(obj object.Object) field.ErrorList { return validation.Secret(obj) }

func (secretStrategy) ValidateUpdate(obj, old object.Object, _ string) field.ErrorList {
	return validation.SecretUpdate(obj, old)
}

// configMapStrategy: a ConfigMap's keys, size and immutability.
type configMapStrategy struct{ resourceStrategy }

func (configMapStrategy) Validate(obj object.Object) field.ErrorList {
	return validation.ConfigMap(obj)
}

func (configMapStrategy) ValidateUpdate(obj, old object.Object, _ string) field.ErrorList {
	return validation.ConfigMapUpdate(obj, old)
}
