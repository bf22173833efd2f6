package table

import (
	"slices"
	"strings"
	"time"

	"kubeplay/core/object"
)

// The printers of the storage kinds, as kube's pkg/printers/internalversion
// prints them.

// PersistentVolumeClaim prints PersistentVolumeClaims as kube-apiserver does.
var PersistentVolumeClaim = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Status", Type: "string", Description: descPvcPhase},
		{Name: "Volume", Type: "string", Description: descPvcVolume},
		{Name: "Capacity", Type: "string", Description: descPvcCapacity},
		{Name: "Access Modes", Type: "string", Description: descPvcAccess},
		{Name: "StorageClass", Type: "string", Description: "StorageClass of the pvc"},
		{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pvc"},
		ageColumn,
		{Name: "VolumeMode", Type: "string", Priority: 1, Description: descPvcMode},
	},
	cells: func(obj object.Object, now time.Time) []any {
		spec, status := mapAt(obj, "spec"), mapAt(obj, "status")
		volume, capacity, modes := strAt(spec, "volumeName"), "", ""
		if volume != "" {
			capacity, modes = strAt(status, "capacity", "storage"), accessModesString(status)
		}
		return []any{name(obj), volumePhase(obj, "Pending"), volume, capacity, modes, storageClass(obj),
			volumeAttributesClass(spec), created(obj, now), volumeMode(spec)}
	},
}

// PersistentVolume prints PersistentVolumes as kube-apiserver does.
var PersistentVolume = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Capacity", Type: "string", Description: descPvCapacity},
		{Name: "Access Modes", Type: "string", Description: descPvAccess},
		{Name: "Reclaim Policy", Type: "string", Description: descPvReclaim},
		{Name: "Status", Type: "string", Description: descPvPhase},
		{Name: "Claim", Type: "string", Description: descPvClaim},
		{Name: "StorageClass", Type: "string", Description: "StorageClass of the pv"},
		{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pv"},
		{Name: "Reason", Type: "string", Description: descPvReason},
		ageColumn,
		{Name: "VolumeMode", Type: "string", Priority: 1, Description: descPvMode},
	},
	cells: func(obj object.Object, now time.Time) []any {
		spec := mapAt(obj, "spec")
		capacity := strAt(spec, "capacity", "storage")
		if capacity == "" {
			capacity = "0" // a zero quantity
		}
		reclaim := strAt(spec, "persistentVolumeReclaimPolicy")
		if reclaim == "" {
			reclaim = "Retain" // the default
		}
		claim := ""
		if ref := mapAt(spec, "claimRef"); ref != nil {
			claim = strAt(ref, "namespace") + "/" + strAt(ref, "name")
		}
		return []any{name(obj), capacity, accessModesString(spec), reclaim, volumePhase(obj, "Pending"), claim,
			storageClass(obj), volumeAttributesClass(spec), strAt(obj, "status", "reason"), created(obj, now), volumeMode(spec)}
	},
}

// StorageClass prints StorageClasses as kube-apiserver does.
var StorageClass = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Provisioner", Type: "string", Description: descScProvisioner},
		{Name: "ReclaimPolicy", Type: "string", Description: descScReclaim},
		{Name: "VolumeBindingMode", Type: "string", Description: descScBinding},
		{Name: "AllowVolumeExpansion", Type: "string", Description: descScExpansion},
		ageColumn,
	},
	cells: func(obj object.Object, now time.Time) []any {
		n := name(obj)
		annotations := mapAt(obj, "metadata", "annotations")
		if annotations["storageclass.kubernetes.io/is-default-class"] == "true" || annotations["storageclass.beta.kubernetes.io/is-default-class"] == "true" {
			n += " (default)"
		}
		reclaim, binding := strAt(obj, "reclaimPolicy"), strAt(obj, "volumeBindingMode")
		if reclaim == "" {
			reclaim = "Delete"
		}
		if binding == "" {
			binding = "Immediate"
		}
		return []any{n, strAt(obj, "provisioner"), reclaim, binding, boolAt(obj, "allowVolumeExpansion"), created(obj, now)}
	},
}

// volumePhase is a claim's or volume's STATUS cell: its phase (first when it
// has none), Terminating once it is being deleted.
func volumePhase(obj object.Object, first string) string {
	if object.Path(obj, "metadata", "deletionTimestamp") != nil {
		return "Terminating"
	}
	if phase := strAt(obj, "status", "phase"); phase != "" {
		return phase
	}
	return first
}

// accessModes are the access modes and their short forms, in the order the
// tables show them.
var accessModes = [...]string{"ReadWriteOnce", "RWO", "ReadOnlyMany", "ROX", "ReadWriteMany", "RWX", "ReadWriteOncePod", "RWOP"}

// accessModesString is kube's GetAccessModesAsString of m's accessModes.
func accessModesString(m map[string]any) string {
	var short []string
	for i := 0; i < len(accessModes); i += 2 {
		if slices.Contains(stringList(m["accessModes"]), accessModes[i]) {
			short = append(short, accessModes[i+1])
		}
	}
	return strings.Join(short, ",")
}

// storageClass is a claim's or volume's class, as kube's
// GetPersistentVolume[Claim]Class reads it: the beta annotation first.
func storageClass(obj object.Object) string {
	if class, ok := mapAt(obj, "metadata", "annotations")["volume.beta.kubernetes.io/storage-class"].(string); ok {
		return class
	}
	return strAt(obj, "spec", "storageClassName")
}

func volumeAttributesClass(spec map[string]any) string {
	if class, ok := spec["volumeAttributesClassName"].(string); ok {
		return class
	}
	return "<unset>"
}

func volumeMode(spec map[string]any) string {
	if mode := strAt(spec, "volumeMode"); mode != "" {
		return mode
	}
	return "Filesystem" // the default
}
