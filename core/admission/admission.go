package admission

// This file owns kube-apiserver's admission webhooks as its
// MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins dispatch
// them: on every write, each webhook of the stored configurations (sorted
// by configuration name, then in their order) is matched by its rules
// (operations, groups, versions, resources and subresources, scope, and the
// equivalent resources its matchPolicy allows), its namespaceSelector and
// its objectSelector; a matching webhook is called, and what a call cannot
// do is answered as kube answers it: with failurePolicy Fail, kube's
// refusal (500 InternalError, "failed calling webhook ...: failed to call
// webhook: Post ...: <why>"), with Ignore, the write proceeds.
//
// A webhook served by a Service is never reached: no process runs behind a
// sandbox's Pods. Its call fails as kube-apiserver's service resolver fails
// it (no such Service, no such port, a headless Service, a type it does not
// route to) or, the Service resolved, as a real cluster's network answers
// for an address nothing listens on (connection refused). A webhook
// configured with a url is called for real when the host gives a Caller
// (natively), with an AdmissionReview v1, its answer applied as kube
// applies it (a refusal with the webhook's Status, warnings, a mutating
// webhook's JSON patch); without one (the browser, the edge) nothing is
// reachable and it fails as a refused connection.
//
// What kube also evaluates and this package does not: matchConditions (CEL;
// a webhook with them is matched without them), the reinvocation of the
// other mutating admission plugins, the audit annotations.

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
	"kubeplay/core/selector"
	"kubeplay/core/user"
)

// Group is the API group of the webhooks' configurations.
const Group = "admissionregistration.k8s.io"

// exempt are the resources no webhook is called for (kube's
// IsExemptAdmissionConfigurationResource): a webhook could otherwise lock
// its own configuration.
var exempt = map[string]bool{
	"validatingwebhookconfigurations": true, "mutatingwebhookconfigurations": true,
	"validatingadmissionpolicies": true, "validatingadmissionpolicybindings": true,
	"mutatingadmissionpolicies": true, "mutatingadmissionpolicybindings": true,
}

// Resource is a resource in a version, with the kind it serves.
type Resource struct {
	Group, Version, Resource, Kind string
}

// Attributes are what a write is, as kube's admission.Attributes.
type Attributes struct {
	Operation string // CREATE, UPDATE, DELETE or CONNECT
	// Resource is the resource written, in the request's version.
	Resource    Resource
	Subresource string
	Namespace   string
	Name        string
	// Object is the object written (nil for a delete); OldObject the one
	// it replaces (nil for a create).
	Object, OldObject object.Object
	DryRun            bool
	User              user.User
	// Equivalents are the other resources serving the same objects (kube's
	// EquivalentResourceMapper: events.k8s.io/v1 events for v1 events).
	Equivalents []Resource
	// Warn hears the warnings a webhook answers with.
	Warn func(string)
	// InVersion is an object (Object, OldObject) in the form of resource
	// res, which a webhook called for res is sent (a copy when it
	// differs); FromVersion is the way back, for what a webhook patched.
	InVersion, FromVersion func(res Resource, obj object.Object) object.Object
}

// Cluster is what dispatch reads of the sandbox: namespaces (for
// namespace selectors) and Services (where a webhook's service reference
// resolves).
type Cluster interface {
	Namespace(name string) (object.Object, bool)
	Service(namespace, name string) (object.Object, bool)
}

// Caller posts body to url (a webhook's, with its ?timeout), trusting the
// PEM certificates of caBundle (the system's when empty), and returns the
// answer's body; its error, a transport's, is quoted in kube's refusal as
// net/http words it (Post "URL": ...). Hosts that can reach the network
// give one.
type Caller func(ctx context.Context, url string, caBundle []byte, body []byte, timeout time.Duration) (answer []byte, err error)

// Webhook is one webhook of a configuration, ready to match.
type Webhook struct {
	Name string
	// Spec is the webhook as stored (defaulted and valid).
	Spec              map[string]any
	namespaceSelector selector.Labels
	objectSelector    selector.Labels
}

