// Package api owns what a served resource type is: for each, its group,
// version, kind, resource names, scope, verbs and subresources as discovery shows
// them, how its names are validated, which fields its field selectors support,
// the per-kind rules of kube-apiserver's registry (generation, create on update,
// what delete returns, the strategy's hooks), its defaults and its printer. The
// built-in kinds' descriptors are core/kinds'.
package api

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// NameRule is how a kind validates metadata.name.
type NameRule int

// Name rules, as kube-apiserver applies them per kind.
const (
	DNSSubdomain NameRule = iota // RFC 1123 subdomain, at most 253 characters
	DNSLabel                     // RFC 1123 label, at most 63 characters
	DNS1035Label                 // RFC 1035 label (starts with a letter)
	// PathSegment: anything a URL path segment can be (kube's common
	// metadata check, for kinds whose own rules check no name: Events).
	PathSegment
)

// Subresource is a subresource served under a resource.
type Subresource struct {
	Name  string
	Kind  string // the kind its requests and responses carry
	Group string // Kind's group
	Verbs []string
	// Connect: a connect subresource (exec, attach, portforward, proxy),
	// whose requests are passed on to a kubelet or a Pod; Kind names only
	// the options its query carries.
	Connect bool
}

// Resource describes one served resource type.
type Resource struct {
	Group      string
	Version    string
	Kind       string
	Plural     string
	Singular   string
	ShortNames []string
	Categories []string
	Namespaced bool
	Verbs      []string
	Subs       []Subresource

	Names NameRule
	// Generation: the kind tracks metadata.generation (bumped on spec changes).
	Generation bool
	// GenerationFixed: a kind that tracks generation keeps the first one
	// (kube's PriorityClass strategy bumps it on no update).
	GenerationFixed bool
	// CreateOnUpdate: PUT to a missing object creates it.
	CreateOnUpdate bool
	// ReturnDeleted: DELETE answers with the object rather than a Success Status.
	ReturnDeleted bool
	// UpdateNeedsVersion: a PUT must name the object's resourceVersion (kube's
	// AllowUnconditionalUpdate false: Leases).
	UpdateNeedsVersion bool
	// Untyped: kubeplay has no typed form of the kind (no protobuf message,
	// no structured-merge-diff type: applies deduce one): the
	// CustomResourceDefinition, whose schemas' JSON is its own.
	Untyped bool
	// ApplyDeduced: server-side apply deduces the kind's type, as for an
	// untyped kind, though it has a protobuf message: its
	// structured-merge-diff schema is not among client-go's (kube-aggregator's
	// APIService).
	ApplyDeduced bool
	// Virtual: the kind is never stored; a create computes its answer from the
	// request (the reviews: SelfSubjectReview, SelfSubjectAccessReview).
	Virtual bool
	// Computed: the kind's objects are never stored; each get and list
	// computes them (kube's componentstatuses, probed at every read), given
	// whether the rest of a control plane (a scheduler, a controller
	// manager) runs beside the API server.
	Computed func(controlPlane bool) []object.Object
	// DeprecatedIn is the release that deprecated the kind, when it is: a
	// request for it is warned ("v1 ComponentStatus is deprecated in
	// v1.19+").
	DeprecatedIn string
	// Fields are the kind-specific field selector fields beyond metadata.name and
	// metadata.namespace, and how to read them from an object.
	Fields map[string]func(object.Object) string
	// Hooks are the kind's own rules on its way into storage (its
	// strategy's).
	Hooks Hooks
	// Defaults sets kube's defaults of the kind's own Go type (its
	// SetDefaults_<Kind>) on a decoded object; core/defaults then sets those
	// of the types within it. A view's, when it has them, are its version's,
	// given to a write through it (converted to the stored form) in place of
	// the stored kind's, which it then gets once valid, as kube's reads of
	// what it stored give them.
	Defaults func(obj map[string]any)
	// ScaleSelector, for a built-in kind with a scale subresource, is the
	// label selector its Scale shows (status.selector; "" for none).
	ScaleSelector func(obj object.Object) string
	// Printer prints the kind's objects in Tables (kube's printers); nil:
	// kube's default convertor (Name, Created At).
	Printer *table.Printer
	// Custom is what a CustomResourceDefinition says of a custom resource's
	// objects; nil for the built-in kinds.
	Custom *CustomResource
	// View, when set, serves another resource's objects in this kind's form
	// (kube's events.k8s.io/v1 Event is the core/v1 Event, stored once).
	View *View
	// Remote, when set, answers every request for the resource: it is an
	// aggregated API server's (an APIService naming a Service), to which
	// kube-apiserver's aggregator proxies once the request is authorized.
	Remote web.Handler
}

