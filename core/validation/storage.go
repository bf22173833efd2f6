package validation

import (
	"path"
	"slices"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/quantity"
)

// The rules of PersistentVolumes (ValidatePersistentVolume and its update)
// and StorageClasses (ValidateStorageClass and its update), as kube words
// them: the common cases. Of the volume sources, hostPath, local, nfs and csi
// are checked (the others only counted); a node affinity's matchFields and a
// class's allowedTopologies are not checked.

// persistentVolumeTypes are a PersistentVolumeSource's fields in the order
// kube checks them, each with the path kube names when it is one too many
// ("": kube counts it without refusing it).
var persistentVolumeTypes = [...]string{
	"hostPath", "hostPath", "gcePersistentDisk", "gcePersistentDisk", "awsElasticBlockStore", "awsElasticBlockStore",
	"glusterfs", "glusterfs", "flocker", "flocker", "nfs", "nfs", "rbd", "rbd", "quobyte", "quobyte", "cephfs", "cephFS",
	"iscsi", "iscsi", "cinder", "cinder", "fc", "fc", "flexVolume", "", "azureFile", "azureFile",
	"vsphereVolume", "vsphereVolume", "photonPersistentDisk", "photonPersistentDisk", "portworxVolume", "portworxVolume",
	"azureDisk", "azureDisk", "scaleIO", "scaleIO", "local", "local", "storageos", "storageos", "csi", "csi",
}

