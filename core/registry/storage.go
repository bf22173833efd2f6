package registry

import (
	"slices"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/object"
)

// What kube's admission does with the storage kinds: the claims' default
// class and protection finalizers (the kinds' strategies are their
// descriptors', core/kinds).

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
	if best := a.store.newestDefault(a.store.schema.Lookup("storage.k8s.io", "v1", "storageclasses"), defaultClassAnnotation, betaDefaultClassAnnotation); best != "" {
		spec["storageClassName"] = best
	}
	return nil
}

// newestDefault is the name of the newest object of res, a cluster-scoped
// kind of classes that may not be served, that one of the annotations
// marks the default ("true"); by name when several are as new, "" when none
// is marked.
func (s *Store) newestDefault(res *api.Resource, annotations ...string) string {
	if res == nil {
		return ""
	}
	var best string
	var bestTime time.Time
	for _, class := range s.Decoded(res) {
		marks := object.StringMap(object.Meta(class), "annotations")
		if !slices.ContainsFunc(annotations, func(a string) bool { return marks[a] == "true" }) {
			continue
		}
		created, _ := time.Parse(time.RFC3339, object.MetaString(class, "creationTimestamp"))
		// Newest first, then by name (the list is by name).
		if best == "" || created.After(bestTime) {
			best, bestTime = object.MetaString(class, "name"), created
		}
	}
	return best
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
