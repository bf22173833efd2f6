package registry

import (
	"slices"
	"time"

	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/storage"
	"kubeplay/core/validation"
)

// What kube's registry and admission do with the storage kinds:
// PersistentVolumes (a new one Pending, the time its phase changed),
// StorageClasses, and the claims' default class and protection finalizers.

// persistentVolumeStrategy: a new volume is Pending; its status notes when
// its phase last changed.
type persistentVolumeStrategy struct{ resourceStrategy }

// PrepareForCreate: whatever status was sent, a new volume is Pending since
// now; a volume attributes class is dropped (kube's VolumeAttributesClass
// gate is off).
func (s persistentVolumeStrategy) PrepareForCreate(obj object.Object) {
	obj["status"] = map[string]any{"phase": "Pending", "lastPhaseTransitionTime": object.Timestamp(s.clock.Now())}
	dropAttributesClass(obj, nil)
}

// PrepareForUpdate: the status subresource changes only the status, and
// notes the time the phase changes unless the writer did; the volume itself
// keeps its status.
func (s persistentVolumeStrategy) PrepareForUpdate(obj, old object.Object, sub string) object.Object {
	out := s.resourceStrategy.PrepareForUpdate(obj, old, sub)
	if sub != "status" {
		dropAttributesClass(out, old)
		return out
	}
	status := object.Child(out, "status")
	oldStatus, _ := old["status"].(map[string]any)
	changed, oldTime := status["phase"] != oldStatus["phase"], oldStatus["lastPhaseTransitionTime"]
	switch t := status["lastPhaseTransitionTime"]; {
	case !changed && t == nil && oldTime != nil:
		status["lastPhaseTransitionTime"] = oldTime
	case changed && (t == nil || t == oldTime):
		status["lastPhaseTransitionTime"] = object.Timestamp(s.clock.Now())
	}
	return out
}

// dropAttributesClass drops a volume's spec.volumeAttributesClassName, as
// kube does while its VolumeAttributesClass gate is off, unless the volume
// had one before (old; nil for a new volume).
func dropAttributesClass(obj, old object.Object) {
	if object.Path(old, "spec", "volumeAttributesClassName") == nil {
		if spec, ok := obj["spec"].(map[string]any); ok {
			delete(spec, "volumeAttributesClassName")
		}
	}
}

func (persistentVolumeStrategy) Validate(obj object.Object) field.ErrorList {
	return validation.PersistentVolume(obj)
}

func (persistentVolumeStrategy) ValidateUpdate(obj, old object.Object, sub string) field.ErrorList {
	if sub == "status" {
		return nil
	}
	return validation.PersistentVolumeUpdate(obj, old)
}

func (persistentVolumeStrategy) WarningsOnCreate(obj object.Object) []string {
	return validation.PersistentVolumeWarnings(obj)
}

// WarningsOnUpdate: the same as a create's, status writes too (kube's).
func (persistentVolumeStrategy) WarningsOnUpdate(obj, _ object.Object) []string {
	return validation.PersistentVolumeWarnings(obj)
}

// storageClassStrategy: a StorageClass's rules, and what it may not change.
type storageClassStrategy struct{ resourceStrategy }

func (storageClassStrategy) Validate(obj object.Object) field.ErrorList {
	return validation.StorageClass(obj)
}

func (storageClassStrategy) ValidateUpdate(obj, old object.Object, _ string) field.ErrorList {
	return validation.StorageClassUpdate(obj, old)
}

// The annotations that make a StorageClass the default one.
const (
	defaultClassAnnotation     = "storageclass.kubernetes.io/is-default-class"
	betaDefaultClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
)

// defaultStorageClass is kube's DefaultStorageClass admission: a new claim
// that names no class (neither spec.storageClassName, even empty, nor the
// beta annotation) gets the default one, the newest when several are marked
// default; without one it stays without a class.
type defaultStorageClass struct{ store *Store }

func (a defaultStorageClass) Admit(op Operation, t Target, obj, _ object.Object) error {
	if op != Create || !isClaim(t) {
		return nil
	}
	spec := object.Child(obj, "spec")
	if _, ok := object.StringMap(object.Meta(obj), "annotations")["volume.beta.kubernetes.io/storage-class"]; ok || spec["storageClassName"] != nil {
		return nil
	}
	res := a.store.schema.Lookup("storage.k8s.io", "v1", "storageclasses")
	if res == nil {
		return nil
	}
	l, err := a.store.storage.List(storage.ListOptions{Prefix: collectionPrefix(res, "")})
	if err != nil {
		return err
	}
	var best string
	var bestTime time.Time
	for _, it := range l.Items {
		class, err := object.Decode([]byte(it.Value))
		if err != nil {
			continue
		}
		annotations := object.StringMap(object.Meta(class), "annotations")
		if annotations[defaultClassAnnotation] != "true" && annotations[betaDefaultClassAnnotation] != "true" {
			continue
		}
		created, _ := time.Parse(time.RFC3339, object.MetaString(class, "creationTimestamp"))
		// Newest first, then by name (the list is by name).
		if best == "" || created.After(bestTime) {
			best, bestTime = object.MetaString(class, "name"), created
		}
	}
	if best != "" {
		spec["storageClassName"] = best
	}
	return nil
}

// isClaim says whether a write is to a PersistentVolumeClaim itself.
func isClaim(t Target) bool {
	return t.Res.Group == "" && t.Res.Plural == "persistentvolumeclaims" && t.Sub == ""
}

// The finalizers kube's StorageObjectInUseProtection admission adds and its
// protection controllers remove once nothing uses the object.
const (
	claimProtection  = "kubernetes.io/pvc-protection"
	volumeProtection = "kubernetes.io/pv-protection"
)

// storageProtection is kube's StorageObjectInUseProtection admission: a new
// claim or volume is held by its protection finalizer.
type storageProtection struct{}

func (storageProtection) Admit(op Operation, t Target, obj, _ object.Object) error {
	finalizer := volumeProtection
	switch {
	case op != Create || t.Res.Group != "" || t.Sub != "":
		return nil
	case t.Res.Plural == "persistentvolumeclaims":
		finalizer = claimProtection
	case t.Res.Plural != "persistentvolumes":
		return nil
	}
	meta := object.Meta(obj)
	if finalizers := object.Strings(meta, "finalizers"); !slices.Contains(finalizers, finalizer) {
		setFinalizers(meta, append(finalizers, finalizer))
	}
	return nil
}