// The values kube supports, sorted as its messages list them.
var (
	pvAccessModes     = []string{"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"}
	pvReclaimPolicies = []string{"Delete", "Recycle", "Retain"}
	pvVolumeModes     = []string{"Block", "Filesystem"}
	hostPathTypes     = []string{"", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"}
)

// PersistentVolume checks a new PersistentVolume's spec and its mount
// options annotation.
func PersistentVolume(pv object.Object) field.ErrorList {
	errs := persistentVolumeSpec(fields(pv).obj("spec"), field.NewPath("spec"), false)
	return append(errs, mountOptions(pv)...)
}

// PersistentVolumeUpdate checks an update of a PersistentVolume: its spec
// (twice, as kube's update validation checks the new volume again), and the
// volume source, mode and node affinity it may not change.
func PersistentVolumeUpdate(pv, old object.Object) field.ErrorList {
	spec, oldSpec := fields(pv).obj("spec"), fields(old).obj("spec")
	errs := PersistentVolume(pv)
	errs = append(errs, persistentVolumeSpec(spec, field.NewPath("spec"), false)...)
	for i := 0; i < len(persistentVolumeTypes); i += 2 {
		if typ := persistentVolumeTypes[i]; !semanticEqual(spec[typ], oldSpec[typ]) {
			add(&errs, field.Forbidden(field.NewPath("spec", "persistentvolumesource"), "spec.persistentvolumesource is immutable after creation"))
			break
		}
	}
	if spec.str("volumeMode") != oldSpec.str("volumeMode") {
		add(&errs, field.Invalid(field.NewPath("volumeMode"), spec.str("volumeMode"), fieldImmutable))
	}
	if oldSpec.has("nodeAffinity") && !semanticEqual(spec["nodeAffinity"], oldSpec["nodeAffinity"]) {
		// kube names the affinity by its Go syntax, with pointers.
		add(&errs, field.Invalid(field.NewPath("nodeAffinity"), rawName("core.VolumeNodeAffinity{...}"), fieldImmutable+", except for updating from beta label to GA"))
	}
	return errs
}

// inlineVolumeSpec is ValidatePersistentVolumeSpec for an inline volume (a
// VolumeAttachment's): a CSI volume without claim, capacity, node
// affinity or class, retained, a file system.
func inlineVolumeSpec(spec fields, p *field.Path) field.ErrorList {
	return persistentVolumeSpec(spec, p, true)
}

// persistentVolumeSpec is ValidatePersistentVolumeSpec, for an inline
// volume or not.
func persistentVolumeSpec(spec fields, p *field.Path, inline bool) field.ErrorList {
	var errs field.ErrorList
	const inlineForbids = "may not be specified in the context of inline volumes"
	if inline {
		if spec.has("claimRef") {
			add(&errs, field.Forbidden(p.Child("claimRef"), inlineForbids))
		}
		if len(spec.obj("capacity")) != 0 {
			add(&errs, field.Forbidden(p.Child("capacity"), inlineForbids))
		}
		if !spec.has("csi") {
			add(&errs, field.Required(p.Child("csi"), "has to be specified in the context of inline volumes"))
		}
	}
	modes := spec.strs("accessModes")
	if len(modes) == 0 {
		add(&errs, field.Required(p.Child("accessModes"), ""))
	}
	oncePod, other := false, false
	for _, m := range modes {
		if !slices.Contains(pvAccessModes, m) {
			add(&errs, field.NotSupported(p.Child("accessModes"), m, pvAccessModes))
		} else if m == "ReadWriteOncePod" {
			oncePod = true
		} else {
			other = true
		}
	}
	if oncePod && other {
		add(&errs, field.Forbidden(p.Child("accessModes"), "may not use ReadWriteOncePod with other access modes"))
	}
	if !inline {
		add(&errs, capacity(spec, p.Child("capacity"))...)
	}
	switch policy := spec.str("persistentVolumeReclaimPolicy"); {
	case policy == "":
	case inline && policy != "Retain":
		add(&errs, field.Forbidden(p.Child("persistentVolumeReclaimPolicy"), "may only be Retain in the context of inline volumes"))
	case !inline && !slices.Contains(pvReclaimPolicies, policy):
		add(&errs, field.NotSupported(p.Child("persistentVolumeReclaimPolicy"), policy, pvReclaimPolicies))
	}
	affinity := spec.obj("nodeAffinity")
	switch {
	case affinity != nil && inline:
		add(&errs, field.Forbidden(p.Child("nodeAffinity"), inlineForbids))
	case affinity != nil:
		add(&errs, volumeNodeAffinity(affinity, p.Child("nodeAffinity"))...)
	}
	n := 0
	for i := 0; i < len(persistentVolumeTypes); i += 2 {
		typ, forbidden := persistentVolumeTypes[i], persistentVolumeTypes[i+1]
		if !spec.has(typ) {
			continue
		}
		if n > 0 && forbidden != "" {
			add(&errs, field.Forbidden(p.Child(forbidden), "may not specify more than 1 volume type"))
			continue
		}
		n++
		src, sp := spec.obj(typ), p.Child(typ)
		switch typ {
		case "hostPath":
			add(&errs, hostPathSource(src, sp)...)
		case "nfs":
			if src.str("server") == "" {
				add(&errs, field.Required(sp.Child("server"), ""))
			}
			if src.str("path") == "" {
				add(&errs, field.Required(sp.Child("path"), ""))
			}
			if !path.IsAbs(src.str("path")) {
				add(&errs, field.Invalid(sp.Child("path"), src.str("path"), "must be an absolute path"))
			}
		case "local":
			if src.str("path") == "" {
				add(&errs, field.Required(sp.Child("path"), ""))
			} else {
				add(&errs, noBacksteps(src.str("path"), sp.Child("path"))...)
			}
			if affinity == nil {
				add(&errs, field.Required(p.Child("nodeAffinity"), "Local volume requires node affinity"))
			}
		case "csi":
			driver := src.str("driver")
			if driver == "" {
				add(&errs, field.Required(sp.Child("driver"), ""))
			}
			if len(driver) > 63 {
				add(&errs, field.TooLong(sp.Child("driver"), 63))
			}
			addInvalid(&errs, sp.Child("driver"), driver, DNS1123Subdomain(strings.ToLower(driver)))
			if src.str("volumeHandle") == "" {
				add(&errs, field.Required(sp.Child("volumeHandle"), ""))
			}
		}
	}
	if n == 0 {
		add(&errs, field.Required(p, "must specify a volume type"))
	}
	if spec.has("hostPath") && path.Clean(spec.obj("hostPath").str("path")) == "/" && spec.str("persistentVolumeReclaimPolicy") == "Recycle" {
		add(&errs, field.Forbidden(p.Child("persistentVolumeReclaimPolicy"), "may not be 'recycle' for a hostPath mount of '/'"))
	}
	switch class := spec.str("storageClassName"); {
	case class != "" && inline:
		add(&errs, field.Forbidden(p.Child("storageClassName"), inlineForbids))
	case class != "":
		addInvalid(&errs, p.Child("storageClassName"), class, DNS1123Subdomain(class))
	}
	switch mode, ok := spec["volumeMode"].(string); {
	case ok && inline && mode != "Filesystem":
		add(&errs, field.Forbidden(p.Child("volumeMode"), "may not specify volumeMode other than Filesystem in the context of inline volumes"))
	case ok && !inline && !slices.Contains(pvVolumeModes, mode):
		add(&errs, field.NotSupported(p.Child("volumeMode"), mode, pvVolumeModes))
	}
	return errs
}

// capacity checks a volume's capacity: storage and nothing else, more than
// nothing. kube names the capacity it refuses by its Go syntax, which only
// an empty one has here.
func capacity(spec fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	capacity := spec.strMap("capacity")
	if len(capacity) == 0 {
		add(&errs, field.Required(p, ""))
	}
	if _, ok := capacity["storage"]; !ok || len(capacity) > 1 {
		value := rawName("core.ResourceList{}")
		if capacity == nil {
			value = "core.ResourceList(nil)"
		}
		add(&errs, field.NotSupported(p, value, []string{"storage"}))
	}
	for _, k := range sortedKeys(capacity) {
		q := capacity[k]
		if milli := quantity.MilliValue(q); milli < 0 {
			value := milli / 1000
			if milli%1000 != 0 {
				value-- // kube's Value rounds away from zero
			}
			add(&errs, field.Invalid(p.Key(k), value, "must be a valid resource quantity"))
		}
		if quantity.Compare(q, "0") <= 0 {
			canonical, _ := quantity.Canonical(q)
			add(&errs, field.Invalid(p.Key(k), canonical, "must be greater than zero"))
		}
	}
	return errs
}

// volumeNodeAffinity is validateVolumeNodeAffinity: a required node selector,
// whatever its values.
func volumeNodeAffinity(affinity fields, p *field.Path) field.ErrorList {
	required := affinity.obj("required")
	if required == nil {
		return field.ErrorList{field.Required(p.Child("required"), "must specify required node constraints")}
	}
	tp := p.Child("required").Child("nodeSelectorTerms")
	terms := required.list("nodeSelectorTerms")
	if len(terms) == 0 {
		return field.ErrorList{field.Required(tp, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i, term := range terms {
		for j, expr := range term.list("matchExpressions") {
			ep := tp.Index(i).Child("matchExpressions").Index(j)
			values := len(expr.strs("values"))
			switch op := expr.str("operator"); op {
			case "In", "NotIn":
				if values == 0 {
					add(&errs, field.Required(ep.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
				}
			case "Exists", "DoesNotExist":
				if values > 0 {
					add(&errs, field.Forbidden(ep.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
				}
			case "Gt", "Lt":
				if values != 1 {
					add(&errs, field.Required(ep.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
				}
			default:
				add(&errs, field.Invalid(ep.Child("operator"), op, "not a valid selector operator"))
			}
			addInvalid(&errs, ep.Child("key"), expr.str("key"), QualifiedName(expr.str("key")))
		}
	}
	return errs
}

// hostPathSource is validateHostPathVolumeSource, a Pod's and a
// PersistentVolume's.
func hostPathSource(src fields, p *field.Path) field.ErrorList {
	if src.str("path") == "" {
		return field.ErrorList{field.Required(p.Child("path"), "")}
	}
	errs := noBacksteps(src.str("path"), p.Child("path"))
	if typ, ok := src["type"].(string); ok && !slices.Contains(hostPathTypes, typ) {
		add(&errs, field.NotSupported(p.Child("type"), typ, hostPathTypes))
	}
	return errs
}

// noBacksteps is validatePathNoBacksteps.
func noBacksteps(s string, p *field.Path) field.ErrorList {
	if slices.Contains(strings.Split(s, "/"), "..") {
		return field.ErrorList{field.Invalid(p, s, "must not contain '..'")}
	}
	return nil
}

// mountOptions refuses the mount options annotation on the volume types
// that take no mount options.
func mountOptions(pv object.Object) field.ErrorList {
	const annotation = "volume.beta.kubernetes.io/mount-options"
	spec := fields(pv).obj("spec")
	for _, typ := range []string{"gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "nfs", "rbd", "quobyte", "iscsi",
		"cinder", "cephfs", "azureFile", "vsphereVolume", "azureDisk", "photonPersistentDisk"} {
		if spec.has(typ) {
			return nil
		}
	}
	if _, ok := object.StringMap(object.Meta(pv), "annotations")[annotation]; ok {
		return field.ErrorList{field.Forbidden(field.NewPath("metadata", "annotations").Key(annotation), "may not specify mount options for this volume type")}
	}
	return nil
}

// deprecatedVolumeAnnotations are the annotations kube warns of on a
// PersistentVolume, each with its word.
var deprecatedVolumeAnnotations = [...]string{
	"volume.beta.kubernetes.io/storage-class", `deprecated since v1.8; use "storageClassName" attribute instead`,
	"volume.beta.kubernetes.io/mount-options", `deprecated since v1.31; use "mountOptions" attribute instead`,
}

// PersistentVolumeWarnings are kube's warnings for a PersistentVolume: its
// deprecated annotations and reclaim policy.
func PersistentVolumeWarnings(pv object.Object) []string {
	var out []string
	annotations := object.StringMap(object.Meta(pv), "annotations")
	for i := 0; i < len(deprecatedVolumeAnnotations); i += 2 {
		if _, ok := annotations[deprecatedVolumeAnnotations[i]]; ok {
			out = append(out, field.NewPath("metadata", "annotations").Key(deprecatedVolumeAnnotations[i]).String()+": "+deprecatedVolumeAnnotations[i+1])
		}
	}
	if fields(pv).obj("spec").str("persistentVolumeReclaimPolicy") == "Recycle" {
		out = append(out, "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.")
	}
	return out
}

// StorageClass checks a StorageClass: a provisioner that is a qualified
// name, parameters of bounded size, a reclaim policy and a binding mode kube
// supports.
func StorageClass(sc object.Object) field.ErrorList {
	s := fields(sc)
	var errs field.ErrorList
	provisioner := s.str("provisioner")
	if provisioner == "" {
		add(&errs, field.Required(field.NewPath("provisioner"), ""))
	} else {
		addInvalid(&errs, field.NewPath("provisioner"), strings.ToLower(provisioner), QualifiedName(strings.ToLower(provisioner)))
	}
	params := s.strMap("parameters")
	if len(params) > 512 {
		add(&errs, field.TooLong(field.NewPath("parameters"), 512))
	} else {
		size := 0
		for _, k := range sortedKeys(params) {
			if k == "" {
				add(&errs, field.Invalid(field.NewPath("parameters"), k, "field can not be empty."))
			}
			size += len(k) + len(params[k])
		}
		if size > 256<<10 {
			add(&errs, field.TooLong(field.NewPath("parameters"), 256<<10))
		}
	}
	if policy := s.str("reclaimPolicy"); policy != "" && policy != "Delete" && policy != "Retain" {
		add(&errs, field.NotSupported(field.NewPath("reclaimPolicy"), policy, []string{"Delete", "Retain"}))
	}
	if mode := s.str("volumeBindingMode"); mode != "Immediate" && mode != "WaitForFirstConsumer" {
		add(&errs, field.NotSupported(field.NewPath("volumeBindingMode"), mode, []string{"Immediate", "WaitForFirstConsumer"}))
	}
	return errs
}

// StorageClassUpdate checks an update of a StorageClass: its rules, and
// that its parameters, provisioner, reclaim policy and binding mode stay.
func StorageClassUpdate(sc, old object.Object) field.ErrorList {
	errs := StorageClass(sc)
	for _, f := range [...]string{"parameters", "provisioner", "reclaimPolicy"} {
		if !semanticEqual(sc[f], old[f]) {
			add(&errs, field.Forbidden(field.NewPath(f), "updates to "+f+" are forbidden."))
		}
	}
	if mode := fields(sc).str("volumeBindingMode"); mode != fields(old).str("volumeBindingMode") {
		add(&errs, field.Invalid(field.NewPath("volumeBindingMode"), mode, fieldImmutable))
	}
	return errs
}
