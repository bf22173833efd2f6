package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// persistentVolume is v1 PersistentVolume: a new volume is Pending; its
// status notes when its phase last changed.
func persistentVolume() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "PersistentVolume", Plural: "persistentvolumes", Singular: "persistentvolume",
		ShortNames: []string{"pv"}, Verbs: allVerbs, ReturnDeleted: true,
		Subs:     []api.Subresource{{Name: "status", Kind: "PersistentVolume", Verbs: statusVerbs}},
		Defaults: defaultPersistentVolume,
		Hooks: api.Hooks{
			LabelChecksOnUpdate: 4,
			// Whatever status was sent, a new volume is Pending since now; a
			// volume attributes class is dropped (kube's
			// VolumeAttributesClass gate is off).
			PrepareForCreate: func(obj object.Object, now time.Time) {
				obj["status"] = map[string]any{"phase": "Pending", "lastPhaseTransitionTime": object.Timestamp(now)}
				dropAttributesClass(obj, nil)
			},
			PrepareForUpdate: preparePersistentVolumeUpdate,
			Validate:         validation.PersistentVolume,
			ValidateUpdate: func(obj, old object.Object, sub string) field.ErrorList {
				if sub == "status" {
					return nil
				}
				return validation.PersistentVolumeUpdate(obj, old)
			},
			WarningsOnCreate: validation.PersistentVolumeWarnings,
			// The same as a create's, status writes too (kube's).
			WarningsOnUpdate: func(obj, _ object.Object) []string { return validation.PersistentVolumeWarnings(obj) },
		},
		Printer: table.PersistentVolume,
	}
}

// defaultPersistentVolume is SetDefaults_PersistentVolume: a volume is
// Pending, retained once released, and a filesystem.
func defaultPersistentVolume(m map[string]any) {
	defaults.SetString(object.Child(m, "status"), "phase", "Pending")
	spec := object.Child(m, "spec")
	defaults.SetString(spec, "persistentVolumeReclaimPolicy", "Retain")
	defaults.SetUnset(spec, "volumeMode", "Filesystem")
}

// preparePersistentVolumeUpdate: the status subresource changes only the
// status, and notes the time the phase changes unless the writer did; the
// volume itself keeps its status.
func preparePersistentVolumeUpdate(u api.Update) object.Object {
	out := u.Generic()
	if u.Sub != "status" {
		dropAttributesClass(out, u.Old)
		return out
	}
	status := object.Child(out, "status")
	oldStatus, _ := u.Old["status"].(map[string]any)
	changed, oldTime := status["phase"] != oldStatus["phase"], oldStatus["lastPhaseTransitionTime"]
	switch t := status["lastPhaseTransitionTime"]; {
	case !changed && t == nil && oldTime != nil:
		status["lastPhaseTransitionTime"] = oldTime
	case changed && (t == nil || t == oldTime):
		status["lastPhaseTransitionTime"] = object.Timestamp(u.Now)
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
