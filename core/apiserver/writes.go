package apiserver

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/schema"
	"kubeplay/core/storage"
	"kubeplay/core/web"
)

// timestamp formats t as metav1.Time does: RFC 3339, seconds, UTC.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// generateNameSuffix is what kube's name generator appends: five characters from
// an alphabet without vowels or easily confused characters.
func generateNameSuffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	var b [5]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:])
}

// prepareNew validates a new object's identity and sets the fields the server owns.
func (s *Server) prepareNew(obj object.Object, t target) error {
	meta := object.Meta(obj)
	name, _ := meta["name"].(string)
	if name == "" {
		if gen, _ := meta["generateName"].(string); gen != "" {
			if len(gen) > 58 {
				gen = gen[:58]
			}
			name = gen + generateNameSuffix()
			meta["name"] = name
		}
	}
	if errs := append(validateObjectMeta(meta, t.res, name), validateDataSize(obj, t.res)...); len(errs) > 0 {
		return apierrors.NewInvalid(t.res.Group, t.res.Kind, name, errs)
	}
	if t.res.Namespaced {
		if err := s.checkNamespaceOpen(t.namespace, t.res, name); err != nil {
			return err
		}
	}
	meta["uid"] = newUID()
	meta["creationTimestamp"] = timestamp(s.cfg.Clock.Now())
	for _, f := range []string{"resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"} {
		delete(meta, f)
	}
	if t.res.Generation {
		meta["generation"] = 1
	} else {
		delete(meta, "generation")
	}
	if t.res.Prepare != nil {
		t.res.Prepare(obj)
	}
	obj["kind"], obj["apiVersion"] = t.res.Kind, t.res.APIVersion()
	return nil
}

// checkObjectNamespace applies the URL's namespace to the object.
func checkObjectNamespace(obj object.Object, t target) error {
	meta := object.Meta(obj)
	if !t.res.Namespaced {
		delete(meta, "namespace")
		return nil
	}
	if ns, _ := meta["namespace"].(string); ns != "" && ns != t.namespace {
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	meta["namespace"] = t.namespace
	return nil
}

func (s *Server) create(w web.ResponseWriter, r *web.Request, t target) error {
	obj, err := readObject(r, t.res)
	if err != nil {
		return err
	}
	if err := checkObjectNamespace(obj, t); err != nil {
		return err
	}
	if err := s.prepareNew(obj, t); err != nil {
		return err
	}
	name := object.MetaString(obj, "name")
	key := objectKey(t.res, t.namespace, name)
	_, stored, err := s.store.Mutate(key, func(cur []byte, rev int64) (storage.Change, error) {
		if cur != nil {
			return storage.Change{}, apierrors.NewAlreadyExists(t.res.Group, t.res.Plural, name)
		}
		object.SetResourceVersion(obj, rev)
		b, err := object.Encode(obj)
		if err == nil {
			err = checkStorageSize(t.res, key, obj, b)
		}
		return storage.Change{Op: storage.Put, Value: b}, err
	})
	if err != nil {
		return err
	}
	t.rep.writeObject(w, web.StatusCreated, t.res, stored)
	return nil
}

func (s *Server) update(w web.ResponseWriter, r *web.Request, t target) error {
	obj, err := readObject(r, t.res)
	if err != nil {
		return err
	}
	if name := object.MetaString(obj, "name"); name != t.name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, t.name))
	}
	if err := checkObjectNamespace(obj, t); err != nil {
		return err
	}
	// A copy per attempt: the store may run the update again on a newer object.
	code, stored, err := s.replace(t, func(old object.Object) (object.Object, error) { return object.DeepCopy(obj), nil })
	if err != nil {
		return err
	}
	t.rep.writeObject(w, code, t.res, stored)
	return nil
}