// View is a kind served as another resource's objects, converted both ways,
// as kube serves several versions of one stored object: the objects are
// stored (and watched, and selected by fields) as Stored's, and converted
// when they are read through this kind or written through it.
type View struct {
	Stored *Resource
	// FieldLabels are the field selector fields, each with the stored
	// kind's field it stands for (kube's field label conversion).
	FieldLabels map[string]string
	// FromStored and ToStored convert an object (in place, returning it);
	// metadata is the same in both forms. (What a write through the view
	// must satisfy is the stored kind's strategy's to say: kube validates
	// by request version.)
	FromStored, ToStored func(object.Object) object.Object
}

// Storage is the resource whose objects res's are: res itself, or what it
// is a view of.
func (res *Resource) Storage() *Resource {
	if res.View != nil {
		return res.View.Stored
	}
	return res
}

// CustomResource is what one version of a CustomResourceDefinition says of
// its objects (core/crd makes it).
type CustomResource struct {
	// Definition is the CustomResourceDefinition's name.
	Definition string
	// Schema prunes, defaults and validates the objects.
	Schema CustomSchema
	// Stored is the schema of the definition's storage version, when that is
	// another version: an object read from storage is pruned and defaulted by
	// it before this version's, as kube decodes it, then converts it.
	Stored CustomSchema
	// OpenAPI is the version's openAPIV3Schema, as written.
	OpenAPI map[string]any
	// Rules are its x-kubernetes-validations rules, for the host's CEL; nil
	// when it has none.
	Rules *CustomRules
	// Printer prints the objects in Tables: the version's
	// additionalPrinterColumns.
	Printer *table.Printer
	// Scale are the paths of the scale subresource; nil without one.
	Scale *ScalePaths
	// Selectable are the version's selectableFields, the fields field
	// selectors may use beyond metadata.name (and metadata.namespace, when
	// namespaced); the resource's Fields read those of every version.
	Selectable []string
}

// CustomSchema is a custom resource's structural schema at work.
type CustomSchema interface {
	// Prune removes the fields the schema does not know from an object and
	// returns their paths, sorted.
	Prune(obj object.Object) []string
	// Default sets the schema's defaults the object lacks.
	Default(v any)
	// Validate checks the object (but its metadata) against the schema.
	Validate(obj object.Object) field.ErrorList
}

// ScalePaths are where a custom resource keeps what its Scale shows: simple
// JSON paths (".spec.replicas").
type ScalePaths struct {
	SpecReplicas, StatusReplicas, LabelSelector string
}

// APIVersion is the kind's apiVersion: "v1" or "apps/v1".
//
//go:noinline
func (r *Resource) APIVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// ListKind is the kind of the resource's collections.
func (r *Resource) ListKind() string { return r.Kind + "List" }

// Sub returns the named subresource, or nil.
func (r *Resource) Sub(name string) *Subresource {
	for i := range r.Subs {
		if r.Subs[i].Name == name {
			return &r.Subs[i]
		}
	}
	return nil
}

// SupportsField says whether a field selector may use field.
func (r *Resource) SupportsField(field string) bool {
	if r.View != nil {
		_, ok := r.View.FieldLabels[field]
		return ok
	}
	if r.Custom != nil {
		return field == "metadata.name" || field == "metadata.namespace" && r.Namespaced || slices.Contains(r.Custom.Selectable, field)
	}
	if field == "metadata.name" || field == "metadata.namespace" {
		return true
	}
	_, ok := r.Fields[field]
	return ok
}

