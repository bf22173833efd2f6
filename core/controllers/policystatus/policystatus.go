// Package policystatus owns kube-controller-manager's ValidatingAdmissionPolicy
// status controller: for each policy whose generation it has not observed, the
// type checking of its validations against the schemas of the kinds its
// constraints match and of its paramKind (found through discovery and the
// served OpenAPI v3 documents, as kube's schema resolver finds a custom
// resource's), by the host's CEL (api.Policies), applied as the policy's
// status: observedGeneration and typeChecking.
package policystatus

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

const (
	policies = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	// fieldManager is the manager of the status the controller applies.
	fieldManager = "validatingadmissionpolicy-status"
	// maxKinds is how many kinds a policy is checked against at most.
	maxKinds = 10
	// retryAfter is how soon a policy whose status could not be written is
	// looked at again.
	retryAfter = time.Second
)

// Controller writes the policies' status.
type Controller struct {
	c     *client.Client
	cel   api.Policies
	clock clock.Clock
}

// New is the controller of the policies served by h, checking them with
// cel's policies (none: the controller does nothing), acting as
// system:serviceaccount:kube-system:validatingadmissionpolicy-status-controller.
func New(h web.Handler, cel api.CEL, clk clock.Clock) *Controller {
	p, _ := cel.(api.Policies)
	name := "validatingadmissionpolicy-status-controller"
	return &Controller{c: client.New(h, user.ServiceAccount("kube-system", name), controllers.UserAgent+" "+name), cel: p, clock: clk}
}

// Run works until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	if c.cel == nil {
		return
	}
	wake := make(chan struct{}, 1)
	poke := func(object.Object) {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	inf := client.NewInformer(c.c, policies, client.Handler{Add: poke, Update: func(_, cur object.Object) { poke(cur) }}, nil, c.clock)
	go inf.Run(ctx)
	clock.Loop(ctx, c.clock, wake, retryAfter, func() bool {
		pending := false
		r := &resolver{c: c.c, ctx: ctx, docs: map[string]map[string]any{}, discovery: map[string][]any{}}
		for _, obj := range inf.List() {
			if !c.sync(ctx, r, obj) {
				pending = true
			}
		}
		return pending
	})
}

// sync writes the status of a policy whose generation is new, and says
// whether it is done with it.
func (c *Controller) sync(ctx context.Context, r *resolver, obj object.Object) bool {
	generation := object.Int(object.Meta(obj)["generation"])
	observed := object.Int(object.Path(obj, "status", "observedGeneration"))
	if generation <= observed {
		return true
	}
	spec, _ := obj["spec"].(map[string]any)
	req := api.PolicyTypeCheck{Policy: spec}
	for _, k := range r.kindsOf(spec) {
		if s := r.schema(k); s != nil {
			req.Kinds = append(req.Kinds, api.TypedKind{Kind: k.String(), Schema: s})
		}
	}
	if pk, ok := spec["paramKind"].(map[string]any); ok {
		if g, v, ok := parseGroupVersion(object.String(pk["apiVersion"])); ok {
			req.Params = r.schema(gvk{g, v, object.String(pk["kind"])})
		}
	}
	warnings := []any{}
	for _, w := range c.cel.TypeCheckPolicy(req) {
		warnings = append(warnings, map[string]any{"fieldRef": w.FieldRef, "warning": w.Warning})
	}
	typeChecking := map[string]any{}
	if len(warnings) > 0 {
		typeChecking["expressionWarnings"] = warnings
	}
	body, err := json.Marshal(map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": object.MetaString(obj, "name")},
		"status":   map[string]any{"observedGeneration": generation, "typeChecking": typeChecking}})
	if err != nil {
		return true
	}
	_, err = c.c.Do(ctx, "PATCH", policies+"/"+object.MetaString(obj, "name")+"/status?fieldManager="+fieldManager+"&force=true", "application/apply-patch+yaml", body)
	return err == nil || client.IsNotFound(err)
}

// gvk is a group, version and kind.
type gvk struct{ group, version, kind string }

// String is how kube prints a GroupVersionKind: "apps/v1, Kind=Deployment",
// "/v1, Kind=Pod".
func (k gvk) String() string { return k.group + "/" + k.version + ", Kind=" + k.kind }

// resolver finds kinds through discovery and their schemas in the OpenAPI
// v3 documents, each document read once a pass.
type resolver struct {
	c         *client.Client
	ctx       context.Context
	docs      map[string]map[string]any // by group version; nil: none
	discovery map[string][]any          // resources by group version
}

func groupVersionPath(group, version string) string {
	if group == "" {
		return "api/" + version
	}
	return "apis/" + group + "/" + version
}