// replace is the update path shared by PUT and PATCH: it computes the new object
// from the stored one with next (old is nil when the object does not exist), keeps
// the fields the server owns, checks the resourceVersion precondition, and writes
// only when something changed.
func (s *Server) replace(t target, next func(old object.Object) (object.Object, error)) (int, []byte, error) {
	key := objectKey(t.res, t.namespace, t.name)
	var code int
	_, stored, err := s.store.Mutate(key, func(cur []byte, rev int64) (storage.Change, error) {
		code = web.StatusOK
		if cur == nil {
			if !t.res.CreateOnUpdate || t.sub != "" {
				return storage.Change{}, apierrors.NewNotFound(t.res.Group, t.res.Plural, t.name)
			}
			obj, err := next(nil)
			if err != nil {
				return storage.Change{}, err
			}
			if err := s.prepareNew(obj, t); err != nil {
				return storage.Change{}, err
			}
			code = web.StatusCreated
			object.SetResourceVersion(obj, rev)
			b, err := object.Encode(obj)
			if err == nil {
				err = checkStorageSize(t.res, key, obj, b)
			}
			return storage.Change{Op: storage.Put, Value: b}, err
		}
		old, err := object.Decode(cur)
		if err != nil {
			return storage.Change{}, apierrors.NewInternal(err)
		}
		obj, err := next(old)
		if err != nil {
			return storage.Change{}, err
		}
		oldMeta, meta := object.Meta(old), object.Meta(obj)
		oldRV, _ := oldMeta["resourceVersion"].(string)
		if rv, _ := meta["resourceVersion"].(string); rv != "" && rv != oldRV {
			return storage.Change{}, apierrors.NewConflict(t.res.Group, t.res.Plural, t.name, apierrors.ConflictModified)
		}
		if errs := append(validateObjectMeta(meta, t.res, t.name), validateDataSize(obj, t.res)...); len(errs) > 0 {
			return storage.Change{}, apierrors.NewInvalid(t.res.Group, t.res.Kind, t.name, errs)
		}
		obj = mergeOwnedFields(old, obj, t)
		object.SetResourceVersion(obj, mustParseRV(oldRV))
		b, err := object.Encode(obj)
		if err != nil {
			return storage.Change{}, err
		}
		if bytes.Equal(b, cur) {
			return storage.Change{Op: storage.Keep}, nil
		}
		if t.res.Generation && specChanged(old, obj) {
			gen, _ := strconv.ParseInt(fmt.Sprint(oldMeta["generation"]), 10, 64)
			object.Meta(obj)["generation"] = gen + 1
		}
		object.SetResourceVersion(obj, rev)
		if b, err = object.Encode(obj); err != nil {
			return storage.Change{}, err
		}
		if err := checkStorageSize(t.res, key, obj, b); err != nil {
			return storage.Change{}, err
		}
		if object.Meta(obj)["deletionTimestamp"] != nil && len(object.Strings(object.Meta(obj), "finalizers")) == 0 &&
			t.res.Plural != "namespaces" {
			// The last finalizer is gone: the object goes with it.
			return storage.Change{Op: storage.Delete, Value: b}, nil
		}
		return storage.Change{Op: storage.Put, Value: b}, nil
	})
	return code, stored, err
}

func mustParseRV(rv string) int64 {
	n, _ := strconv.ParseInt(rv, 10, 64)
	return n
}

// mergeOwnedFields returns the object to store for an update of old to obj: the
// server's metadata fields come from old, and the status subresource and the main
// resource each change only their own part.
func mergeOwnedFields(old, obj object.Object, t target) object.Object {
	if t.sub == "finalize" {
		// A namespace's finalize subresource changes spec.finalizers only.
		out := object.DeepCopy(old)
		spec, _ := out["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			out["spec"] = spec
		}
		if f, ok := object.Path(obj, "spec", "finalizers").([]any); ok && len(f) > 0 {
			spec["finalizers"] = f
		} else {
			delete(spec, "finalizers")
		}
		return out
	}
	if t.sub == "status" {
		out := object.DeepCopy(old)
		if st, ok := obj["status"]; ok {
			out["status"] = st
		} else {
			delete(out, "status")
		}
		return out
	}
	if t.res.Sub("status") != nil {
		if st, ok := old["status"]; ok {
			obj["status"] = st
		} else {
			delete(obj, "status")
		}
	}
	oldMeta, meta := object.Meta(old), object.Meta(obj)
	for _, f := range []string{"uid", "creationTimestamp", "generation", "deletionTimestamp", "deletionGracePeriodSeconds", "generateName"} {
		if v, ok := oldMeta[f]; ok {
			meta[f] = v
		} else {
			delete(meta, f)
		}
	}
	delete(meta, "selfLink")
	obj["kind"], obj["apiVersion"] = t.res.Kind, t.res.APIVersion()
	return obj
}

