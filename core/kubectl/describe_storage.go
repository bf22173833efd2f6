package kubectl

import (
	"fmt"
	"strings"
)

// This file owns describe's PersistentVolume, StorageClass and
// PriorityClass.

func init() {
	describers["/PersistentVolume"] = describePV
	describers["storage.k8s.io/StorageClass"] = describeStorageClass
	describers["scheduling.k8s.io/PriorityClass"] = describePriorityClass
}

func describePV(c *Cmd, o *describeOptions, r Resource, _, name string) (string, error) {
	pv, err := c.getTyped(r.Path("", name))
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, pv, "PersistentVolume")
	spec := obj(pv, "spec")
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", name)
	w.labels("", "Labels", "\t", strMap(pv, "metadata", "labels"))
	w.annotations("Annotations", strMap(pv, "metadata", "annotations"))
	w.write(0, "Finalizers:\t%v\n", fmt.Sprint(strs(pv, "metadata", "finalizers")))
	class := stringAt(spec, "storageClassName")
	if a, ok := strMap(pv, "metadata", "annotations")["volume.beta.kubernetes.io/storage-class"]; ok {
		class = a
	}
	w.write(0, "StorageClass:\t%s\n", class)
	if has(pv, "metadata", "deletionTimestamp") {
		w.write(0, "Status:\tTerminating (lasts %s)\n", since(stringAt(pv, "metadata", "deletionTimestamp")))
	} else {
		w.write(0, "Status:\t%v\n", stringAt(pv, "status", "phase"))
	}
	claim := ""
	if ref := obj(spec, "claimRef"); ref != nil {
		claim = stringAt(ref, "namespace") + "/" + stringAt(ref, "name")
	}
	w.write(0, "Claim:\t%s\n", claim)
	w.write(0, "Reclaim Policy:\t%v\n", stringAt(spec, "persistentVolumeReclaimPolicy"))
	w.write(0, "Access Modes:\t%s\n", accessModes(strs(spec, "accessModes")))
	if has(spec, "volumeMode") {
		w.write(0, "VolumeMode:\t%v\n", stringAt(spec, "volumeMode"))
	}
	w.write(0, "Capacity:\t%s\n", orZero(stringAt(spec, "capacity", "storage")))
	w.write(0, "Node Affinity:\t")
	if req := obj(spec, "nodeAffinity", "required"); req == nil {
		w.line("<none>")
	} else {
		w.line("")
		w.write(1, "Required Terms:\t")
		if terms := list(req, "nodeSelectorTerms"); len(terms) == 0 {
			w.line("<none>")
		} else {
			w.line("")
			for i, term := range terms {
				w.selectorTerm(2, fmt.Sprintf("Term %v", i), list(term, "matchExpressions"), func(e any) string {
					return stringAt(e, "key") + " " + strings.ToLower(stringAt(e, "operator"))
				})
			}
		}
	}
	w.write(0, "Message:\t%s\n", stringAt(pv, "status", "message"))
	w.write(0, "Source:\n")
	w.volumeSource(spec)
	w.events(events)
	return w.String(), nil
}

// selectorTerm prints a node selector or topology term's expressions under
// title, each as op prints its key and operator, then its values.
func (w *describeWriter) selectorTerm(level int, title string, exprs []any, op func(any) string) {
	w.write(level, "%s:%s", title, "\t")
	if len(exprs) == 0 {
		w.line("<none>")
	}
	for j, e := range exprs {
		if j != 0 {
			w.write(level, "%s", "\t")
		}
		s := op(e)
		if vals := strs(e, "values"); len(vals) > 0 {
			s += " [" + strings.Join(vals, ", ") + "]"
		}
		w.write(0, "%s\n", s)
	}
}

// accessModes is GetAccessModesAsString: "RWO,ROX,RWX,RWOP" as present.
func accessModes(modes []string) string {
	got := map[string]bool{}
	for _, m := range modes {
		got[m] = true
	}
	var short []string
	for _, m := range [][2]string{{"ReadWriteOnce", "RWO"}, {"ReadOnlyMany", "ROX"}, {"ReadWriteMany", "RWX"}, {"ReadWriteOncePod", "RWOP"}} {
		if got[m[0]] {
			short = append(short, m[1])
		}
	}
	return strings.Join(short, ",")
}

func describeStorageClass(c *Cmd, o *describeOptions, r Resource, _, name string) (string, error) {
	sc, err := c.getTyped(r.Path("", name))
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, sc, "StorageClass")
	a := strMap(sc, "metadata", "annotations")
	isDefault := "No"
	if a["storageclass.kubernetes.io/is-default-class"] == "true" || a["storageclass.beta.kubernetes.io/is-default-class"] == "true" {
		isDefault = "Yes"
	}
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", name)
	w.write(0, "IsDefaultClass:\t%s\n", isDefault)
	w.write(0, "Annotations:\t%s\n", formatLabels(obj(sc, "metadata", "annotations")))
	w.write(0, "Provisioner:\t%s\n", stringAt(sc, "provisioner"))
	w.write(0, "Parameters:\t%s\n", formatLabels(obj(sc, "parameters")))
	expansion := "<unset>"
	if has(sc, "allowVolumeExpansion") {
		expansion = "False"
		if boolean(sc, "allowVolumeExpansion") {
			expansion = "True"
		}
	}
	w.write(0, "AllowVolumeExpansion:\t%s\n", expansion)
	if opts := strs(sc, "mountOptions"); len(opts) == 0 {
		w.write(0, "MountOptions:\t<none>\n")
	} else {
		w.write(0, "MountOptions:\n")
		for _, opt := range opts {
			w.write(1, "%s\n", opt)
		}
	}
	if has(sc, "reclaimPolicy") {
		w.write(0, "ReclaimPolicy:\t%s\n", stringAt(sc, "reclaimPolicy"))
	}
	if has(sc, "volumeBindingMode") {
		w.write(0, "VolumeBindingMode:\t%s\n", stringAt(sc, "volumeBindingMode"))
	}
	if has(sc, "allowedTopologies") {
		w.write(0, "AllowedTopologies:\t")
		terms := list(sc, "allowedTopologies")
		if len(terms) == 0 {
			w.line("<none>")
		} else {
			w.line("")
			for i, term := range terms {
				w.selectorTerm(1, fmt.Sprintf("Term %d", i), list(term, "matchLabelExpressions"), func(e any) string { return stringAt(e, "key") + " in" })
			}
		}
	}
	w.events(events)
	return w.String(), nil
}

func describePriorityClass(c *Cmd, o *describeOptions, r Resource, _, name string) (string, error) {
	pc, err := c.getTyped(r.Path("", name))
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, pc, "PriorityClass")
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", name)
	w.write(0, "Value:\t%v\n", num(pc, "value"))
	w.write(0, "GlobalDefault:\t%v\n", boolean(pc, "globalDefault"))
	w.write(0, "PreemptionPolicy:\t%s\n", stringAt(pc, "preemptionPolicy"))
	w.write(0, "Description:\t%s\n", stringAt(pc, "description"))
	w.write(0, "Annotations:\t%s\n", formatLabels(obj(pc, "metadata", "annotations")))
	w.events(events)
	return w.String(), nil
}
