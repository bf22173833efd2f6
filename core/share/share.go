// Package share owns a sandbox's share document (LEARN-6): the objects its
// clients made, small enough to travel in a link's fragment, which another
// sandbox takes in. An export (core/export) is the whole store, the
// cluster's own objects and the history included; a share is what a person
// made: every object whose managedFields name a manager that is not one of
// the cluster's own components (user.SystemManager), or that has none (but
// the "default" ServiceAccounts the cluster makes): namespaces first, then
// CustomResourceDefinitions, then the rest in the order of their
// resourceVersions, each as stored, with its storage key:
//
//	{"kind":"KubeplayShare","version":1,"server":"v1.32.13","revision":412,
//	 "objects":[{"key":"core/namespaces/shop","object":{...}}, ...]}
//
// Taking one in (POST) writes every object as it is, uid, creationTimestamp,
// managedFields and status kept, over any object of its name, with the
// resourceVersion its write gets: a share carries no history and no
// revision to go on from, and the receiving sandbox's own objects (its
// cluster's) stay its own. It is all or nothing: a document that does not
// read is refused (400) before anything is written, and a write refused on
// the way (the sandbox's budget) undoes those before it.
//
//	GET  /debug/kubeplay/share   the document
//	POST /debug/kubeplay/share   take one in
package share

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"kubeplay/core/apierrors"
	"kubeplay/core/budget"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/storage"
	"kubeplay/core/user"
	"kubeplay/core/version"
	"kubeplay/core/web"
)

// Path is where every host serves the share document.
const Path = "/debug/kubeplay/share"

// MaxBytes bounds a document taken in.
const MaxBytes = 3 << 20

const (
	kind          = "KubeplayShare"
	formatVersion = 1
)

// Document is a share.
type Document struct {
	Kind    string `json:"kind"`
	Version int    `json:"version"`
	// Server is the sharing kubeplay's gitVersion; Revision the sharing
	// sandbox's when it shared.
	Server   string   `json:"server"`
	Revision int64    `json:"revision"`
	Objects  []Object `json:"objects"`
}

// Object is one stored object and its storage key.
type Object struct {
	Key    string          `json:"key"`
	Object json.RawMessage `json:"object"`
}

// Made is the share of the objects st's clients made.
func Made(st *storage.Store) (Document, error) {
	res, err := st.List(storage.ListOptions{})
	if err != nil {
		return Document{}, err
	}
	type made struct {
		rev int64
		obj Object
	}
	var found []made
	for _, it := range res.Items {
		var o struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
				ManagedFields   []struct {
					Manager string `json:"manager"`
				} `json:"managedFields"`
			} `json:"metadata"`
		}
		if json.Unmarshal([]byte(it.Value), &o) != nil {
			continue // a corrupt object (K8S-DEL-3) is no one's to share
		}
		managers := make([]string, len(o.Metadata.ManagedFields))
		for i, m := range o.Metadata.ManagedFields {
			managers[i] = m.Manager
		}
		if madeByClient(it.Key, managers) {
			rev, _ := strconv.ParseInt(o.Metadata.ResourceVersion, 10, 64)
			found = append(found, made{rev, Object{Key: it.Key, Object: json.RawMessage(it.Value)}})
		}
	}
	// What holds others first (namespaces, then the definitions of custom
	// resources, whose resourceVersions move with their status), then the
	// rest in the order they were last written.
	rank := func(key string) int {
		switch {
		case strings.HasPrefix(key, "core/namespaces/"):
			return 0
		case strings.HasPrefix(key, "apiextensions.k8s.io/customresourcedefinitions/"):
			return 1
		}
		return 2
	}
	sort.SliceStable(found, func(i, j int) bool {
		if ri, rj := rank(found[i].obj.Key), rank(found[j].obj.Key); ri != rj {
			return ri < rj
		}
		return found[i].rev < found[j].rev
	})
	doc := Document{Kind: kind, Version: formatVersion, Server: version.Server, Revision: res.Rev, Objects: make([]Object, len(found))}
	for i, m := range found {
		doc.Objects[i] = m.obj
	}
	return doc, nil
}

// madeByClient says whether the object at key, with the field managers
// managers, is a client's: one of its managers is not the cluster's own.
// An object with no managedFields (kube records none when a write set no
// field but the name) is a client's too, but for the "default"
// ServiceAccount the service account controller makes in every namespace.
func madeByClient(key string, managers []string) bool {
	if len(managers) == 0 {
		_, _, name := registry.SplitKey(key)
		return !(strings.HasPrefix(key, "core/serviceaccounts/") && name == "default")
	}
	for _, m := range managers {
		if !user.SystemManager(m) {
			return true
		}
	}
	return false
}