// Webhooks are the webhooks of configurations, in kube's order: by
// configuration name, then as each lists them.
func Webhooks(configurations []object.Object) []*Webhook {
	sorted := append([]object.Object(nil), configurations...)
	sort.SliceStable(sorted, func(i, j int) bool {
		return object.MetaString(sorted[i], "name") < object.MetaString(sorted[j], "name")
	})
	var out []*Webhook
	for _, c := range sorted {
		for _, h := range object.Objects(c, "webhooks") {
			out = append(out, &Webhook{Name: object.String(h["name"]), Spec: h,
				namespaceSelector: ParseSelector(h["namespaceSelector"]), objectSelector: ParseSelector(h["objectSelector"])})
		}
	}
	return out
}

// ParseSelector is a LabelSelector as a selector; a selector kube's
// validation let through always parses.
func ParseSelector(v any) selector.Labels {
	m, _ := v.(map[string]any)
	s, ok := selector.FormatLabelSelector(m)
	if !ok {
		return nil
	}
	sel, _ := selector.ParseLabels(s)
	return sel
}

// Dispatcher calls the webhooks that match a write.
type Dispatcher struct {
	Cluster Cluster
	// Call reaches a url webhook; nil when nothing is reachable.
	Call Caller
}

// invocation is a webhook to call for a write, with the resource it
// matched (the write's, or an equivalent one).
type invocation struct {
	hook     *Webhook
	resource Resource
}

