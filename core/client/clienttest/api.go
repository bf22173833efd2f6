// Package clienttest is a fake API for the package tests of the core's API
// clients (the controllers): objects in memory served as a web.Handler at
// kube's paths, with list and watch, create (generateName, uid,
// resourceVersion, creationTimestamp, generation), update of an object or of
// its status, merge and strategic merge patches (finalizers included) and
// delete (finalizers honoured). It records every write a client makes, so a
// test checks what one sync did, and can refuse writes, so a test shows a
// client's failure path. Every write reaches every watch, as an event or a
// bookmark, so a test knows when an informer has caught up (Await).
//
// It is not an API server: no validation, defaults, admission or
// authorization (the registry's tests and the HTTP tests cover those). Its
// answers are shaped as kube's only as far as the clients read them.
package clienttest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/clock"
	"kubeplay/core/object"
	"kubeplay/core/selector"
	"kubeplay/core/web"
)

// Write is one write a client made through the API.
type Write struct {
	Verb        string // create, update, patch or delete
	Resource    string // pods, replicasets, ...
	Subresource string // status, or ""
	Namespace   string
	Name        string
	// Object is the object as stored (or, for a delete, as it was); for a
	// write refused, as it would have been.
	Object object.Object
}

// String is the write as a test names it: "create pods default/web-abcde".
func (w Write) String() string {
	s := w.Verb + " " + w.Resource
	if w.Subresource != "" {
		s += "/" + w.Subresource
	}
	if w.Namespace != "" {
		return s + " " + w.Namespace + "/" + w.Name
	}
	return s + " " + w.Name
}

// statusResources are the kinds with a status subresource: a write of the
// object keeps their status, as kube's strategies do.
var statusResources = map[string]bool{"pods": true, "replicasets": true, "deployments": true, "daemonsets": true,
	"statefulsets": true, "jobs": true, "cronjobs": true, "namespaces": true, "services": true, "nodes": true,
	"persistentvolumeclaims": true, "persistentvolumes": true, "resourcequotas": true, "replicationcontrollers": true,
	"poddisruptionbudgets": true}

// API is the fake API. Its methods other than ServeHTTP are the test's own
// hand on the objects: they are not recorded as writes.
type API struct {
	t     testing.TB
	clock clock.Clock

	mu       sync.Mutex
	rv       int64
	names    int
	objects  map[string]map[string]object.Object // by collection, then namespace/name
	changes  []change                            // every change, oldest first
	watchers map[*watcher]bool
	writes   []Write
	refuse   func(Write) *apierrors.Status
	held     chan struct{} // while not nil, watches send nothing; closed on Release
}

// change is one event of a collection.
type change struct {
	collection, typ string
	obj             object.Object
	rv              int64
}

// New is an empty API on clk, reporting misuse to t.
func New(t testing.TB, clk clock.Clock) *API {
	return &API{t: t, clock: clk, objects: map[string]map[string]object.Object{}, watchers: map[*watcher]bool{}}
}

// target is what a path names.
type target struct {
	collection  string // the collection over all namespaces: /api/v1/pods
	group       string
	resource    string
	namespace   string
	name        string
	subresource string
}

func (tg target) key() string {
	if tg.namespace != "" {
		return tg.namespace + "/" + tg.name
	}
	return tg.name
}

// parse reads /api/v1[/namespaces/NS]/RESOURCE[/NAME[/SUB]] and its /apis/GROUP/VERSION form.
func parse(path string) (target, bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var tg target
	var rest []string
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		tg.collection, rest = "/api/"+segs[1], segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		tg.collection, tg.group, rest = "/apis/"+segs[1]+"/"+segs[2], segs[1], segs[3:]
	default:
		return tg, false
	}
	if len(rest) >= 3 && rest[0] == "namespaces" && !(len(rest) == 3 && (rest[2] == "status" || rest[2] == "finalize")) {
		tg.namespace, rest = rest[1], rest[2:]
	}
	if len(rest) > 3 {
		return tg, false
	}
	tg.resource = rest[0]
	tg.collection += "/" + tg.resource
	if len(rest) > 1 {
		tg.name = rest[1]
	}
	if len(rest) > 2 {
		tg.subresource = rest[2]
	}
	return tg, true
}

