package validation

import (
	"fmt"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/quantity"
)

// The rules of storage.k8s.io/v1's CSI kinds (CSIDriver, CSINode,
// VolumeAttachment, CSIStorageCapacity), as k8s.io/kubernetes's
// pkg/apis/storage/validation judges them (the metadata aside, which every
// kind's is), with kube 1.32's feature gates (SELinuxMountReadWriteOncePod
// on).

// CSIDriver is validateCSIDriverSpec: the booleans the defaults set, a
// supported fsGroupPolicy and volume lifecycle modes, and distinct token
// audiences with sane expirations.
func CSIDriver(d object.Object) field.ErrorList {
	spec := fields(d).obj("spec")
	p := field.NewPath("spec")
	var errs field.ErrorList
	// kube names attachRequired's path attachedRequired.
	for _, f := range [...][2]string{{"attachRequired", "attachedRequired"}, {"podInfoOnMount", "podInfoOnMount"}, {"storageCapacity", "storageCapacity"}} {
		if !spec.has(f[0]) {
			add(&errs, field.Required(p.Child(f[1]), ""))
		}
	}
	if policy, ok := spec["fsGroupPolicy"].(string); ok && policy != "File" && policy != "None" && policy != "ReadWriteOnceWithFSType" {
		add(&errs, field.NotSupported(p.Child("fsGroupPolicy"), policy, []string{"File", "None", "ReadWriteOnceWithFSType"}))
	}
	audiences := map[string]bool{}
	for i, tr := range spec.list("tokenRequests") {
		ip := p.Child("tokenRequests").Index(i)
		audience := tr.str("audience")
		if audiences[audience] {
			add(&errs, field.Duplicate(ip.Child("audience"), audience))
			continue
		}
		audiences[audience] = true
		if !tr.has("expirationSeconds") {
			continue
		}
		switch seconds := tr.num("expirationSeconds"); {
		case seconds < 600:
			add(&errs, field.Invalid(ip.Child("expirationSeconds"), seconds, "may not specify a duration less than 10 minutes"))
		case seconds > 1<<32:
			add(&errs, field.Invalid(ip.Child("expirationSeconds"), seconds, "may not specify a duration larger than 2^32 seconds"))
		}
	}
	for _, mode := range spec.strs("volumeLifecycleModes") {
		if mode != "Persistent" && mode != "Ephemeral" {
			add(&errs, field.NotSupported(p.Child("volumeLifecycleModes"), mode, []string{"Persistent", "Ephemeral"}))
		}
	}
	if !spec.has("seLinuxMount") {
		add(&errs, field.Required(p.Child("seLinuxMount"), ""))
	}
	return errs
}

// CSIDriverUpdate is ValidateCSIDriverUpdate (the metadata aside): the
// spec's rules, and attachRequired and the volume lifecycle modes stay.
func CSIDriverUpdate(d, old object.Object) field.ErrorList {
	errs := CSIDriver(d)
	spec, oldSpec := fields(d).obj("spec"), fields(old).obj("spec")
	if !semanticEqual(spec["attachRequired"], oldSpec["attachRequired"]) {
		add(&errs, field.Invalid(field.NewPath("spec", "attachedRequired"), spec["attachRequired"], fieldImmutable))
	}
	if !semanticEqual(spec["volumeLifecycleModes"], oldSpec["volumeLifecycleModes"]) {
		add(&errs, field.Invalid(field.NewPath("spec", "volumeLifecycleModes"), goStringList("storage.VolumeLifecycleMode", spec.strs("volumeLifecycleModes")), fieldImmutable))
	}
	return errs
}

// goStringList is a list of strings as %#v prints it, of element type typ.
func goStringList(typ string, list []string) field.GoSyntax {
	if list == nil {
		return field.GoSyntax("[]" + typ + "(nil)")
	}
	return field.GoSyntax(strings.Replace(fmt.Sprintf("%#v", list), "[]string", "[]"+typ, 1))
}

// CSINode is validateCSINodeSpec: each driver a CSI driver name, once, with
// a node ID of at most 256 characters (kube's strategy allows the long
// ones), a count that is not negative, and topology keys that are distinct
// qualified names.
func CSINode(n object.Object) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, d := range fields(n).obj("spec").list("drivers") {
		p := field.NewPath("spec", "drivers").Index(i)
		name := d.str("name")
		add(&errs, csiDriverName(name, p.Child("name"))...)
		nodeID := d.str("nodeID")
		if nodeID == "" {
			add(&errs, field.Required(p.Child("nodeID"), ""))
		}
		if len(nodeID) > 256 {
			add(&errs, field.Invalid(p.Child("nodeID"), nodeID, "must be 256 characters or less"))
		}
		if a := d.obj("allocatable"); a.has("count") {
			add(&errs, nonNegative(a.num("count"), p.Child("allocatable").Child("count"))...)
		}
		if seen[name] {
			add(&errs, field.Duplicate(p.Child("name"), name))
		}
		seen[name] = true
		keys := map[string]bool{}
		for _, key := range d.strs("topologyKeys") {
			if key == "" {
				add(&errs, field.Required(p, ""))
			}
			if keys[key] {
				add(&errs, field.Duplicate(p, key))
			}
			keys[key] = true
			addInvalid(&errs, p, key, QualifiedName(key))
		}
	}
	return errs
}

