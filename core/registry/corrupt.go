package registry

import (
	"errors"
	"fmt"
	"strings"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/storage"
	"kubeplay/core/web"
)

// Corrupt objects (K8S-DEL-3). A real cluster can hold objects its API server
// cannot read: encrypted at rest with a key it no longer has, or written to
// etcd by something else. kube answers every read of one with a 500 and every
// list of its collection with a 500 StorageReadError, and only a delete with
// ignoreStoreReadErrorWithClusterBreakingPotential removes it, skipping its
// finalizers and preconditions. kubeplay's objects are stored as JSON; a
// corrupt one is any value that is not a JSON object: Corrupt writes one, as
// if encrypted with a key the server has lost, for teaching.

// corruptValue is what Corrupt stores: what kube's aescbc encryption writes,
// with a key this server does not have.
const corruptValue = "k8s:enc:aescbc:v1:key1:\x8f\x1c\xa2\x07\x5e\xd3\x91\x44 (encrypted with a key this server no longer has)"

// corruptReason is kube's reading error for such a value.
const corruptReason = "data from the storage is not transformable revision=0: identity transformer tried to read encrypted data"

// IsCorrupt says whether a stored value cannot be read as an object: the
// store holds JSON objects only.
func IsCorrupt[T string | []byte](value T) bool { return len(value) == 0 || value[0] != '{' }

// etcdKey is the key kube-apiserver would store the object under in etcd,
// after /registry: the resource's prefix (a few built-in kinds have their
// own), the namespace and the name.
func etcdKey(res *api.Resource, namespace, name string) string {
	prefix := "/" + res.Plural
	switch {
	case res.Group == "" && res.Plural == "services":
		prefix = "/services/specs"
	case res.Group == "" && res.Plural == "endpoints":
		prefix = "/services/endpoints"
	case res.Group == "" && res.Plural == "nodes":
		prefix = "/minions"
	case res.Group == "apiextensions.k8s.io":
		prefix = "/" + res.Group + "/" + res.Plural
	}
	if res.Namespaced {
		prefix += "/" + namespace
	}
	return prefix + "/" + name
}

// storageError is kube's StorageError for a corrupt object at key.
func storageError(key string) string {
	return fmt.Sprintf("StorageError: corrupt object, Code: 7, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: %s", key, corruptReason)
}

// CorruptObjectError is kube's answer to reading a corrupt object.
func CorruptObjectError(res *api.Resource, namespace, name string) *apierrors.Status {
	return apierrors.NewInternal(errors.New(storageError(etcdKey(res, namespace, name))))
}

// CheckReadable is kube's answer to a list whose items (store keys and
// values of res's collection) hold corrupt objects: a 500 StorageReadError
// naming each of them.
func CheckReadable(res *api.Resource, items []storage.Item) error {
	var causes []apierrors.StatusCause
	for _, it := range items {
		if !IsCorrupt(it.Value) {
			continue
		}
		namespace, name := splitKey(res, it.Key)
		key := "/registry" + etcdKey(res, namespace, name)
		causes = append(causes, apierrors.StatusCause{Type: "UnexpectedServerResponse", Message: storageError(key), Field: key})
	}
	if causes == nil {
		return nil
	}
	return apierrors.New(web.StatusInternalServerError, "StorageReadError",
		fmt.Sprintf("failed to read one or more %s from the storage", apierrors.Qualify(res.Group, res.Plural)),
		&apierrors.StatusDetails{Name: "list", Group: res.Group, Kind: res.Plural, Causes: causes})
}

// errUntransformable is kube's answer to an update of a corrupt object: the
// reading error, without the StorageError a get or delete wraps it in.
var errUntransformable = apierrors.NewInternal(errors.New(corruptReason))

// Corrupt replaces the stored target with a value the server cannot read
// (kubeplay's teaching affordance, not a kube API: POST
// /debug/kubeplay/corrupt). It changes the revision as a write does; watches
// see an ERROR event for it.
func (s *Store) Corrupt(t Target) error {
	_, _, err := s.storage.Mutate(t.key(), func(cur []byte, _ int64) (storage.Change, error) {
		if cur == nil {
			return storage.Change{}, apierrors.NewNotFound(t.served().Group, t.served().Plural, t.Name)
		}
		return storage.Change{Op: storage.Put, Value: []byte(corruptValue)}, nil
	})
	return err
}

// forceDeleteCorrupt is a delete with
// ignoreStoreReadErrorWithClusterBreakingPotential: only for a corrupt object,
// which it removes whatever its finalizers (kube's corruptObjectDeleter).
//
// kube's delete handler first asks the authorizer whether the user may
// "unsafe-delete-ignore-read-errors" the resource (a 403 otherwise), after
// validating the options and before this deleter runs. kubeplay's
// authorization is kube's AlwaysAllow (core/auth), which grants it to
// everyone; an authorizer that does not would ask here, about t.User.
func (s *Store) forceDeleteCorrupt(t Target) (DeleteResult, error) {
	if cur, ok := s.storage.Get(t.key()); !ok || !IsCorrupt(cur) {
		return DeleteResult{}, apierrors.NewInvalid(t.Res.Group, t.Res.Plural, t.Name, field.ErrorList{
			field.Invalid(field.NewPath("ignoreStoreReadErrorWithClusterBreakingPotential"), true,
				"is exclusively used to delete corrupt object(s), try again by removing this option")})
	}
	if err := s.admit(Delete, t, nil, nil); err != nil {
		return DeleteResult{}, err
	}
	rev, _, err := s.storage.Mutate(t.key(), func(cur []byte, _ int64) (storage.Change, error) {
		if cur == nil {
			return storage.Change{}, apierrors.NewNotFound(t.served().Group, t.served().Plural, t.Name)
		}
		return storage.Change{Op: storage.Delete, Value: cur}, nil
	})
	if err == nil {
		t.committed(rev, storage.Delete)
	}
	if apierrors.HasCode(err, 404) {
		err = nil // deleted meanwhile: kube answers as if this delete did
	}
	return DeleteResult{Gone: err == nil}, err
}

// splitKey is the namespace and name of a store key of res's collection.
func splitKey(res *api.Resource, key string) (namespace, name string) {
	rest := strings.TrimPrefix(key, collectionPrefix(res, ""))
	if res.Namespaced {
		if namespace, name, ok := strings.Cut(rest, "/"); ok {
			return namespace, name
		}
	}
	return "", rest
}
