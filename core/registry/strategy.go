package registry

import (
	"encoding/base64"
	"fmt"
	"slices"
	"time"

	"kubeplay/core/clock"
	"kubeplay/core/defaults"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/schema"
	"kubeplay/core/types"
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
	// WarningsOnCreate are the warnings a valid new object is answered with.
	WarningsOnCreate(obj object.Object) []string
	// ValidateUpdate checks the object a write to sub turns old into: the
	// kind's rules, and what may not change.
	ValidateUpdate(obj, old object.Object, sub string) field.ErrorList
	// NewGeneration says whether an update of old to obj bumps
	// metadata.generation (for the kinds that track it).
	NewGeneration(obj, old object.Object) bool
	// BeginDelete is the kind's own deletion of obj (changed in place), as
	// namespaces and CRDs have (their first delete only marks them);
	// deleteGeneric leaves it to the generic deletion. An error refuses the
	// delete.
	BeginDelete(t Target, obj object.Object, opts *DeleteOptions, now time.Time) (deleteHow, error)
	// GCPolicy is what deleting the kind does to dependents when the delete
	// does not say.
	GCPolicy() gcPolicy
	// DeleteWhenFinalized: an update that leaves obj, being deleted, with nothing
	// holding it removes it.
	DeleteWhenFinalized(obj, old object.Object) bool
}

