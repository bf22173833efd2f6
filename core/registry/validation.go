package registry

import (
	"kubeplay/core/apierrors"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/schema"
	"kubeplay/core/validation"
	"kubeplay/core/web"
)

// validateObjectMeta checks the generateName and the name (by the kind's
// rule) and the metadata the server reads.
func validateObjectMeta(meta map[string]any, res *schema.Resource, name string) field.ErrorList {
	var errs field.ErrorList
	gen, _ := meta["generateName"].(string)
	if gen != "" {
		// A prefix, as kube's name rules check one: its trailing dash masked.
		prefix := gen
		if len(prefix) > 1 && prefix[len(prefix)-1] == '-' {
			prefix = prefix[:len(prefix)-2] + "a"
		}
		for _, msg := range validateName(res.Names, prefix) {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "generateName"), gen, msg))
		}
	}
	if name == "" && gen == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "name"), "name or generateName is required"))
	}
	for _, msg := range validateName(res.Names, name) {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, msg))
	}
	errs = append(errs, validation.Labels(object.StringMap(meta, "labels"), field.NewPath("metadata", "labels"))...)
	errs = append(errs, validation.Annotations(object.StringMap(meta, "annotations"), field.NewPath("metadata", "annotations"))...)
	errs = append(errs, validation.OwnerReferences(object.Objects(meta, "ownerReferences"), field.NewPath("metadata", "ownerReferences"))...)
	finalizers := object.Strings(meta, "finalizers")
	errs = append(errs, validation.Finalizers(finalizers, field.NewPath("metadata", "finalizers"))...)
	if res.Custom != nil {
		return errs // kube's core validation is for its own kinds
	}
	return append(errs, validation.KubeFinalizerNames(finalizers, field.NewPath("metadata", "finalizers"))...)
}

// validateObjectMetaUpdate checks what an update may not do to the metadata
// beyond validateObjectMeta: add a finalizer to an object being deleted.
// kube checks it twice (the generic registry, then the kind's strategy): the
// error comes twice.
func validateObjectMetaUpdate(meta, old map[string]any) field.ErrorList {
	if old["deletionTimestamp"] == nil {
		return nil
	}
	errs := validation.NoNewFinalizers(object.Strings(meta, "finalizers"), object.Strings(old, "finalizers"), field.NewPath("metadata", "finalizers"))
	return append(errs, errs...)
}

// validateName returns the messages for a name that breaks rule.
func validateName(rule schema.NameRule, name string) []string {
	if name == "" {
		return nil
	}
	switch rule {
	case schema.DNSLabel:
		return validation.DNS1123Label(name)
	case schema.DNS1035Label:
		return validation.DNS1035Label(name)
	default:
		return validation.DNS1123Subdomain(name)
	}
}

// maxStorageRequest is etcd's default --max-request-bytes, which bounds every
// object kube-apiserver stores.
const maxStorageRequest = 3 << 19

// checkStorageSize refuses an object etcd would refuse, as kube-apiserver answers
// it: a 500 with etcd's message. What etcd measures is its transaction: the
// object as kube stores it (protobuf for the built-in kinds, JSON otherwise) and
// its key, thrice; without managedFields, kubeplay's objects are a little smaller
// than kube's, so the edge is approximate. stored is the object's JSON.
func checkStorageSize(res *schema.Resource, key string, obj object.Object, stored []byte) error {
	if len(stored) <= maxStorageRequest-(256<<10) {
		return nil // protobuf is never much larger than JSON: no need to measure
	}
	size := len(stored)
	if protobuf.Supported(res.APIVersion(), res.Kind) {
		if raw, err := protobuf.Marshal(nil, res.APIVersion(), res.Kind, obj); err == nil {
			size = len(protobuf.AppendEnvelope(nil, res.APIVersion(), res.Kind, raw))
		}
	}
	etcdKey := len("/registry/") + len(key) // kube's keys hold no group for the built-in groups; close enough
	if size+3*etcdKey+13 > maxStorageRequest {
		return apierrors.New(web.StatusInternalServerError, "", "etcdserver: request is too large", nil)
	}
	return nil
}