func (a *API) mustParse(path string) target {
	a.t.Helper()
	tg, ok := parse(path)
	if !ok {
		a.t.Fatalf("clienttest: no resource at %s", path)
	}
	return tg
}

// ServeHTTP answers a client's request.
func (a *API) ServeHTTP(w web.ResponseWriter, r *web.Request) {
	tg, ok := parse(r.URL.Path)
	if !ok {
		apierrors.Write(w, apierrors.NewPathNotFound())
		return
	}
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			apierrors.Write(w, apierrors.NewBadRequest(err.Error()))
			return
		}
	}
	q := r.URL.Query()
	switch {
	case r.Method == web.MethodGet && tg.name == "" && (q.Get("watch") == "1" || q.Get("watch") == "true"):
		a.watch(w, r, tg)
	case r.Method == web.MethodGet && tg.name == "":
		a.list(w, tg, q.Get("labelSelector"), q.Get("fieldSelector"))
	case r.Method == web.MethodGet:
		a.mu.Lock()
		obj, ok := a.objects[tg.collection][tg.key()]
		a.mu.Unlock()
		if !ok {
			apierrors.Write(w, apierrors.NewNotFound(tg.group, tg.resource, tg.name))
			return
		}
		reply(w, web.StatusOK, obj)
	case r.Method == web.MethodPost && tg.name == "":
		a.answer(w, web.StatusCreated)(a.create(tg, body, true))
	case r.Method == web.MethodPut && tg.name != "":
		a.answer(w, web.StatusOK)(a.update(tg, body))
	case r.Method == web.MethodPatch && tg.name != "":
		a.answer(w, web.StatusOK)(a.patch(tg, r.Header.Get("Content-Type"), body))
	case r.Method == web.MethodDelete && tg.name != "":
		a.answer(w, web.StatusOK)(a.delete(tg))
	default:
		apierrors.Write(w, apierrors.NewMethodNotAllowed())
	}
}

// answer writes a write's result: the object, or the failure.
func (a *API) answer(w web.ResponseWriter, code int) func(object.Object, *apierrors.Status) {
	return func(obj object.Object, st *apierrors.Status) {
		if st != nil {
			apierrors.Write(w, st)
			return
		}
		reply(w, code, obj)
	}
}

func reply(w web.ResponseWriter, code int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

func (a *API) list(w web.ResponseWriter, tg target, labels, fields string) {
	match, err := matcher(tg, labels, fields)
	if err != nil {
		apierrors.Write(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	items := []any{}
	for _, obj := range a.sortedLocked(tg.collection) {
		if match(obj) {
			items = append(items, obj)
		}
	}
	reply(w, web.StatusOK, map[string]any{"metadata": map[string]any{"resourceVersion": strconv.FormatInt(a.rv, 10)}, "items": items})
}

func (a *API) sortedLocked(collection string) []object.Object {
	objs := a.objects[collection]
	keys := make([]string, 0, len(objs))
	for k := range objs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]object.Object, len(keys))
	for i, k := range keys {
		out[i] = objs[k]
	}
	return out
}

// matcher is what a list or watch of tg with the selectors holds.
func matcher(tg target, labels, fields string) (func(object.Object) bool, error) {
	ls, err := selector.ParseLabels(labels)
	if err != nil {
		return nil, err
	}
	fs, err := selector.ParseFields(fields)
	if err != nil {
		return nil, err
	}
	return func(obj object.Object) bool {
		ns := object.MetaString(obj, "namespace")
		return (tg.namespace == "" || ns == tg.namespace) && ls.Matches(object.Labels(obj)) &&
			fs.Matches(map[string]string{"metadata.name": object.MetaString(obj, "name"), "metadata.namespace": ns})
	}, nil
}

// create stores a new object in tg's collection, named by its generateName
// when it has no name.
func (a *API) create(tg target, body []byte, byClient bool) (object.Object, *apierrors.Status) {
	obj, err := object.Decode(body)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	meta := metadata(obj)
	if tg.namespace != "" {
		meta["namespace"] = tg.namespace
	}
	if object.MetaString(obj, "name") == "" {
		meta["name"] = object.MetaString(obj, "generateName") + a.suffixLocked()
	}
	tg.name = object.MetaString(obj, "name")
	if _, ok := a.objects[tg.collection][tg.key()]; ok {
		return nil, apierrors.NewAlreadyExists(tg.group, tg.resource, tg.name)
	}
	meta["uid"] = object.NewUID()
	meta["creationTimestamp"] = object.Timestamp(a.clock.Now())
	meta["generation"] = int64(1)
	delete(meta, "resourceVersion")
	w := Write{Verb: "create", Resource: tg.resource, Namespace: tg.namespace, Name: tg.name, Object: obj}
	if !byClient {
		return a.storeLocked(tg, obj), nil
	}
	return a.writeLocked(w, tg)
}

// suffixLocked is a generated name's suffix: five of kube's characters.
func (a *API) suffixLocked() string {
	const alphanums = "bcdfghjklmnpqrstvwxz2456789"
	a.names++
	n := a.names * 7919 // spread, so names differ in their first characters too
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphanums[n%len(alphanums)]
		n /= len(alphanums)
	}
	return string(b)
}