// specChanged says whether anything but metadata and status differs.
func specChanged(a, b object.Object) bool {
	for k, v := range a {
		if k == "metadata" || k == "status" {
			continue
		}
		if w, ok := b[k]; !ok || !object.Equal(v, w) {
			return true
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok && k != "metadata" && k != "status" {
			return true
		}
	}
	return false
}

// patch applies a JSON merge patch (RFC 7386). The other patch types come with the
// writes work.
func (s *Server) patch(w web.ResponseWriter, r *web.Request, t target) error {
	mt := r.Header.Get("Content-Type")
	if i := bytes.IndexByte([]byte(mt), ';'); i >= 0 {
		mt = mt[:i]
	}
	if mt != "application/merge-patch+json" {
		return apierrors.New(web.StatusUnsupportedMediaType, "UnsupportedMediaType",
			"the body of the request was in an unknown format - accepted media types include: application/merge-patch+json", nil)
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	// kube first reads the patch into a map of floats (its field validation):
	// numbers no float64 holds are an error there.
	var check map[string]any
	if err := json.Unmarshal(body, &check); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	var p any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	code, stored, err := s.replace(t, func(old object.Object) (object.Object, error) {
		if old == nil {
			return nil, apierrors.NewNotFound(t.res.Group, t.res.Plural, t.name)
		}
		current := object.DeepCopy(old)
		current["kind"], current["apiVersion"] = t.res.Kind, t.res.APIVersion()
		patched, ok := mergePatch(current, p).(map[string]any)
		if !ok {
			return nil, apierrors.NewBadRequest("the patch does not describe an object")
		}
		if patched, err = decodePatched(t.res, patched); err != nil {
			return nil, err
		}
		mergeStringData(patched, t.res)
		if object.MetaString(patched, "name") != t.name {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", object.MetaString(patched, "name"), t.name))
		}
		return patched, nil
	})
	if err != nil {
		return err
	}
	t.rep.writeObject(w, code, t.res, stored)
	return nil
}

// decodePatched reads a patched object into its kind's Go type as kube does:
// from its JSON (keys sorted, as the merge patch library writes it), an error
// being an invalid patch that shows that JSON.
func decodePatched(res *schema.Resource, patched object.Object) (object.Object, error) {
	if !protobufServed(res) {
		return patched, nil
	}
	doc, err := json.Marshal(patched)
	if err != nil {
		return nil, apierrors.NewInternal(err)
	}
	obj, err := protobuf.DecodeJSON(res.APIVersion(), res.Kind, doc)
	if err != nil {
		return nil, apierrors.NewInvalid("", "", "", field.ErrorList{field.Invalid(field.NewPath("patch"), string(doc), err.Error())})
	}
	return obj, nil
}

// mergePatch applies an RFC 7386 merge patch to target.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

// deleteOptions are the parts of metav1.DeleteOptions kubeplay honours.
type deleteOptions struct {
	DryRun        []string `json:"dryRun"`
	Preconditions *struct {
		UID             *string `json:"uid"`
		ResourceVersion *string `json:"resourceVersion"`
	} `json:"preconditions"`
}

func readDeleteOptions(r *web.Request, res *schema.Resource) (*deleteOptions, error) {
	var o deleteOptions
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	if len(body) > 0 && !isJSONBody(r) {
		// YAML, CBOR or protobuf (client-go's protobuf clients send DeleteOptions
		// so): read it into the JSON form first.
		obj, err := decodeBodyAs(r, res, "v1", "meta.k8s.io/v1", "DeleteOptions", body)
		if err != nil {
			return nil, err
		}
		if body, err = json.Marshal(obj); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	}
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &o); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding DeleteOptions: %v", err))
		}
	}
	if len(o.DryRun) > 0 {
		return nil, errDryRunUnsupported()
	}
	return &o, nil
}

// namespaceTerminatingMessage is kube's answer to deleting a namespace that is
// already being deleted.
const namespaceTerminatingMessage = "The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system."