// CSINodeUpdate is ValidateCSINodeUpdate (the metadata aside): the rules
// again, and a driver of the old node's, named alike, stays as it was.
func CSINodeUpdate(n, old object.Object) field.ErrorList {
	errs := CSINode(n)
	drivers := fields(n).obj("spec").list("drivers")
	for _, o := range fields(old).obj("spec").list("drivers") {
		for _, d := range drivers {
			if o.str("name") == d.str("name") && !semanticEqual(map[string]any(o), map[string]any(d)) {
				add(&errs, field.Invalid(field.NewPath("CSINodeDriver"), csiNodeDriverGoSyntax(d), fieldImmutable))
			}
		}
	}
	return errs
}

// goPointer stands for the address kube's messages print for a pointer
// that is set: kubeplay's objects have no addresses.
const goPointer = "0xc000000000"

// csiNodeDriverGoSyntax is a CSINode's driver as kube's messages print its
// internal type.
func csiNodeDriverGoSyntax(d fields) field.GoSyntax {
	allocatable := "(*storage.VolumeNodeResources)(nil)"
	if d.has("allocatable") {
		allocatable = "(*storage.VolumeNodeResources)(" + goPointer + ")"
	}
	keys := "[]string(nil)"
	if d.has("topologyKeys") {
		keys = fmt.Sprintf("%#v", d.strs("topologyKeys"))
	}
	return field.GoSyntax(fmt.Sprintf("storage.CSINodeDriver{Name:%q, NodeID:%q, TopologyKeys:%s, Allocatable:%s}", d.str("name"), d.str("nodeID"), keys, allocatable))
}

// csiDriverName is ValidateCSIDriverName: required, at most 63 characters,
// a DNS subdomain once lowercased.
func csiDriverName(name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		add(&errs, field.Required(p, ""))
	}
	if len(name) > 63 {
		add(&errs, field.TooLong(p, 63))
	}
	addInvalid(&errs, p, name, DNS1123Subdomain(strings.ToLower(name)))
	return errs
}

// VolumeAttachment is ValidateVolumeAttachment and, for a new one,
// ValidateVolumeAttachmentV1 (the metadata aside): an attacher, exactly
// one source (an inline volume's spec as kube checks inline volumes), a
// node name, a status of bounded size; then the attacher as a CSI driver
// name and the volume's name.
func VolumeAttachment(va object.Object) field.ErrorList {
	errs := volumeAttachment(va)
	spec := fields(va).obj("spec")
	add(&errs, csiDriverName(spec.str("attacher"), field.NewPath("spec.attacher"))...)
	if source := spec.obj("source"); source.has("persistentVolumeName") {
		name := source.str("persistentVolumeName")
		addInvalid(&errs, field.NewPath("spec.source.persistentVolumeName"), name, DNS1123Subdomain(name))
	}
	return errs
}

// volumeAttachment is ValidateVolumeAttachment (the metadata aside).
func volumeAttachment(va object.Object) field.ErrorList {
	var errs field.ErrorList
	spec, p := fields(va).obj("spec"), field.NewPath("spec")
	if spec.str("attacher") == "" {
		add(&errs, field.Required(p.Child("attacher"), ""))
	}
	source, sp := spec.obj("source"), p.Child("source")
	const exactlyOne = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"
	switch inline, named := source.has("inlineVolumeSpec"), source.has("persistentVolumeName"); {
	case !inline && !named:
		add(&errs, field.Required(sp, exactlyOne))
	case inline && named:
		add(&errs, field.Forbidden(sp, exactlyOne))
	case named:
		if source.str("persistentVolumeName") == "" {
			add(&errs, field.Required(sp.Child("persistentVolumeName"), "must specify non empty persistentVolumeName"))
		}
	default:
		add(&errs, inlineVolumeSpec(source.obj("inlineVolumeSpec"), sp.Child("inlineVolumeSpec"))...)
	}
	node := spec.str("nodeName")
	addInvalid(&errs, p.Child("nodeName"), node, DNS1123Subdomain(node))
	status, stp := fields(va).obj("status"), field.NewPath("status")
	size := 0
	for k, v := range status.strMap("attachmentMetadata") {
		size += len(k) + len(v)
	}
	if size > 256<<10 {
		add(&errs, field.TooLong(stp.Child("attachmentMetadata"), 256<<10))
	}
	for _, f := range [...]string{"attachError", "detachError"} {
		// kube words the limit of 1024 bytes as the metadata's.
		if e := status.obj(f); len(e.str("message")) > 1024 {
			add(&errs, field.TooLong(stp.Child(f).Child("message"), 256<<10))
		}
	}
	return errs
}

