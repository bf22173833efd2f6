// Package apply owns field management and server-side apply, as kube-apiserver's
// field manager (k8s.io/apimachinery's util/managedfields) does them on top of
// sigs.k8s.io/structured-merge-diff: metadata.managedFields, which manager owns
// which fields of an object, kept up to date on every write (Update: creates,
// updates, patches), and the merge of an applied configuration into an object,
// with its conflicts, force and the upgrade from client-side apply (Apply). It
// also reads apply bodies (YAML, JSON, CBOR) as kube does.
//
// The structured-merge-diff schemas of the served kinds are generated at build
// time by tools/applyschema from client-go's copy of kube's OpenAPI models,
// embedded compressed and parsed on first use.
package apply

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/structured-merge-diff/v4/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v4/merge"
	"sigs.k8s.io/structured-merge-diff/v4/typed"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/object"
)

// write is one write as the field manager records it.
type write struct {
	res     *api.Resource
	sub     string // the subresource written to, "" for the resource itself
	manager string // the field manager's name ("" is kube's "unknown")
	now     time.Time
	kinds   *api.Registry // the served resources, nil: each kind in one version
}

// FieldManager keeps metadata.managedFields and merges applied configurations.
// Its zero value is ready to use, and knows every kind in one version.
type FieldManager struct {
	// Kinds, when set, are the served resources: the entries of an object
	// served in several versions (a kind and its views, api.View) are kept
	// in the version each manager wrote, and a write in another converts
	// them, as kube's field manager does.
	Kinds *api.Registry
}

// Update records in obj's managedFields what manager's write to res (through
// subresource sub, at now) changes from old (nil for a new object), as kube's
// field manager records every create, update and patch: the manager's Update entry takes the fields it set or changed, other
// managers lose them and any field removed. The managedFields a client sends
// are kept when they are valid (so they can be edited), an empty list or
// [{}] clears them (and they stay cleared until the next apply), invalid ones
// are replaced by the stored ones. If managedFields cannot be computed, obj
// is returned without any, as kube does.
func (f FieldManager) Update(res *api.Resource, sub, manager string, now time.Time, old, obj object.Object) object.Object {
	w := write{res, sub, manager, now, f.Kinds}
	meta := object.Meta(obj)
	var liveMeta map[string]any
	if old != nil {
		liveMeta = object.Meta(old)
	}
	var m managed
	switch {
	case w.sub != "": // a subresource's write never sets managedFields
		m = decodeOrEmpty(liveMeta)
	case isReset(meta):
		m = newManaged()
	default:
		var err error
		if m, err = decodeManaged(meta); err != nil || len(m.fields) == 0 {
			m = decodeOrEmpty(liveMeta)
		}
	}
	delete(meta, "managedFields")
	if len(m.fields) == 0 && old != nil {
		// Not tracked (cleared, or never tracked): only an apply starts again.
		return obj
	}
	if old == nil {
		old = zeroObject(w.res)
	}
	m, err := w.update(old, obj, m, managerID{Manager: w.manager, Operation: opUpdate})
	if err == nil {
		err = m.encode(meta)
	}
	if err != nil {
		delete(meta, "managedFields")
	}
	return obj
}

// decodeOrEmpty is the managed fields of stored metadata, none when they are
// invalid.
func decodeOrEmpty(meta map[string]any) managed {
	if meta == nil {
		return newManaged()
	}
	m, err := decodeManaged(meta)
	if err != nil {
		return newManaged()
	}
	return m
}

// currentOperation is the name the update being recorded goes by until its
// fields are merged into its manager's entry.
const currentOperation = "current-operation"

