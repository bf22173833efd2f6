package registry

import (
	"encoding/base64"
	"fmt"
	"slices"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/schema"
)

// Strategy is what one kind does differently on its way into storage, as kube's
// rest.RESTCreateStrategy, RESTUpdateStrategy and RESTDeleteStrategy are. The
// generic Store calls it; a new kind or rule is a strategy, not a branch there.
type Strategy interface {
	// Canonicalize writes what a request decoded into the form kube stores (its
	// conversion's effects: a Secret's stringData written into data).
	Canonicalize(obj object.Object)
	// PrepareForCreate sets the kind's defaults and the status a new object
	// starts with.
	PrepareForCreate(obj object.Object)
	// PrepareForUpdate returns the object to store when a write to sub (""
	// for the resource itself) turns old into obj: each part changes only its
	// own fields.
	PrepareForUpdate(obj, old object.Object, sub string) object.Object
	// Validate checks the kind's own rules (metadata is checked for every kind).
	Validate(obj object.Object) field.ErrorList
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
	switch res.APIVersion() + "/" + res.Kind {
	case "flowcontrol.apiserver.k8s.io/v1/FlowSchema":
		return flowSchemaStrategy{base}
	case "flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration":
		return priorityLevelStrategy{base}
	}
	if res.Group != "" {
		return base
	}
	switch res.Kind {
	case "Namespace":
		return namespaceStrategy{base}
	case "Secret":
		return secretStrategy{base}
	case "ConfigMap":
		return configMapStrategy{base}
	}
	return base
}

// resourceStrategy is what every kind does: the schema's defaults, a status
// subresource that owns status, finalizers that hold a deleted object.
type resourceStrategy struct{ res *schema.Resource }

func (resourceStrategy) Canonicalize(object.Object)             {}
func (resourceStrategy) Validate(object.Object) field.ErrorList { return nil }
func (s resourceStrategy) PrepareForCreate(obj object.Object) {
	if s.res.Prepare != nil {
		s.res.Prepare(obj)
	}
}

func (s resourceStrategy) PrepareForUpdate(obj, old object.Object, sub string) object.Object {
	switch {
	case sub == "status":
		out := object.DeepCopy(old)
		setOrDelete(out, "status", obj)
		return out
	case s.res.Sub("status") != nil:
		setOrDelete(obj, "status", old)
	}
	return obj
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

// namespaceStrategy: a namespace is held by its spec.finalizers until the
// namespace controller has emptied it, and only the finalize subresource changes
// them.
type namespaceStrategy struct{ resourceStrategy }

// namespaceTerminatingMessage is kube's answer to deleting a namespace that is
// already being deleted.
const namespaceTerminatingMessage = "The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system."

func (s namespaceStrategy) PrepareForUpdate(obj, old object.Object, sub string) object.Object {
	if sub != "finalize" {
		return s.resourceStrategy.PrepareForUpdate(obj, old, sub)
	}
	out := object.DeepCopy(old)
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

// maxDataBytes is kube's limit on the bytes of a ConfigMap's or Secret's values
// (api.MaxSecretSize).
const maxDataBytes = 1 << 20

// secretStrategy: stringData is written into data, and data is limited to 1 MiB.
type secretStrategy struct{ resourceStrategy }

func (secretStrategy) Canonicalize(obj object.Object) {
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

func (secretStrategy) Validate(obj object.Object) field.ErrorList {
	size := 0
	for _, v := range object.StringMap(obj, "data") {
		size += base64.StdEncoding.DecodedLen(len(v))
	}
	if size > maxDataBytes {
		return field.ErrorList{field.TooLong(field.NewPath("data"), maxDataBytes)}
	}
	return nil
}

// configMapStrategy: data and binaryData together are limited to 1 MiB, reported
// on the object itself ("[]").
type configMapStrategy struct{ resourceStrategy }

func (configMapStrategy) Validate(obj object.Object) field.ErrorList {
	size := 0
	for _, v := range object.StringMap(obj, "data") {
		size += len(v)
	}
	for _, v := range object.StringMap(obj, "binaryData") {
		size += base64.StdEncoding.DecodedLen(len(v))
	}
	if size > maxDataBytes {
		return field.ErrorList{field.TooLong(field.NewPath("").Key(""), maxDataBytes)}
	}
	return nil
}