// update replaces an object (keeping its status) or its status, as a PUT.
func (a *API) update(tg target, body []byte) (object.Object, *apierrors.Status) {
	obj, err := object.Decode(body)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	cur, ok := a.objects[tg.collection][tg.key()]
	if !ok {
		return nil, apierrors.NewNotFound(tg.group, tg.resource, tg.name)
	}
	if rv := object.MetaString(obj, "resourceVersion"); rv != "" && rv != object.MetaString(cur, "resourceVersion") {
		return nil, apierrors.NewConflict(tg.group, tg.resource, tg.name, apierrors.ConflictModified)
	}
	var next object.Object
	switch tg.subresource {
	case "":
		next = obj
		meta := metadata(next)
		for _, f := range []string{"name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "generation"} {
			if v, ok := object.Meta(cur)[f]; ok {
				meta[f] = v
			} else {
				delete(meta, f)
			}
		}
		a.keepStatus(tg, next, cur)
	case "status":
		next = object.DeepCopy(cur)
		next["status"] = obj["status"]
		if tg.resource == "deployments" { // kube's Deployment status strategy takes annotations too
			metadata(next)["annotations"] = object.Meta(obj)["annotations"]
		}
	default:
		return nil, apierrors.NewMethodNotAllowed()
	}
	return a.writeLocked(Write{Verb: "update", Resource: tg.resource, Subresource: tg.subresource, Namespace: tg.namespace, Name: tg.name, Object: next}, tg)
}

// keepStatus gives next cur's status, when its kind has a status
// subresource, and a new generation when its spec changed.
func (a *API) keepStatus(tg target, next, cur object.Object) {
	if statusResources[tg.resource] {
		if st, ok := cur["status"]; ok {
			next["status"] = st
		} else {
			delete(next, "status")
		}
	}
	if !object.Equal(next["spec"], cur["spec"]) {
		metadata(next)["generation"] = object.Int(object.Meta(cur)["generation"]) + 1
	}
}