// update records the change from old to obj as an Update by id (its apiVersion
// and subresource filled in here): what kube's managed fields updater, cap and
// strip-meta layers do around structured-merge-diff's Update.
func (w write) update(old, obj object.Object, m managed, id managerID) (managed, error) {
	if id.Manager == "" {
		id.Manager = "unknown"
	}
	id.APIVersion, id.Subresource = w.res.APIVersion(), w.sub
	oldTV, err := toTypedUnvalidated(w.res, withZeroFields(w.res, old))
	if err != nil {
		return m, err
	}
	newTV, err := toTypedUnvalidated(w.res, withZeroFields(w.res, obj))
	if err != nil {
		return m, err
	}
	_, fields, err := w.updater().Update(oldTV, newTV, w.version(), m.fields, currentOperation)
	if err != nil {
		return m, err
	}
	stripMeta(fields, currentOperation)
	m.fields = fields
	if vs, ok := fields[currentOperation]; ok {
		delete(fields, currentOperation)
		key := id.String()
		set := vs.Set()
		if prev, ok := fields[key]; ok {
			set = set.Union(prev.Set())
		}
		fields[key] = fieldpath.NewVersionedSet(set, vs.APIVersion(), vs.Applied())
		m.times[key] = timestamp(w.now)
	}
	m.capUpdateManagers()
	return m, nil
}

// Apply merges config, an applied configuration, into live (nil when there is
// no object yet of res) for manager, applying through subresource sub at now,
// as kube's field manager applies: the
// manager's Apply entry owns exactly the fields config sets, fields it applied
// before and no longer sets are removed unless another manager owns them, and
// a field another manager owns with a different value is a conflict (409)
// unless force takes it. kubectl's own manager ("kubectl") may take, without
// force, the fields client-side apply recorded in the last-applied annotation,
// and keeps that annotation up to date. It returns the object to store with
// its managedFields.
func (f FieldManager) Apply(res *api.Resource, sub, manager string, now time.Time, live, config object.Object, force bool) (object.Object, error) {
	w := write{res, sub, manager, now, f.Kinds}
	if live == nil {
		live = zeroObject(w.res)
	}
	m, err := decodeManaged(object.Meta(live))
	if err != nil {
		return nil, apierrors.New(500, "", fmt.Sprintf("failed to decode managed fields: %v", err), nil)
	}
	if gvk, want := configGVK(config), (gvkString(w.res.APIVersion(), w.res.Kind)); gvk != want {
		return nil, apierrors.NewBadRequest("invalid object type: " + gvk)
	}
	if meta, _ := config["metadata"].(map[string]any); meta != nil {
		if _, ok := meta["managedFields"].([]any); ok {
			return nil, apierrors.NewBadRequest("metadata.managedFields must be nil")
		}
	}
	obj, applied, err := w.apply(live, config, m, force)
	var conflicts merge.Conflicts
	if errors.As(err, &conflicts) && w.manager == kubectlManager {
		// Fields client-side apply set, as its annotation records them, are
		// kubectl's to take.
		allowed, ok := lastAppliedFields(w.res, live)
		if !ok {
			return nil, conflictError(conflicts)
		}
		if left := conflictsOutside(conflicts, allowed); len(left) > 0 {
			return nil, conflictError(left)
		}
		obj, applied, err = w.apply(live, config, m, true)
	}
	if errors.As(err, &conflicts) {
		return nil, conflictError(conflicts)
	}
	if err != nil {
		return nil, err
	}
	if w.manager == kubectlManager {
		updateLastApplied(obj, config)
	}
	if err := applied.encode(object.Meta(obj)); err != nil {
		return nil, apierrors.NewInternal(err)
	}
	return obj, nil
}