// strategyFor is the strategy of a resource's kind, on clk.
func strategyFor(t Target, clk clock.Clock) Strategy {
	res := t.Res
	base := resourceStrategy{res: res, clock: clk}
	if res.Custom != nil {
		return customStrategy{base}
	}
	switch res.Group + "/" + res.Kind {
	case "apiextensions.k8s.io/CustomResourceDefinition":
		return crdStrategy{base}
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
	case "/Event":
		return eventStrategy{base, t.Via != nil}
	case "/Pod":
		return podStrategy{base}
	case "/Service":
		return serviceStrategy{base}
	case "/PersistentVolume":
		return persistentVolumeStrategy{base}
	case "storage.k8s.io/StorageClass":
		return storageClassStrategy{base}
	case "/ResourceQuota":
		return resourceQuotaStrategy{base}
	case "/LimitRange":
		return limitRangeStrategy{base}
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
type resourceStrategy struct {
	res   *schema.Resource
	clock clock.Clock // the time for the kinds whose strategy notes it
}

// Canonicalize gives the object its defaults and the fields its Go type
// always writes; kinds without built-in Go types (custom resources) have
// neither here.
//
//go:noinline
func (s resourceStrategy) Canonicalize(obj object.Object) {
	defaults.Apply(s.res.APIVersion(), s.res.Kind, obj)
	types.Complete(s.res.APIVersion(), s.res.Kind, obj)
}

// encode writes obj in its stored form, its fields in the order of its kind's
// Go type, as kube-apiserver writes them.
func encode(res *schema.Resource, obj object.Object) ([]byte, error) {
	return object.EncodeOrdered(obj, types.Order(res.APIVersion(), res.Kind))
}

// NewGeneration: a kind that tracks generation bumps it when anything but
// metadata and status changes.
//
//go:noinline
func (s resourceStrategy) NewGeneration(obj, old object.Object) bool {
	return s.res.Generation && specChanged(old, obj)
}

func (resourceStrategy) PrepareForCreate(object.Object) {}

func (resourceStrategy) WarningsOnCreate(object.Object) []string { return nil }

// dnsLabelWarning is kube's warning of a name that is no DNS label, used in
// where: none when it is one.
func dnsLabelWarning(obj object.Object, where string) []string {
	if msgs := validation.DNS1123Label(object.MetaString(obj, "name")); len(msgs) > 0 {
		return []string{fmt.Sprintf("metadata.name: this is used in %s, which can result in surprising behavior; a DNS label is recommended: %v", where, msgs)}
	}
	return nil
}

// Validate is the kind's own check, when it has one (schema.Resource.Validate).
func (s resourceStrategy) Validate(obj object.Object) field.ErrorList {
	if s.res.Validate == nil {
		return nil
	}
	return s.res.Validate(obj)
}

func (s resourceStrategy) ValidateUpdate(obj, _ object.Object, _ string) field.ErrorList {
	return s.Validate(obj)
}

//go:noinline
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

// BeginDelete: most kinds are deleted the generic way.
//
//go:noinline
func (resourceStrategy) BeginDelete(Target, object.Object, *DeleteOptions, time.Time) (deleteHow, error) {
	return deleteGeneric, nil
}

// GCPolicy: dependents are deleted in the background.
//
//go:noinline
func (resourceStrategy) GCPolicy() gcPolicy { return gcBackground }

// DeleteWhenFinalized is kube's ShouldDeleteDuringUpdate: the object is being
// deleted, with no grace period left, and its last finalizer is gone.
//
//go:noinline
func (resourceStrategy) DeleteWhenFinalized(obj, old object.Object) bool {
	oldMeta := object.Meta(old)
	grace := oldMeta["deletionGracePeriodSeconds"]
	return oldMeta["deletionTimestamp"] != nil && len(object.Strings(object.Meta(obj), "finalizers")) == 0 &&
		(grace == nil || object.Int(grace) == 0)
}

// deploymentStrategy: annotations bump a Deployment's generation too (kube
// copies them to its ReplicaSets).
type deploymentStrategy struct{ workloadStrategy }

func (s deploymentStrategy) NewGeneration(obj, old object.Object) bool {
	return s.resourceStrategy.NewGeneration(obj, old) ||
		!object.Equal(object.Meta(obj)["annotations"], object.Meta(old)["annotations"])
}

// eventStrategy: Events are checked by kube's legacy rules, on update too,
// and never wait for the garbage collector.
// eventStrategy: kube's Event rules, by the request's version (kube's
// strategy reads it): legacy through core/v1, strict through events.k8s.io/v1.
type eventStrategy struct {
	resourceStrategy
	eventsV1 bool // written through events.k8s.io/v1
}

func (eventStrategy) GCPolicy() gcPolicy { return gcUnsupported }

func (s eventStrategy) Validate(obj object.Object) field.ErrorList {
	if s.eventsV1 {
		return validation.EventsV1(obj)
	}
	return validation.Event(obj)
}

func (s eventStrategy) ValidateUpdate(obj, old object.Object, _ string) field.ErrorList {
	if s.eventsV1 {
		return validation.EventsV1Update(obj, old)
	}
	return validation.Event(obj)
}

// namespaceStrategy: a namespace is held by its spec.finalizers until the
// namespace controller has emptied it, and only the finalize subresource changes
// them.
type namespaceStrategy struct{ resourceStrategy }

// PrepareForCreate: a new namespace is Active, and held by the kubernetes
// finalizer until the namespace controller has emptied it. One named from a
// generateName is labelled with its name only now, as kube's Canonicalize
// labels it: after the write was recorded in managedFields.
func (namespaceStrategy) PrepareForCreate(obj object.Object) {
	labels, _ := object.Meta(obj)["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		object.Meta(obj)["labels"] = labels
	}
	labels["kubernetes.io/metadata.name"] = object.MetaString(obj, "name")
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

// BeginDelete is the namespace's own REST deletion: the first delete marks
// it Terminating (with the garbage collector's finalizers the options ask
// for) and leaves the rest to the namespace controller; while its
// spec.finalizers hold it, a delete changes nothing; once they are gone, the
// generic deletion removes it.
func (s namespaceStrategy) BeginDelete(t Target, obj object.Object, opts *DeleteOptions, now time.Time) (deleteHow, error) {
	meta := object.Meta(obj)
	if err := checkPreconditionsAsStorage(t, meta, opts.Preconditions); err != nil {
		return 0, err
	}
	if meta["deletionTimestamp"] != nil {
		spec, _ := obj["spec"].(map[string]any)
		if len(object.Strings(spec, "finalizers")) > 0 {
			return deleteKeep, nil
		}
		return deleteGeneric, nil
	}
	meta["deletionTimestamp"] = object.Timestamp(now)
	status, _ := obj["status"].(map[string]any)
	if status == nil {
		status = map[string]any{}
		obj["status"] = status
	}
	status["phase"] = "Terminating"
	// Unlike the generic deletion, a namespace keeps the finalizer the options
	// do not speak of.
	finalizers := object.Strings(meta, "finalizers")
	orphan, foreground := slices.Contains(finalizers, FinalizerOrphan), slices.Contains(finalizers, FinalizerForeground)
	switch p := opts.PropagationPolicy; {
	case opts.OrphanDependents != nil:
		orphan, foreground = *opts.OrphanDependents, !*opts.OrphanDependents
	case p != nil:
		orphan, foreground = *p == object.PropagationOrphan, *p == object.PropagationForeground
	}
	kept := slices.DeleteFunc(finalizers, func(f string) bool { return f == FinalizerOrphan || f == FinalizerForeground })
	if orphan {
		kept = append(kept, FinalizerOrphan)
	}
	if foreground {
		kept = append(kept, FinalizerForeground)
	}
	if !sameSet(kept, object.Strings(meta, "finalizers")) {
		setFinalizers(meta, kept)
	}
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