// VolumeAttachmentUpdate is what kube's strategy checks of an update, of
// the object or of its status: ValidateVolumeAttachment, then
// ValidateVolumeAttachmentUpdate (the same again, and a spec that stays).
func VolumeAttachmentUpdate(va, old object.Object) field.ErrorList {
	errs := volumeAttachment(va)
	errs = append(errs, volumeAttachment(va)...)
	if spec := fields(va).obj("spec"); !semanticEqual(map[string]any(spec), old["spec"]) {
		add(&errs, field.Invalid(field.NewPath("spec"), volumeAttachmentSpecGoSyntax(spec), fieldImmutable))
	}
	return errs
}

// volumeAttachmentSpecGoSyntax is a VolumeAttachment's spec as kube's
// messages print its internal type.
func volumeAttachmentSpecGoSyntax(spec fields) field.GoSyntax {
	source := spec.obj("source")
	pointer := func(key, typ string) string {
		if source.has(key) {
			return "(*" + typ + ")(" + goPointer + ")"
		}
		return "(*" + typ + ")(nil)"
	}
	return field.GoSyntax(fmt.Sprintf("storage.VolumeAttachmentSpec{Attacher:%q, Source:storage.VolumeAttachmentSource{PersistentVolumeName:%s, InlineVolumeSpec:%s}, NodeName:%q}",
		spec.str("attacher"), pointer("persistentVolumeName", "string"), pointer("inlineVolumeSpec", "core.PersistentVolumeSpec"), spec.str("nodeName")))
}

// CSIStorageCapacity is ValidateCSIStorageCapacity (the metadata aside): a
// valid node topology selector, a storage class name, a capacity that is
// not negative.
func CSIStorageCapacity(c object.Object) field.ErrorList {
	f := fields(c)
	var errs field.ErrorList
	if topology := f.obj("nodeTopology"); topology != nil {
		errs = selectorErrors(topology, field.NewPath("nodeTopology"))
	}
	class := f.str("storageClassName")
	addInvalid(&errs, field.NewPath("storageClassName"), class, DNS1123Subdomain(class))
	if q, ok := f["capacity"].(string); ok && quantity.Compare(q, "0") < 0 {
		canonical, _ := quantity.Canonical(q)
		add(&errs, field.Invalid(field.NewPath("capacity"), canonical, isNegativeErrorMsg))
	}
	return errs
}

// CSIStorageCapacityUpdate is ValidateCSIStorageCapacityUpdate (the
// metadata aside) after the rules: the node topology and the storage class
// stay.
func CSIStorageCapacityUpdate(c, old object.Object) field.ErrorList {
	errs := CSIStorageCapacity(c)
	if !semanticEqual(c["nodeTopology"], old["nodeTopology"]) {
		add(&errs, field.Invalid(field.NewPath("nodeTopology"), labelSelectorGoSyntax(fields(c).obj("nodeTopology")), fieldImmutable))
	}
	if class := fields(c).str("storageClassName"); class != fields(old).str("storageClassName") {
		add(&errs, field.Invalid(field.NewPath("storageClassName"), class, fieldImmutable))
	}
	return errs
}

// labelSelectorGoSyntax is a label selector as kube's messages print it
// (%#v of metav1.LabelSelector; null when there is none).
func labelSelectorGoSyntax(sel fields) any {
	if sel == nil {
		return nil
	}
	var b strings.Builder
	b.WriteString("v1.LabelSelector{MatchLabels:")
	if labels := sel.strMap("matchLabels"); labels == nil {
		b.WriteString("map[string]string(nil)")
	} else {
		fmt.Fprintf(&b, "%#v", labels)
	}
	b.WriteString(", MatchExpressions:")
	if !sel.has("matchExpressions") {
		b.WriteString("[]v1.LabelSelectorRequirement(nil)}")
		return field.GoSyntax(b.String())
	}
	b.WriteString("[]v1.LabelSelectorRequirement{")
	for i, r := range sel.list("matchExpressions") {
		if i > 0 {
			b.WriteString(", ")
		}
		values := "[]string(nil)"
		if r.has("values") {
			values = fmt.Sprintf("%#v", r.strs("values"))
		}
		fmt.Fprintf(&b, "v1.LabelSelectorRequirement{Key:%q, Operator:%q, Values:%s}", r.str("key"), r.str("operator"), values)
	}
	b.WriteString("}}")
	return field.GoSyntax(b.String())
}

// CSIStorageCapacityWarnings is GetWarningsForCSIStorageCapacity: one for
// each deprecated node label its node topology selects by (the labels in
// key order; kube ranges over a map).
func CSIStorageCapacityWarnings(c object.Object) []string {
	topology := fields(c).obj("nodeTopology")
	p := field.NewPath("nodeTopology")
	var warnings []string
	for i, r := range topology.list("matchExpressions") {
		if msg, ok := deprecatedNodeLabels[r.str("key")]; ok {
			warnings = append(warnings, fmt.Sprintf("%s: %s is %s", p.Child("matchExpressions").Index(i).Child("key"), r.str("key"), msg))
		}
	}
	labels := topology.strMap("matchLabels")
	for _, k := range sortedKeys(labels) {
		if msg, ok := deprecatedNodeLabels[k]; ok {
			warnings = append(warnings, p.Child("matchLabels").Child(k).String()+": "+msg)
		}
	}
	return warnings
}