// apply is one attempt at an apply: kube's skip-non-applied, managed fields
// updater, strip-meta and structured merge layers.
func (w write) apply(live, config object.Object, m managed, force bool) (object.Object, managed, error) {
	if len(m.fields) == 0 {
		// Never tracked (or cleared): the fields already there become those of
		// a manager "before-first-apply".
		var err error
		m, err = w.update(zeroObject(w.res), live, m, managerID{Manager: "before-first-apply", Operation: opUpdate})
		if err != nil {
			return nil, m, plainError("failed to create manager for existing fields: %v", err)
		}
	}
	id := managerID{Manager: w.manager, Operation: opApply, Subresource: w.sub}.String()
	configTV, err := toTyped(w.res, config)
	if err != nil {
		return nil, m, plainError("failed to create typed patch object (%s): %v", describe(w.res, config), err)
	}
	liveTV, err := toTyped(w.res, live, typed.AllowDuplicates)
	if err != nil {
		return nil, m, plainError("failed to create typed live object (%s): %v", describe(w.res, live), err)
	}
	newTV, fields, err := w.updater().Apply(liveTV, configTV, w.version(), m.fields, id, force)
	if err != nil {
		return nil, m, err
	}
	stripMeta(fields, id)
	m.fields = fields
	if newTV == nil { // nothing changed
		obj := object.DeepCopy(live)
		delete(object.Meta(obj), "managedFields")
		return obj, m, nil
	}
	m.times[id] = timestamp(w.now)
	obj, err := typedObject(w.res, newTV)
	if err != nil {
		return nil, m, plainError("failed to convert new object (%s) to proper version: unable to convert unstructured object to %s: %v",
			describe(w.res, config), gvkString(w.res.APIVersion(), w.res.Kind), err)
	}
	delete(object.Meta(obj), "managedFields")
	return obj, m, nil
}

// plainError is an error kube answers as it is: a 500 with no reason.
func plainError(format string, args ...any) error {
	return apierrors.New(500, "", fmt.Sprintf(format, args...), nil)
}

// describe names an object in kube's field manager errors: "ns/name; group/version, Kind=kind".
func describe(res *api.Resource, obj object.Object) string {
	return object.MetaString(obj, "namespace") + "/" + object.MetaString(obj, "name") + "; " + gvkString(res.APIVersion(), res.Kind)
}

// configGVK is the group, version and kind a configuration names, as kube
// prints them; an apiVersion that is no group/version makes them all empty.
func configGVK(config object.Object) string {
	apiVersion, _ := config["apiVersion"].(string)
	kind, _ := config["kind"].(string)
	if strings.Count(apiVersion, "/") > 1 {
		apiVersion, kind = "", ""
	}
	return gvkString(apiVersion, kind)
}

// gvkString prints a group, version and kind as kube's GroupVersionKind does
// ("apps/v1, Kind=Deployment", "/v1, Kind=ConfigMap").
func gvkString(apiVersion, kind string) string {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	return group + "/" + version + ", Kind=" + kind
}

// version is the apiVersion managedFields entries of w's kind are written in.
func (w write) version() fieldpath.APIVersion { return fieldpath.APIVersion(w.res.APIVersion()) }

// updater is structured-merge-diff's updater for w: its kind's versions are
// the resources that serve its objects, and the fields w's strategy resets
// are nobody's.
func (w write) updater() *merge.Updater {
	u := &merge.Updater{Converter: versionConverter{w.res, w.kinds}}
	if reset := resetFields(w.res, w.sub); reset != nil {
		u.IgnoreFilter = map[fieldpath.APIVersion]fieldpath.Filter{w.version(): fieldpath.NewExcludeSetFilter(reset)}
	}
	return u
}

// versionConverter converts an object of res's between the versions of
// its group its objects are served in: res, the kind it is a view of, the
// other views of that kind (api.View), as kube converts them through its
// internal version. An entry of a version no resource of the group serves
// the objects in belongs to no version there is (kube converts within a
// group, and drops such entries: an events.k8s.io/v1 Event's entries on a
// write to the core/v1 Event).
type versionConverter struct {
	res   *api.Resource
	kinds *api.Registry
}

var errMissingVersion = errors.New("no such version")

func (c versionConverter) Convert(tv *typed.TypedValue, version fieldpath.APIVersion) (*typed.TypedValue, error) {
	if string(version) == c.res.APIVersion() {
		return tv, nil
	}
	target := c.served(string(version))
	if target == nil {
		return nil, errMissingVersion
	}
	u, ok := tv.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, errMissingVersion
	}
	obj := object.DeepCopy(u) // the conversions work in place, and u may be tv's own
	if v := c.res.View; v != nil {
		obj = v.ToStored(obj)
	}
	if v := target.View; v != nil {
		obj = v.FromStored(obj)
	}
	return toTypedUnvalidated(target, obj)
}