// patch applies a merge patch, or a strategic merge patch as far as merging
// maps and the $deleteFromPrimitiveList directive go.
func (a *API) patch(tg target, contentType string, body []byte) (object.Object, *apierrors.Status) {
	p, err := object.Decode(body)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if ct := strings.TrimSpace(strings.Split(contentType, ";")[0]); ct != "application/merge-patch+json" && ct != "application/strategic-merge-patch+json" {
		return nil, apierrors.New(web.StatusUnsupportedMediaType, "UnsupportedMediaType", "clienttest: no patch of type "+ct, nil)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	cur, ok := a.objects[tg.collection][tg.key()]
	if !ok {
		return nil, apierrors.NewNotFound(tg.group, tg.resource, tg.name)
	}
	next := object.DeepCopy(cur)
	mergePatch(next, p)
	for _, f := range []string{"name", "namespace", "uid", "creationTimestamp", "resourceVersion"} {
		metadata(next)[f] = object.Meta(cur)[f]
	}
	if tg.subresource == "" {
		a.keepStatus(tg, next, cur)
	}
	return a.writeLocked(Write{Verb: "patch", Resource: tg.resource, Subresource: tg.subresource, Namespace: tg.namespace, Name: tg.name, Object: next}, tg)
}

// mergePatch applies patch p to m (RFC 7386, and strategic merge's
// $deleteFromPrimitiveList/<field>).
func mergePatch(m, p map[string]any) {
	for k, v := range p {
		if field, ok := strings.CutPrefix(k, "$deleteFromPrimitiveList/"); ok {
			drop, _ := v.([]any)
			list, _ := m[field].([]any)
			list = slices.DeleteFunc(slices.Clone(list), func(x any) bool { return slices.Contains(drop, x) })
			if len(list) == 0 {
				delete(m, field)
			} else {
				m[field] = list
			}
			continue
		}
		pm, isMap := v.(map[string]any)
		switch cur, _ := m[k].(map[string]any); {
		case v == nil:
			delete(m, k)
		case isMap && cur != nil:
			mergePatch(cur, pm)
		case isMap:
			fresh := map[string]any{}
			mergePatch(fresh, pm)
			m[k] = fresh
		default:
			m[k] = object.DeepCopyValue(v)
		}
	}
}

// delete removes an object, or marks it deleted while it has finalizers.
func (a *API) delete(tg target) (object.Object, *apierrors.Status) {
	a.mu.Lock()
	defer a.mu.Unlock()
	cur, ok := a.objects[tg.collection][tg.key()]
	if !ok {
		return nil, apierrors.NewNotFound(tg.group, tg.resource, tg.name)
	}
	w := Write{Verb: "delete", Resource: tg.resource, Namespace: tg.namespace, Name: tg.name, Object: cur}
	if st := a.refusedLocked(w); st != nil {
		return nil, st
	}
	a.writes = append(a.writes, w)
	if len(object.Strings(object.Meta(cur), "finalizers")) > 0 {
		next := object.DeepCopy(cur)
		if object.MetaString(next, "deletionTimestamp") == "" {
			metadata(next)["deletionTimestamp"] = object.Timestamp(a.clock.Now())
			metadata(next)["deletionGracePeriodSeconds"] = int64(0)
		}
		return a.storeLocked(tg, next), nil
	}
	return a.removeLocked(tg, cur), nil
}

func (a *API) refusedLocked(w Write) *apierrors.Status {
	if a.refuse == nil {
		return nil
	}
	return a.refuse(w)
}

// writeLocked stores a client's write, unless refused, and records it.
func (a *API) writeLocked(w Write, tg target) (object.Object, *apierrors.Status) {
	if st := a.refusedLocked(w); st != nil {
		return nil, st
	}
	stored := a.storeLocked(tg, w.Object)
	w.Object = stored
	a.writes = append(a.writes, w)
	return stored, nil
}

// storeLocked stores obj at a new resourceVersion and tells the watches; an
// object being deleted that has no finalizers left goes.
func (a *API) storeLocked(tg target, obj object.Object) object.Object {
	tg.namespace, tg.name = object.MetaString(obj, "namespace"), object.MetaString(obj, "name")
	objs := a.objects[tg.collection]
	if objs == nil {
		objs = map[string]object.Object{}
		a.objects[tg.collection] = objs
	}
	_, had := objs[tg.key()]
	if object.MetaString(obj, "deletionTimestamp") != "" && len(object.Strings(object.Meta(obj), "finalizers")) == 0 {
		return a.removeLocked(tg, obj)
	}
	a.rv++
	obj = object.DeepCopy(obj)
	metadata(obj)["resourceVersion"] = strconv.FormatInt(a.rv, 10)
	objs[tg.key()] = obj
	typ := "MODIFIED"
	if !had {
		typ = "ADDED"
	}
	a.notifyLocked(change{collection: tg.collection, typ: typ, obj: obj, rv: a.rv})
	return obj
}

func (a *API) removeLocked(tg target, obj object.Object) object.Object {
	delete(a.objects[tg.collection], tg.key())
	a.rv++
	gone := object.DeepCopy(obj)
	metadata(gone)["resourceVersion"] = strconv.FormatInt(a.rv, 10)
	a.notifyLocked(change{collection: tg.collection, typ: "DELETED", obj: gone, rv: a.rv})
	return gone
}

// metadata is obj's metadata, made when missing.
func metadata(obj object.Object) map[string]any {
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	return meta
}

// watcher is one open watch: the frames it has yet to send.
type watcher struct {
	collection string
	match      func(object.Object) bool
	mu         sync.Mutex
	frames     [][]byte
	wake       chan struct{}
}

func (wt *watcher) push(frame []byte) {
	wt.mu.Lock()
	wt.frames = append(wt.frames, frame)
	wt.mu.Unlock()
	select {
	case wt.wake <- struct{}{}:
	default:
	}
}

// frame is c as wt's watch sends it: its event, or a bookmark at its
// resourceVersion when wt does not watch that object.
func (wt *watcher) frame(c change) []byte {
	var b []byte
	if c.collection == wt.collection && wt.match(c.obj) {
		b, _ = json.Marshal(map[string]any{"type": c.typ, "object": c.obj})
	} else {
		b = bookmark(c.rv)
	}
	return append(b, '\n')
}

func bookmark(rv int64) []byte {
	b, _ := json.Marshal(map[string]any{"type": "BOOKMARK", "object": map[string]any{"metadata": map[string]any{"resourceVersion": strconv.FormatInt(rv, 10)}}})
	return b
}

func (a *API) notifyLocked(c change) {
	a.changes = append(a.changes, c)
	for wt := range a.watchers {
		wt.push(wt.frame(c))
	}
}

// watch streams the changes after the resourceVersion asked for, then every
// change, until the client leaves.
func (a *API) watch(w web.ResponseWriter, r *web.Request, tg target) {
	q := r.URL.Query()
	match, err := matcher(tg, q.Get("labelSelector"), q.Get("fieldSelector"))
	if err != nil {
		apierrors.Write(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	from, _ := strconv.ParseInt(q.Get("resourceVersion"), 10, 64)
	wt := &watcher{collection: tg.collection, match: match, wake: make(chan struct{}, 1)}
	a.mu.Lock()
	for _, c := range a.changes {
		if c.rv > from {
			wt.push(wt.frame(c))
		}
	}
	a.watchers[wt] = true
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.watchers, wt)
		a.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(web.StatusOK)
	for {
		wt.mu.Lock()
		frames := wt.frames
		wt.frames = nil
		wt.mu.Unlock()
		for _, f := range frames {
			if _, err := w.Write(f); err != nil {
				return
			}
		}
		_ = web.Flush(w)
		select {
		case <-wt.wake:
		case <-r.Context().Done():
			return
		}
		a.mu.Lock()
		held := a.held
		a.mu.Unlock()
		if held != nil {
			select {
			case <-held:
			case <-r.Context().Done():
				return
			}
		}
	}
}

// Hold keeps every watch from sending until Release: the informers fall
// behind the API, as a client's may.
func (a *API) Hold() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.held == nil {
		a.held = make(chan struct{})
	}
}

// Release lets the watches send what they held, and everything after.
func (a *API) Release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.held != nil {
		close(a.held)
		a.held = nil
	}
}