// UnsupportedField is kube's message for a field selector on a field the
// resource does not support: its kind's own field label conversion's, or the
// default one's.
func (r *Resource) UnsupportedField(field string) string {
	if len(r.Fields) > 0 || r.View != nil || r.Custom != nil {
		return "field label not supported: " + field
	}
	return fmt.Sprintf("%q is not a known field selector: only %q, %q", field, "metadata.name", "metadata.namespace")
}

// FieldSet returns the field selector fields of obj.
func (r *Resource) FieldSet(obj object.Object) map[string]string {
	fs := make(map[string]string, 2+len(r.Fields))
	fs["metadata.name"] = object.MetaString(obj, "name")
	if r.Namespaced {
		fs["metadata.namespace"] = object.MetaString(obj, "namespace")
	}
	for f, get := range r.Fields {
		fs[f] = get(obj)
	}
	return fs
}

// HasVerb says whether the resource serves verb.
func (r *Resource) HasVerb(verb string) bool {
	for _, v := range r.Verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// GroupVersion is one served API group version.
type GroupVersion struct {
	Group, Version string
}

// String is "v1" for the core group and "group/version" otherwise.
func (gv GroupVersion) String() string {
	if gv.Group == "" {
		return gv.Version
	}
	return gv.Group + "/" + gv.Version
}

// Registry holds the served resources. Readers see an immutable snapshot; Add
// publishes a new one (copy on write, as apiextensions' customStorage does), so
// lookups take no lock and a resource becoming served never races a request in
// flight. Generation counts the changes, so what is derived from the registry
// (discovery, OpenAPI documents) can tell when to rebuild.
type Registry struct {
	mu   sync.Mutex // serializes writers
	snap atomic.Pointer[registrySnapshot]
}

type registrySnapshot struct {
	generation uint64
	resources  []*Resource
	byGVR      map[string]*Resource
}

// NewRegistry returns a registry serving rs.
func NewRegistry(rs ...*Resource) *Registry {
	reg := &Registry{}
	reg.snap.Store(&registrySnapshot{byGVR: map[string]*Resource{}})
	for _, r := range rs {
		reg.Add(r)
	}
	return reg
}

// Add serves r (replacing a resource of the same group, version and plural).
func (reg *Registry) Add(r *Resource) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	old := reg.snap.Load()
	next := &registrySnapshot{
		generation: old.generation + 1,
		resources:  append(make([]*Resource, 0, len(old.resources)+1), old.resources...),
		byGVR:      make(map[string]*Resource, len(old.byGVR)+1),
	}
	for k, v := range old.byGVR {
		next.byGVR[k] = v
	}
	key := r.Group + "/" + r.Version + "/" + r.Plural
	if prev, ok := next.byGVR[key]; ok {
		for i, x := range next.resources {
			if x == prev {
				next.resources[i] = r
			}
		}
	} else {
		next.resources = append(next.resources, r)
	}
	next.byGVR[key] = r
	reg.snap.Store(next)
}

// Remove stops serving the resource of group, version and plural.
func (reg *Registry) Remove(group, version, plural string) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	old := reg.snap.Load()
	key := group + "/" + version + "/" + plural
	prev, ok := old.byGVR[key]
	if !ok {
		return
	}
	next := &registrySnapshot{generation: old.generation + 1, byGVR: make(map[string]*Resource, len(old.byGVR))}
	for k, v := range old.byGVR {
		if k != key {
			next.byGVR[k] = v
		}
	}
	for _, r := range old.resources {
		if r != prev {
			next.resources = append(next.resources, r)
		}
	}
	reg.snap.Store(next)
}

// Generation changes whenever the served resources do.
func (reg *Registry) Generation() uint64 { return reg.snap.Load().generation }

// Lookup finds a resource by group, version and plural name.
func (reg *Registry) Lookup(group, version, plural string) *Resource {
	return reg.snap.Load().byGVR[group+"/"+version+"/"+plural]
}

// ServesGroup says whether a resource of group is served.
func (reg *Registry) ServesGroup(group string) bool {
	for _, r := range reg.snap.Load().resources {
		if r.Group == group {
			return true
		}
	}
	return false
}