// served is the resource that serves c.res's objects in apiVersion, or nil.
func (c versionConverter) served(apiVersion string) *api.Resource {
	if c.kinds == nil {
		return nil
	}
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	if group != c.res.Group {
		return nil
	}
	r := c.kinds.Lookup(group, version, c.res.Plural)
	if r == nil || r.Kind != c.res.Kind || r.Storage() != c.res.Storage() {
		return nil
	}
	return r
}

func (versionConverter) IsMissingVersionError(err error) bool {
	return errors.Is(err, errMissingVersion)
}

// resetFields are the fields a write to sub may not set, as kube's strategies
// name them (GetResetFields): nobody owns them through it. The resource itself
// resets its status when status is a subresource; the status subresource
// resets the spec (and, for some kinds, metadata); finalize resets status.
func resetFields(res *api.Resource, sub string) *fieldpath.Set {
	switch sub {
	case "":
		if res.Sub("status") != nil {
			return fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
		}
	case "status":
		set := fieldpath.NewSet(fieldpath.MakePathOrDie("spec"))
		for _, p := range res.Hooks.StatusResetsMetadata {
			set.Insert(fieldpath.MakePathOrDie("metadata", p))
		}
		return set
	case "finalize":
		return fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
	}
	return nil
}

// stripped are the fields no manager owns: the type, and the metadata the
// server writes.
var stripped = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
	fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
	fieldpath.MakePathOrDie("metadata", "selfLink"),
	fieldpath.MakePathOrDie("metadata", "uid"),
	fieldpath.MakePathOrDie("metadata", "clusterName"),
	fieldpath.MakePathOrDie("metadata", "generation"),
	fieldpath.MakePathOrDie("metadata", "managedFields"),
	fieldpath.MakePathOrDie("metadata", "resourceVersion"),
)

// stripMeta takes the stripped fields from manager, and drops it when nothing
// is left.
func stripMeta(fields fieldpath.ManagedFields, manager string) {
	vs, ok := fields[manager]
	if !ok {
		return
	}
	set := vs.Set().Difference(stripped)
	if set.Empty() {
		delete(fields, manager)
		return
	}
	fields[manager] = fieldpath.NewVersionedSet(set, vs.APIVersion(), vs.Applied())
}

// timestamp is a managedFields time: RFC 3339, seconds, UTC.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// conflictError is kube's answer to an apply's conflicts: 409 Conflict, a cause
// per conflicting field naming its manager, and a message listing them. The
// causes come in manager order (kube's come in no particular order).
func conflictError(conflicts merge.Conflicts) error {
	conflicts = append(merge.Conflicts(nil), conflicts...)
	sort.SliceStable(conflicts, func(i, j int) bool { return conflicts[i].Manager < conflicts[j].Manager })
	causes := make([]apierrors.StatusCause, len(conflicts))
	for i, c := range conflicts {
		causes[i] = apierrors.StatusCause{Type: "FieldManagerConflict", Message: "conflict with " + printManager(c.Manager), Field: c.Path.String()}
	}
	var msg string
	if len(conflicts) == 1 {
		msg = fmt.Sprintf("Apply failed with 1 conflict: conflict with %s: %v", printManager(conflicts[0].Manager), conflicts[0].Path)
	} else {
		var lines []string
		for i, c := range conflicts {
			if i == 0 || c.Manager != conflicts[i-1].Manager {
				lines = append(lines, fmt.Sprintf("conflicts with %s:", printManager(c.Manager)))
			}
			lines = append(lines, fmt.Sprintf("- %v", c.Path))
		}
		msg = fmt.Sprintf("Apply failed with %d conflicts: %s", len(conflicts), strings.Join(lines, "\n"))
	}
	return apierrors.New(409, "Conflict", msg, &apierrors.StatusDetails{Causes: causes})
}

// printManager names a manager in a conflict: `"name"`, with its subresource,
// and for an updater the apiVersion it used.
func printManager(key string) string {
	id := parseManagerID(key)
	s := fmt.Sprintf("%q", id.Manager)
	if id.Subresource != "" {
		s += fmt.Sprintf(" with subresource %q", id.Subresource)
	}
	if id.Operation == opUpdate {
		s += " using " + id.APIVersion
	}
	return s
}