// Refuse answers the writes refuse returns a Status for with that Status
// (nil: none refused from now).
func (a *API) Refuse(refuse func(Write) *apierrors.Status) {
	a.mu.Lock()
	a.refuse = refuse
	a.mu.Unlock()
}

// Writes are the writes clients made since the last call, oldest first.
func (a *API) Writes() []Write {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.writes
	a.writes = nil
	return out
}

// Version is the newest resourceVersion.
func (a *API) Version() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return strconv.FormatInt(a.rv, 10)
}

// Create stores obj in the collection at path (namespaced, for a namespaced
// kind) as a client's create would, and returns what was stored.
func (a *API) Create(path string, obj object.Object) object.Object {
	a.t.Helper()
	tg := a.mustParse(path)
	body, _ := json.Marshal(obj)
	stored, st := a.create(tg, body, false)
	if st != nil {
		a.t.Fatalf("clienttest: create in %s: %s", path, st.Message)
	}
	return stored
}

// Get is the object at path.
func (a *API) Get(path string) (object.Object, bool) {
	a.t.Helper()
	tg := a.mustParse(path)
	a.mu.Lock()
	defer a.mu.Unlock()
	obj, ok := a.objects[tg.collection][tg.key()]
	return object.DeepCopy(obj), ok
}

// MustGet is the object at path, which must exist.
func (a *API) MustGet(path string) object.Object {
	a.t.Helper()
	obj, ok := a.Get(path)
	if !ok {
		a.t.Fatalf("clienttest: nothing at %s", path)
	}
	return obj
}

