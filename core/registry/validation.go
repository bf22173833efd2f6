package registry

import (
	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/types"
	"kubeplay/core/validation"
	"kubeplay/core/web"
)

// validateObjectMeta checks the generateName and the name (by the kind's
// rule) and the metadata the server reads.
func validateObjectMeta(meta map[string]any, res *api.Resource, name string) field.ErrorList {
	var prefix func(string) []string
	if res.Names == api.PathSegment {
		prefix = validation.PathSegmentPrefix
	}
	return validation.ObjectMeta(meta, name, func(n string) []string { return validateName(res.Names, n) }, prefix, res.Custom == nil)
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
func validateName(rule api.NameRule, name string) []string {
	if name == "" {
		return nil
	}
	switch rule {
	case api.DNSLabel:
		return validation.DNS1123Label(name)
	case api.DNS1035Label:
		return validation.DNS1035Label(name)
	case api.PathSegment:
		return validation.PathSegmentName(name)
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
func checkStorageSize(res *api.Resource, key string, obj object.Object, stored []byte) error {
	if len(stored) <= maxStorageRequest-(256<<10) {
		return nil // protobuf is never much larger than JSON: no need to measure
	}
	size := len(stored)
	if types.Known(res.APIVersion(), res.Kind) {
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

// checksNoMetadata are the kinds whose own validation checks no metadata
// (Events', kube's legacy rules): kube checks a new one's metadata only when
// the kind's rules pass.
var checksNoMetadata = map[string]bool{"/Event": true}

// validateUpdatedLabels is the causes kube gives an update for its object's
// labels and annotations beyond the first check's (validateObjectMeta's).
func validateUpdatedLabels(meta map[string]any, res *api.Resource) field.ErrorList {
	errs := validation.Labels(object.StringMap(meta, "labels"), field.NewPath("metadata", "labels"))
	errs = append(errs, validation.Annotations(object.StringMap(meta, "annotations"), field.NewPath("metadata", "annotations"))...)
	var again field.ErrorList
	for range res.Hooks.LabelChecksOnUpdate - 1 {
		again = append(again, errs...)
	}
	return again
}