// get is the JSON at path, nil when there is none.
func (r *resolver) get(path string) map[string]any {
	b, err := r.c.Do(r.ctx, "GET", path, "", nil)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// kindsOf are the kinds a policy's resource rules match, as kube's type
// checker finds them: rules with a wildcard group or version are left out,
// and resources with a wildcard or a subresource; at most maxKinds, sorted
// by group, version and kind.
func (r *resolver) kindsOf(spec map[string]any) []gvk {
	seen := map[gvk]bool{}
	var out []gvk
	count := 0
	constraints, _ := spec["matchConstraints"].(map[string]any)
	for _, rule := range object.Objects(constraints, "resourceRules") {
		groups, versions := withoutWildcard(rule, "apiGroups"), withoutWildcard(rule, "apiVersions")
		var resources []string
		for _, res := range object.Strings(rule, "resources") {
			if !strings.ContainsAny(res, "*/") {
				resources = append(resources, res)
			}
		}
		if len(groups) == 0 || len(versions) == 0 || len(resources) == 0 {
			continue
		}
		slices.Sort(groups)
		slices.Sort(versions)
		slices.Sort(resources)
		for _, g := range groups {
			for _, v := range versions {
				for _, res := range resources {
					k, ok := r.kindOf(g, v, res)
					if !ok {
						continue
					}
					if !seen[k] {
						seen[k] = true
						out = append(out, k)
					}
					if count++; count == maxKinds {
						return sortKinds(out)
					}
				}
			}
		}
	}
	return sortKinds(out)
}

// withoutWildcard are a rule's values of field, nil when one has the
// wildcard.
func withoutWildcard(rule map[string]any, field string) []string {
	list := object.Strings(rule, field)
	for _, s := range list {
		if strings.Contains(s, "*") {
			return nil
		}
	}
	return list
}

func sortKinds(list []gvk) []gvk {
	slices.SortFunc(list, func(a, b gvk) int {
		if c := strings.Compare(a.group, b.group); c != 0 {
			return c
		}
		if c := strings.Compare(a.version, b.version); c != 0 {
			return c
		}
		return strings.Compare(a.kind, b.kind)
	})
	return list
}

// kindOf is the kind of resource res of group g, version v, as discovery
// serves it (a RESTMapper's: by its plural or its singular name).
func (r *resolver) kindOf(g, v, res string) (gvk, bool) {
	gv := groupVersionPath(g, v)
	resources, ok := r.discovery[gv]
	if !ok {
		resources, _ = r.get("/" + gv)["resources"].([]any)
		r.discovery[gv] = resources
	}
	for _, it := range resources {
		m, _ := it.(map[string]any)
		singular := object.String(m["singularName"])
		if singular == "" {
			singular = strings.ToLower(object.String(m["kind"]))
		}
		if m != nil && !strings.Contains(object.String(m["name"]), "/") && (m["name"] == res || singular == res) {
			return gvk{g, v, object.String(m["kind"])}, true
		}
	}
	return gvk{}, false
}

// schema is the schema of kind k in its group version's OpenAPI v3
// document, its references resolved; nil when there is none.
func (r *resolver) schema(k gvk) json.RawMessage {
	gv := groupVersionPath(k.group, k.version)
	doc, ok := r.docs[gv]
	if !ok {
		doc = r.get("/openapi/v3/" + gv)
		r.docs[gv] = doc
	}
	schemas, _ := object.Path(doc, "components", "schemas").(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		s, _ := schemas[name].(map[string]any)
		for _, g := range object.Objects(s, "x-kubernetes-group-version-kind") {
			if object.String(g["group"]) == k.group && object.String(g["version"]) == k.version && object.String(g["kind"]) == k.kind {
				b, err := json.Marshal(resolve(s, schemas, map[string]bool{name: true}))
				if err != nil {
					return nil
				}
				return b
			}
		}
	}
	return nil
}

// resolve is schema s with its references ($ref, and allOf's single
// reference) replaced by the schemas they name; a reference back to a
// schema being resolved is left out (no type). A built-in int-or-string
// (its format) is marked as a custom resource's is.
func resolve(s any, schemas map[string]any, open map[string]bool) any {
	switch s := s.(type) {
	case map[string]any:
		if ref, ok := s["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			target, _ := schemas[name].(map[string]any)
			if open[name] || target == nil {
				return map[string]any{}
			}
			open[name] = true
			defer delete(open, name)
			return resolve(target, schemas, open)
		}
		out := make(map[string]any, len(s))
		if all := object.Objects(s, "allOf"); len(all) == 1 {
			if m, ok := resolve(all[0], schemas, open).(map[string]any); ok {
				for k, v := range m {
					out[k] = v
				}
			}
		}
		for k, v := range s {
			if k == "allOf" || k == "description" {
				continue
			}
			if _, done := out[k]; !done || k == "default" {
				out[k] = resolve(v, schemas, open)
			}
		}
		if out["format"] == "int-or-string" {
			out["x-kubernetes-int-or-string"] = true
		}
		return out
	case []any:
		out := make([]any, len(s))
		for i, v := range s {
			out[i] = resolve(v, schemas, open)
		}
		return out
	}
	return s
}

// parseGroupVersion is schema.ParseGroupVersion: "v" is the core group's,
// "g/v" a group's; more slashes are no group version.
func parseGroupVersion(gv string) (group, version string, ok bool) {
	switch strings.Count(gv, "/") {
	case 0:
		return "", gv, gv != ""
	case 1:
		g, v, _ := strings.Cut(gv, "/")
		return g, v, true
	}
	return "", "", false
}