// Mutate calls the mutating webhooks that match a, in order, each seeing
// what the ones before made of a.Object; a refusal is the answer. A
// webhook whose reinvocationPolicy is IfNeeded is called once more, in a
// second round, when a webhook after it changed the object.
func (d *Dispatcher) Mutate(ctx context.Context, hooks []*Webhook, a *Attributes) error {
	invs, err := d.relevant(hooks, a)
	if err != nil {
		return err
	}
	again := map[*Webhook]bool{}
	var invoked []*Webhook // IfNeeded webhooks called since the last change
	for _, inv := range invs {
		var before object.Object
		if a.Object != nil {
			before = object.DeepCopy(a.Object)
		}
		if err := d.call(ctx, inv, a, true); err != nil {
			return err
		}
		if a.Object != nil && !object.Equal(before, a.Object) {
			for _, h := range invoked {
				again[h] = true
			}
			invoked = nil
		}
		if object.String(inv.hook.Spec["reinvocationPolicy"]) == "IfNeeded" {
			invoked = append(invoked, inv.hook)
		}
	}
	for _, inv := range invs {
		if again[inv.hook] {
			if err := d.call(ctx, inv, a, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// Validate calls the validating webhooks that match a (kube calls them in
// parallel); the first refusal, in their order, is the answer.
func (d *Dispatcher) Validate(ctx context.Context, hooks []*Webhook, a *Attributes) error {
	invs, err := d.relevant(hooks, a)
	if err != nil {
		return err
	}
	var first error
	for _, inv := range invs {
		if err := d.call(ctx, inv, a, false); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// relevant are the webhooks a is for (kube's ShouldCallHook).
func (d *Dispatcher) relevant(hooks []*Webhook, a *Attributes) ([]invocation, error) {
	if len(hooks) == 0 || a.Resource.Group == Group && exempt[a.Resource.Resource] {
		return nil, nil
	}
	var out []invocation
	for _, h := range hooks {
		nsMatch, nsErr := d.matchNamespace(h, a)
		if !nsMatch && nsErr == nil {
			continue
		}
		if !matchObject(h, a) {
			continue
		}
		inv, ok := matchRules(h, a)
		if !ok {
			continue
		}
		if nsErr != nil {
			return nil, nsErr
		}
		out = append(out, inv)
	}
	return out, nil
}

// matchNamespace is kube's namespace matcher: a cluster-scoped object (not
// a namespace) is always matched; a namespace is judged by its own labels.
func (d *Dispatcher) matchNamespace(h *Webhook, a *Attributes) (bool, error) {
	isNamespace := a.Resource.Group == "" && a.Resource.Resource == "namespaces"
	if a.Namespace == "" && !isNamespace {
		return true, nil
	}
	if h.namespaceSelector.Empty() {
		return true, nil
	}
	var labels map[string]string
	switch {
	case isNamespace && a.Subresource == "" && a.Object != nil:
		labels = object.StringMap(object.Meta(a.Object), "labels")
	case isNamespace && a.Subresource == "" && a.OldObject != nil:
		labels = object.StringMap(object.Meta(a.OldObject), "labels")
	default:
		name := a.Namespace
		if isNamespace {
			name = a.Name
		}
		ns, ok := d.Cluster.Namespace(name)
		if !ok {
			return false, apierrors.NewNotFound("", "namespaces", name)
		}
		labels = object.StringMap(object.Meta(ns), "labels")
	}
	return h.namespaceSelector.Matches(labels), nil
}

// matchObject is kube's object matcher: the object written or the one it
// replaces has the labels the selector asks for.
func matchObject(h *Webhook, a *Attributes) bool {
	if h.objectSelector.Empty() {
		return true
	}
	for _, o := range []object.Object{a.Object, a.OldObject} {
		if o != nil && h.objectSelector.Matches(object.StringMap(object.Meta(o), "labels")) {
			return true
		}
	}
	return false
}

// matchRules: a rule matches the write's resource; else, for matchPolicy
// Equivalent, one of its equivalents (the rules in order, each against
// every equivalent).
func matchRules(h *Webhook, a *Attributes) (invocation, bool) {
	rules := object.Objects(h.Spec, "rules")
	for _, r := range rules {
		if ruleMatches(r, a, a.Resource) {
			return invocation{h, a.Resource}, true
		}
	}
	if object.String(h.Spec["matchPolicy"]) != "Equivalent" {
		return invocation{}, false
	}
	for _, r := range rules {
		for _, eq := range a.Equivalents {
			if ruleMatches(r, a, eq) {
				return invocation{h, eq}, true
			}
		}
	}
	return invocation{}, false
}

// ruleMatches is kube's rules.Matcher against resource res.
func ruleMatches(r map[string]any, a *Attributes, res Resource) bool {
	isNamespace := res.Group == "" && res.Resource == "namespaces"
	switch object.String(r["scope"]) {
	case "Namespaced":
		if isNamespace || a.Namespace == "" {
			return false
		}
	case "Cluster":
		if !isNamespace && a.Namespace != "" {
			return false
		}
	}
	return anyOf(object.Strings(r, "operations"), a.Operation) && anyOf(object.Strings(r, "apiGroups"), res.Group) &&
		anyOf(object.Strings(r, "apiVersions"), res.Version) && resourceMatches(object.Strings(r, "resources"), res.Resource, a.Subresource)
}

func anyOf(list []string, v string) bool {
	for _, s := range list {
		if s == "*" || s == v {
			return true
		}
	}
	return false
}

// resourceMatches: "pods" is the resource alone, "pods/status" one
// subresource, "*" any resource alone, "pods/*" and "*/*" with any
// subresource or none... as kube splits them.
func resourceMatches(list []string, res, sub string) bool {
	for _, r := range list {
		rr, rs, _ := strings.Cut(r, "/")
		if (rr == "*" || rr == res) && (rs == "*" || rs == sub) {
			return true
		}
	}
	return false
}

// callError is kube's ErrCallingWebhook: a webhook that could not be
// called, or answered nonsense.
type callError struct {
	hook   string
	reason string
}

func (e *callError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %s", e.hook, e.reason)
}

// call calls one webhook for a: its refusal, or what its failure policy
// makes of a failed call.
func (d *Dispatcher) call(ctx context.Context, inv invocation, a *Attributes, mutating bool) error {
	h := inv.hook
	err := d.callHook(ctx, inv, a, mutating)
	if ce, ok := err.(*callError); ok {
		if object.String(h.Spec["failurePolicy"]) == "Ignore" {
			return nil
		}
		return apierrors.NewInternal(ce)
	}
	return err
}

// callHook posts the review, or fails where kube's call fails.
func (d *Dispatcher) callHook(ctx context.Context, inv invocation, a *Attributes, mutating bool) error {
	h := inv.hook
	timeout := time.Duration(object.Int(h.Spec["timeoutSeconds"])) * time.Second
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	cc, _ := h.Spec["clientConfig"].(map[string]any)
	failed := func(target, why string) error {
		return &callError{h.Name, fmt.Sprintf("failed to call webhook: Post %q: %s", target, why)}
	}
	query := fmt.Sprintf("?timeout=%ds", int64(timeout/time.Second))
	if svc, ok := cc["service"].(map[string]any); ok {
		ns, name, port := object.String(svc["namespace"]), object.String(svc["name"]), object.Int(svc["port"])
		path := object.String(svc["path"])
		if path == "" {
			path = "/"
		}
		target := fmt.Sprintf("https://%s.%s.svc:%d%s%s", name, ns, port, path, query)
		host, why := d.resolveService(ns, name, port)
		if why == "" {
			why = fmt.Sprintf("dial tcp %s: connect: connection refused", host)
		}
		return failed(target, why)
	}
	raw := object.String(cc["url"])
	target := raw + query
	if d.Call == nil {
		return failed(target, fmt.Sprintf("dial tcp %s: connect: connection refused", hostPort(raw)))
	}
	return d.review(ctx, inv, a, mutating, target, timeout)
}

// resolveService is where kube-apiserver's service resolver sends a
// webhook's call (the Service's cluster IP, or its external name), or why
// it sends it nowhere.
func (d *Dispatcher) resolveService(ns, name string, port int64) (host, why string) {
	svc, ok := d.Cluster.Service(ns, name)
	if !ok {
		return "", fmt.Sprintf("service %q not found", name)
	}
	spec, _ := svc["spec"].(map[string]any)
	hostPortOf := func(h string, p int64) string { return net.JoinHostPort(h, fmt.Sprint(p)) }
	switch t, ip := object.String(spec["type"]), object.String(spec["clusterIP"]); {
	case (t == "" || t == "ClusterIP") && ip == "None":
		return "", `cannot route to service with ClusterIP "None"`
	case t == "" || t == "ClusterIP" || t == "LoadBalancer" || t == "NodePort":
		for _, p := range object.Objects(spec, "ports") {
			if object.Int(p["port"]) == port {
				return hostPortOf(ip, port), ""
			}
		}
		return "", fmt.Sprintf("no service port %d found for service %q", port, name)
	case t == "ExternalName":
		return hostPortOf(object.String(spec["externalName"]), port), ""
	default:
		return "", fmt.Sprintf("unsupported service type %q", t)
	}
}

// hostPort is the address a URL dials.
func hostPort(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), "443")
}

// MatchResources says whether match (a ValidatingAdmissionPolicy's
// matchConstraints or a binding's matchResources) is for a, as kube's
// policy matcher judges it: its namespace and object selectors, no excluded
// rule, and a resource rule (named resources only, when it names any) or,
// for matchPolicy Equivalent, an equivalent resource; without resource
// rules (a binding's), any resource.
func (d *Dispatcher) MatchResources(match map[string]any, a *Attributes) (bool, error) {
	h := &Webhook{Spec: map[string]any{"rules": match["resourceRules"], "matchPolicy": match["matchPolicy"]},
		namespaceSelector: ParseSelector(match["namespaceSelector"]), objectSelector: ParseSelector(match["objectSelector"])}
	nsMatch, err := d.matchNamespace(h, a)
	if err != nil || !nsMatch || !matchObject(h, a) {
		return false, err
	}
	named := func(r map[string]any) bool {
		names := object.Strings(r, "resourceNames")
		return len(names) == 0 || anyOf(names, a.Name)
	}
	for _, r := range object.Objects(match, "excludeResourceRules") {
		if ruleMatches(r, a, a.Resource) && named(r) {
			return false, nil
		}
	}
	if len(object.Objects(match, "resourceRules")) == 0 {
		return true, nil
	}
	inv, ok := matchRules(h, a)
	return ok && named(ruleFor(h, a, inv.resource)), nil
}

// ruleFor is the first of h's rules that matches res.
func ruleFor(h *Webhook, a *Attributes, res Resource) map[string]any {
	for _, r := range object.Objects(h.Spec, "rules") {
		if ruleMatches(r, a, res) {
			return r
		}
	}
	return nil
}
