package apiserver

import (
	"encoding/base64"
	"sort"

	"kubeplay/core/apierrors"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/schema"
	"kubeplay/core/validation"
	"kubeplay/core/web"
)

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

// validateLabels checks label keys and values as ValidateLabels does.
func validateLabels(labels map[string]string, path string) field.ErrorList {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs field.ErrorList
	for _, k := range keys {
		for _, msg := range validation.QualifiedName(k) {
			errs = append(errs, field.Invalid(field.NewPath(path), k, msg))
		}
		for _, msg := range validation.LabelValue(labels[k]) {
			errs = append(errs, field.Invalid(field.NewPath(path), labels[k], msg))
		}
	}
	return errs
}

// maxDataBytes is kube's limit on the bytes of a ConfigMap's or Secret's values
// (api.MaxSecretSize).
const maxDataBytes = 1 << 20

// validateDataSize applies kube's size limit to the values of a ConfigMap (data
// and binaryData, reported on the object, "[]") and a Secret (data, as bytes).
func validateDataSize(obj object.Object, res *schema.Resource) field.ErrorList {
	if res.Group != "" {
		return nil
	}
	var path *field.Path
	var size int
	switch res.Kind {
	case "ConfigMap":
		path = field.NewPath("").Key("")
		for _, v := range object.StringMap(obj, "data") {
			size += len(v)
		}
		for _, v := range object.StringMap(obj, "binaryData") {
			size += base64.StdEncoding.DecodedLen(len(v))
		}
	case "Secret":
		path = field.NewPath("data")
		for _, v := range object.StringMap(obj, "data") {
			size += base64.StdEncoding.DecodedLen(len(v))
		}
	default:
		return nil
	}
	if size <= maxDataBytes {
		return nil
	}
	return field.ErrorList{field.TooLong(path, maxDataBytes)}
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
	if protobufServed(res) {
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