// List is the objects of the collection at path (all namespaces, or one), by
// namespace and name.
func (a *API) List(path string) []object.Object {
	a.t.Helper()
	tg := a.mustParse(path)
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []object.Object
	for _, obj := range a.sortedLocked(tg.collection) {
		if tg.namespace == "" || object.MetaString(obj, "namespace") == tg.namespace {
			out = append(out, object.DeepCopy(obj))
		}
	}
	return out
}

// Edit changes the object at path (its status too) and stores it at a new
// resourceVersion; an object being deleted goes once it has no finalizers.
func (a *API) Edit(path string, change func(obj object.Object)) object.Object {
	a.t.Helper()
	tg := a.mustParse(path)
	a.mu.Lock()
	defer a.mu.Unlock()
	cur, ok := a.objects[tg.collection][tg.key()]
	if !ok {
		a.t.Fatalf("clienttest: nothing at %s to edit", path)
	}
	next := object.DeepCopy(cur)
	change(next)
	return a.storeLocked(tg, next)
}

// Remove deletes the object at path at once, finalizers or not.
func (a *API) Remove(path string) {
	a.t.Helper()
	tg := a.mustParse(path)
	a.mu.Lock()
	defer a.mu.Unlock()
	cur, ok := a.objects[tg.collection][tg.key()]
	if !ok {
		a.t.Fatalf("clienttest: nothing at %s to remove", path)
	}
	a.removeLocked(tg, cur)
}

// Informer is an informer (a client.TypedInformer) as Run and Await need it.
type Informer interface {
	Run(ctx context.Context)
	Synced() <-chan struct{}
	Seen(rv string) bool
}

// Run runs the informers until the test ends, and waits until each has its
// first list in.
func (a *API) Run(informers ...Informer) {
	a.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	a.t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	for _, inf := range informers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			inf.Run(ctx)
		}()
	}
	for _, inf := range informers {
		select {
		case <-inf.Synced():
		case <-time.After(10 * time.Second):
			a.t.Fatal("clienttest: an informer has not listed in 10s")
		}
	}
}

// Await waits until each informer has seen every change made so far.
func (a *API) Await(informers ...Informer) {
	a.t.Helper()
	rv := a.Version()
	deadline := time.Now().Add(10 * time.Second)
	for _, inf := range informers {
		for !inf.Seen(rv) {
			if time.Now().After(deadline) {
				a.t.Fatalf("clienttest: an informer has not seen resourceVersion %s in 10s", rv)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
}

// Errorf is a refusal as a test writes one: a Status of code with message.
func Errorf(code int, reason, format string, args ...any) *apierrors.Status {
	return apierrors.New(code, reason, fmt.Sprintf(format, args...), nil)
}

// Changes are the writes that are not events, as Write.String names them.
func Changes(writes []Write) []string {
	var out []string
	for _, w := range writes {
		if w.Resource != "events" {
			out = append(out, w.String())
		}
	}
	return out
}

// Events are the events among writes (recorded or counted up), each as
// "Type Reason: message".
func Events(writes []Write) []string {
	var out []string
	for _, w := range writes {
		if w.Resource == "events" {
			out = append(out, fmt.Sprintf("%s %s: %s", w.Object["type"], w.Object["reason"], w.Object["message"]))
		}
	}
	return out
}

// Sync runs one sync of key once the informers have seen every change (none
// awaited: with what they have seen), and returns the writes it made.
func (a *API) Sync(sync func(ctx context.Context, key string) error, key string, informers ...Informer) ([]Write, error) {
	a.t.Helper()
	a.Await(informers...)
	a.Writes()
	err := sync(context.Background(), key)
	return a.Writes(), err
}