// Read reads a document of at most MaxBytes and checks every object in it:
// its key names a collection this sandbox serves (or one a
// CustomResourceDefinition in the document defines) and the object's own
// namespace and name, and it is an object. Its errors are what the sender
// should be told.
func Read(r io.Reader, store *registry.Store) (Document, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return Document{}, err
	}
	if len(b) > MaxBytes {
		return Document{}, fmt.Errorf("the share is over %d bytes", MaxBytes)
	}
	var doc Document
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil || doc.Kind != kind {
		return Document{}, errors.New(`not a kubeplay share: not a JSON object of kind "KubeplayShare"`)
	}
	if doc.Version != formatVersion {
		return Document{}, fmt.Errorf("a share of format version %d; this kubeplay reads version %d", doc.Version, formatVersion)
	}
	defined := map[string]bool{} // GROUP/PLURAL of the CustomResourceDefinitions in it
	for _, o := range doc.Objects {
		if strings.HasPrefix(o.Key, "apiextensions.k8s.io/customresourcedefinitions/") {
			var crd struct {
				Spec struct {
					Group string `json:"group"`
					Names struct {
						Plural string `json:"plural"`
					} `json:"names"`
				} `json:"spec"`
			}
			if json.Unmarshal(o.Object, &crd) == nil {
				defined[crd.Spec.Group+"/"+crd.Spec.Names.Plural] = true
			}
		}
	}
	seen := map[string]bool{}
	for i := range doc.Objects {
		// Stored as kube stores JSON: compact (a document written by hand
		// may be indented).
		var compact bytes.Buffer
		if json.Compact(&compact, doc.Objects[i].Object) == nil {
			doc.Objects[i].Object = compact.Bytes()
		}
	}
	for i, o := range doc.Objects {
		if err := check(o, store, defined); err != nil {
			return Document{}, fmt.Errorf("objects[%d] (%s): %w", i, o.Key, err)
		}
		if seen[o.Key] {
			return Document{}, fmt.Errorf("objects[%d] (%s): the key comes twice", i, o.Key)
		}
		seen[o.Key] = true
	}
	return doc, nil
}

// check says what is wrong with o, if anything.
func check(o Object, store *registry.Store, defined map[string]bool) error {
	obj, err := object.Decode(o.Object)
	if err != nil || obj == nil {
		return errors.New("not a JSON object")
	}
	collection, namespace, name := registry.SplitKey(o.Key)
	res, _, _ := store.ObjectOfKey(o.Key)
	switch {
	case name == "":
		return errors.New("not a storage key (GROUP/PLURAL/[NAMESPACE/]NAME)")
	case res == nil && !defined[collection]:
		return errors.New("no resource of this sandbox, nor of a CustomResourceDefinition in the share, is stored there")
	case res != nil && res.Namespaced != (namespace != ""):
		return errors.New("the key's namespace does not fit the resource's scope")
	case object.MetaString(obj, "name") != name || object.MetaString(obj, "namespace") != namespace:
		return fmt.Errorf("the object is %s/%s, its key names %s/%s", object.MetaString(obj, "namespace"), object.MetaString(obj, "name"), namespace, name)
	case object.MetaString(obj, "uid") == "":
		return errors.New("the object has no uid")
	}
	return nil
}

// Take writes doc's objects into store, in order, each over any object of
// its key, with the resourceVersion its write gets; a write refused (the
// sandbox's budget) undoes the ones before it. It returns the revision of
// the last.
func Take(store *registry.Store, doc Document) (int64, error) {
	st := store.Storage()
	type undo struct {
		key  string
		prev []byte // nil: there was none
	}
	var done []undo
	var rev int64
	for _, o := range doc.Objects {
		var prev []byte
		r, _, err := st.Mutate(o.Key, func(cur []byte, next int64) (storage.Change, error) {
			prev = cur
			b, err := object.Restamp(o.Object, next)
			return storage.Change{Op: storage.Put, Value: b}, err
		})
		if err != nil {
			for i := len(done) - 1; i >= 0; i-- {
				u := done[i]
				_, _, _ = st.Mutate(u.key, func(cur []byte, next int64) (storage.Change, error) {
					op, v := storage.Put, u.prev
					if v == nil {
						op, v = storage.Delete, cur // the DELETED event carries it as it was
					}
					b, err := object.Restamp(v, next)
					return storage.Change{Op: op, Value: b}, err
				})
			}
			res, _, name := store.ObjectOfKey(o.Key)
			if res != nil {
				if st := budget.FromRefusal(res.Group, res.Plural, name, err); st != nil {
					return 0, st
				}
			}
			return 0, err
		}
		done = append(done, undo{o.Key, prev})
		rev = r
	}
	return rev, nil
}

// Handler serves Path for store.
func Handler(store *registry.Store) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		switch r.Method {
		case web.MethodGet:
			doc, err := Made(store.Storage())
			if err != nil {
				apierrors.Write(w, apierrors.NewInternal(err))
				return
			}
			w.Header().Set("Cache-Control", "no-store")
			apierrors.WriteJSON(w, doc)
		case web.MethodPost:
			doc, err := Read(r.Body, store)
			if err != nil {
				apierrors.Write(w, apierrors.NewBadRequest(err.Error()))
				return
			}
			rev, err := Take(store, doc)
			if err != nil {
				apierrors.Write(w, apierrors.As(err))
				return
			}
			apierrors.WriteJSON(w, map[string]any{"kind": "KubeplayShareTaken", "objects": len(doc.Objects), "revision": strconv.FormatInt(rev, 10)})
		default:
			w.Header().Set("Allow", "GET, POST")
			apierrors.Write(w, apierrors.NewMethodNotAllowed())
		}
	})
}