// deleteObject deletes one object, or marks it for deletion when finalizers (or,
// for a namespace, its content) hold it. It returns the object as now stored or as
// deleted, and whether it is gone.
func (s *Server) deleteObject(t target, name string, opts *deleteOptions) ([]byte, bool, error) {
	var gone bool
	_, stored, err := s.store.Mutate(objectKey(t.res, t.namespace, name), func(cur []byte, rev int64) (storage.Change, error) {
		gone = false
		if cur == nil {
			return storage.Change{}, apierrors.NewNotFound(t.res.Group, t.res.Plural, name)
		}
		obj, err := object.Decode(cur)
		if err != nil {
			return storage.Change{}, apierrors.NewInternal(err)
		}
		meta := object.Meta(obj)
		if p := opts.Preconditions; p != nil {
			if uid, _ := meta["uid"].(string); p.UID != nil && *p.UID != uid {
				return storage.Change{}, apierrors.NewConflict(t.res.Group, t.res.Plural, name,
					fmt.Sprintf("Precondition failed: UID in precondition: %s, UID in object meta: %s", *p.UID, uid))
			}
			if rv, _ := meta["resourceVersion"].(string); p.ResourceVersion != nil && *p.ResourceVersion != rv {
				return storage.Change{}, apierrors.NewConflict(t.res.Group, t.res.Plural, name,
					fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s", *p.ResourceVersion, rv))
			}
		}
		deleting := meta["deletionTimestamp"] != nil
		spec, _ := obj["spec"].(map[string]any)
		nsFinalizers := t.res.Plural == "namespaces" && len(object.Strings(spec, "finalizers")) > 0
		if t.res.Plural == "namespaces" && immortalNamespaces[name] {
			return storage.Change{}, apierrors.NewForbidden("", "namespaces", name, "this namespace may not be deleted")
		}
		if nsFinalizers {
			// The namespace controller empties it, then removes the finalizer
			// (the finalize subresource) and deletes it again.
			if deleting {
				return storage.Change{}, apierrors.NewConflict("", "namespaces", name, namespaceTerminatingMessage)
			}
			meta["deletionTimestamp"] = timestamp(s.cfg.Clock.Now())
			meta["deletionGracePeriodSeconds"] = 0
			statusMap(obj)["phase"] = "Terminating"
		} else if len(object.Strings(meta, "finalizers")) > 0 {
			if deleting {
				return storage.Change{Op: storage.Keep}, nil
			}
			meta["deletionTimestamp"] = timestamp(s.cfg.Clock.Now())
			meta["deletionGracePeriodSeconds"] = 0
		} else {
			gone = true
		}
		object.SetResourceVersion(obj, rev)
		b, err := object.Encode(obj)
		if err != nil {
			return storage.Change{}, err
		}
		if gone {
			return storage.Change{Op: storage.Delete, Value: b}, nil
		}
		return storage.Change{Op: storage.Put, Value: b}, nil
	})
	return stored, gone, err
}

func statusMap(obj object.Object) map[string]any {
	st, ok := obj["status"].(map[string]any)
	if !ok {
		st = map[string]any{}
		obj["status"] = st
	}
	return st
}

func (s *Server) delete(w web.ResponseWriter, r *web.Request, t target) error {
	opts, err := readDeleteOptions(r, t.res)
	if err != nil {
		return err
	}
	stored, gone, err := s.deleteObject(t, t.name, opts)
	if err != nil {
		return err
	}
	if !gone || t.res.ReturnDeleted {
		t.rep.writeObject(w, web.StatusOK, t.res, stored)
		return nil
	}
	uid := ""
	if obj, err := object.Decode(stored); err == nil {
		uid = object.MetaString(obj, "uid")
	}
	t.rep.sendStatus(w, web.StatusOK, &apierrors.Status{Kind: "Status", APIVersion: "v1", Status: "Success",
		Details: &apierrors.StatusDetails{Name: t.name, Group: t.res.Group, Kind: t.res.Plural, UID: uid}})
	return nil
}

func (s *Server) deleteCollection(w web.ResponseWriter, r *web.Request, t target) error {
	o, err := parseListOptions(r.URL.Query(), t.res)
	if err != nil {
		return err
	}
	opts, err := readDeleteOptions(r, t.res)
	if err != nil {
		return err
	}
	res, err := s.store.List(storage.ListOptions{Prefix: collectionPrefix(t.res, t.namespace), Filter: o.filter()})
	if err != nil {
		return err
	}
	items := make([]storage.Item, 0, len(res.Items))
	for _, it := range res.Items {
		obj, err := object.Decode([]byte(it.Value))
		if err != nil {
			continue
		}
		stored, _, err := s.deleteObject(t, object.MetaString(obj, "name"), opts)
		var st *apierrors.Status
		if errors.As(err, &st) && st.Code == web.StatusNotFound {
			continue // deleted meanwhile
		}
		if err != nil {
			return err
		}
		items = append(items, storage.Item{Key: it.Key, Value: string(stored)})
	}
	t.rep.writeList(w, t.res, listMeta{ResourceVersion: strconv.FormatInt(s.store.Revision(), 10)}, items)
	return nil
}

// validateObjectMeta checks the name (by the kind's rule) and the metadata the
// server reads.
func validateObjectMeta(meta map[string]any, res *schema.Resource, name string) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		if gen, _ := meta["generateName"].(string); gen == "" {
			return field.ErrorList{field.Required(field.NewPath("metadata.name"), "name or generateName is required")}
		}
	}
	for _, msg := range validateName(res.Names, name) {
		errs = append(errs, field.Invalid(field.NewPath("metadata.name"), name, msg))
	}
	errs = append(errs, validateLabels(object.StringMap(meta, "labels"), "metadata.labels")...)
	return errs
}