// Resources returns every resource of one group version, in the order added.
func (reg *Registry) Resources(gv GroupVersion) []*Resource {
	var out []*Resource
	for _, r := range reg.snap.Load().resources {
		if r.Group == gv.Group && r.Version == gv.Version {
			out = append(out, r)
		}
	}
	return out
}

// GroupVersions returns the served group versions: the core group first, then the
// others by group name in the order kube-apiserver lists them (its priority order
// for built-ins, then alphabetical; the remote ones last, as their APIServices'
// lower group priority puts them: metrics-server's 100, a custom resource's 1000).
func (reg *Registry) GroupVersions() []GroupVersion {
	seen := map[GroupVersion]bool{}
	remote := map[string]bool{}
	var out []GroupVersion
	for _, r := range reg.snap.Load().resources {
		gv := GroupVersion{r.Group, r.Version}
		remote[r.Group] = remote[r.Group] || r.Remote != nil
		if !seen[gv] {
			seen[gv] = true
			out = append(out, gv)
		}
	}
	priority := func(group string) int {
		if remote[group] {
			return len(builtinGroupOrder) + 1
		}
		return groupPriority(group)
	}
	sort.SliceStable(out, func(i, j int) bool {
		pi, pj := priority(out[i].Group), priority(out[j].Group)
		if pi != pj {
			return pi < pj
		}
		if out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		return versionBefore(out[i].Version, out[j].Version)
	})
	return out
}

// builtinGroupOrder is kube-apiserver's discovery order for the built-in groups.
var builtinGroupOrder = []string{"", "apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io",
	"authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io",
	"networking.k8s.io", "policy", "rbac.authorization.k8s.io", "storage.k8s.io",
	"admissionregistration.k8s.io", "apiextensions.k8s.io", "scheduling.k8s.io",
	"coordination.k8s.io", "node.k8s.io", "discovery.k8s.io", "flowcontrol.apiserver.k8s.io"}

func groupPriority(g string) int {
	for i, b := range builtinGroupOrder {
		if b == g {
			return i
		}
	}
	return len(builtinGroupOrder)
}

// kubeVersion reads a Kubernetes-like version (v1, v2beta1, v1alpha3): its
// major number, stability (0 GA, 1 beta, 2 alpha) and minor number.
func kubeVersion(v string) (major, stability, minor int, ok bool) {
	rest, found := strings.CutPrefix(v, "v")
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		major = major*10 + int(rest[i]-'0')
		i++
	}
	if !found || i == 0 || rest[0] == '0' {
		return 0, 0, 0, false
	}
	rest = rest[i:]
	switch {
	case rest == "":
		return major, 0, 0, true
	case strings.HasPrefix(rest, "beta"):
		stability, rest = 1, rest[4:]
	case strings.HasPrefix(rest, "alpha"):
		stability, rest = 2, rest[5:]
	default:
		return 0, 0, 0, false
	}
	for j := 0; j < len(rest); j++ {
		if rest[j] < '0' || rest[j] > '9' {
			return 0, 0, 0, false
		}
		minor = minor*10 + int(rest[j]-'0')
	}
	return major, stability, minor, rest != ""
}

// versionBefore orders versions as kube's discovery does: Kubernetes-like
// versions first, GA before beta before alpha, newest first; the others by
// name.
func versionBefore(a, b string) bool {
	am, as, an, aok := kubeVersion(a)
	bm, bs, bn, bok := kubeVersion(b)
	switch {
	case aok != bok:
		return aok
	case !aok:
		return a < b
	case as != bs:
		return as < bs
	case am != bm:
		return am > bm
	}
	return an > bn
}

// ByGroupResource finds a resource by group and plural name, whatever its version.
func (reg *Registry) ByGroupResource(group, plural string) *Resource {
	for _, r := range reg.snap.Load().resources {
		if r.Group == group && r.Plural == plural {
			return r
		}
	}
	return nil
}

// All returns every served resource, in the order added.
func (reg *Registry) All() []*Resource {
	return append([]*Resource(nil), reg.snap.Load().resources...)
}

// AllVerbs are the verbs of a resource that serves them all, as discovery
// lists them.
var AllVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
