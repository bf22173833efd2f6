package registry

import (
	"fmt"
	"sort"
	"strings"

	"kubeplay/core/admission"
	"kubeplay/core/apierrors"
	"kubeplay/core/auth"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/user"
)

// policyParamAuthorization is the check kube's ValidatingAdmissionPolicy
// and binding strategies make of a valid write that names parameters: its
// writer (unless in system:masters) must be allowed to read them, all
// objects of a policy's paramKind, the object (or, by selector, the list) a
// binding's paramRef names; else the write is invalid, its paramKind or
// paramRef forbidden. A policy whose paramKind is unchanged, a binding
// whose paramRef and policy are unchanged, are not judged again.
type policyParamAuthorization struct{ store *Store }

func (p policyParamAuthorization) Admit(op Operation, t Target, obj, old object.Object) error {
	if op == Delete || t.Sub != "" || t.Res.Group != admission.Group || t.User.Name == "" || t.User.InGroup(user.SystemPrivileged) {
		return nil
	}
	spec, _ := obj["spec"].(map[string]any)
	var oldSpec map[string]any
	if op == Update {
		oldSpec, _ = old["spec"].(map[string]any)
	}
	var why string
	var path *field.Path
	switch t.Res.Plural {
	case "validatingadmissionpolicies":
		pk, ok := spec["paramKind"].(map[string]any)
		if !ok || oldSpec != nil && oldSpec["paramKind"] != nil && object.Equal(oldSpec["paramKind"], pk) {
			return nil
		}
		path, why = field.NewPath("spec").Child("paramKind"), p.policyParams(t.User, pk)
	case "validatingadmissionpolicybindings":
		ref, ok := spec["paramRef"].(map[string]any)
		if !ok || oldSpec != nil && oldSpec["paramRef"] != nil && object.Equal(oldSpec["paramRef"], ref) && oldSpec["policyName"] == spec["policyName"] {
			return nil
		}
		path, why = field.NewPath("spec").Child("paramRef"), p.bindingParams(t.User, object.String(spec["policyName"]), ref)
	}
	if why == "" {
		return nil
	}
	return apierrors.NewInvalid(t.Res.Group, t.Res.Kind, object.MetaString(obj, "name"), field.ErrorList{field.Forbidden(path, why)})
}

// policyParams: may u get every object of the kind pk names, in every
// namespace? "" when it may, else why not.
func (p policyParamAuthorization) policyParams(u user.User, pk map[string]any) string {
	apiVersion, kind := object.String(pk["apiVersion"]), object.String(pk["kind"])
	group, version, resource := "*", "*", "*"
	if g, v, ok := parseGroupVersion(apiVersion); ok {
		group, version = g, v
		if r := p.resourceOf(g, v, kind); r != "" {
			resource = r
		}
	}
	a := &auth.Attributes{User: u, Verb: "get", ResourceRequest: true, Name: "*", Namespace: "*", APIGroup: group, APIVersion: version, Resource: resource}
	if allowed, _ := p.store.authz.Authorize(a); allowed {
		return ""
	}
	return fmt.Sprintf(`user %s must have "get" permission on all objects of the referenced paramKind (kind=%s, apiVersion=%s)`, userInfoString(u), kind, apiVersion)
}

// bindingParams: may u read what ref names (get it by name, or list them),
// of the kind its policy's paramKind names? "" when it may, else why not.
func (p policyParamAuthorization) bindingParams(u user.User, policyName string, ref map[string]any) string {
	group, version, resource := "*", "*", "*"
	var policyMissing, badVersion, unresolved bool
	var pk map[string]any
	policy, ok := webhookCluster{p.store}.get(p.store.schema.ByGroupResource(admission.Group, "validatingadmissionpolicies"), "", policyName)
	if !ok {
		policyMissing = true
	} else if pk, _ = object.Path(policy, "spec", "paramKind").(map[string]any); pk != nil {
		g, v, ok := parseGroupVersion(object.String(pk["apiVersion"]))
		switch r := p.resourceOf(g, v, object.String(pk["kind"])); {
		case !ok:
			badVersion = true
		case r == "":
			group, version, unresolved = g, v, true
		default:
			group, version, resource = g, v, r
		}
	}
	name, verb := object.String(ref["name"]), "get"
	if name == "" {
		verb = "list"
	}
	a := &auth.Attributes{User: u, Verb: verb, ResourceRequest: true, Name: name, Namespace: object.String(ref["namespace"]), APIGroup: group, APIVersion: version, Resource: resource}
	if allowed, _ := p.store.authz.Authorize(a); allowed {
		return ""
	}
	who := userInfoString(u)
	paramKind := func() string { return "&{" + object.String(pk["apiVersion"]) + " " + object.String(pk["kind"]) + "}" }
	switch {
	case policyMissing:
		return fmt.Sprintf(`unable to get policy %s to determine minimum required permissions and user %s does not have "%s" permission for all groups, versions and resources`, policyName, who, verb)
	case badVersion:
		return fmt.Sprintf(`unable to parse paramKind %s to determine minimum required permissions and user %s does not have "%s" permission for all groups, versions and resources`, paramKind(), who, verb)
	case unresolved:
		return fmt.Sprintf(`unable to resolve paramKind %s to determine minimum required permissions and user %s does not have "%s" permission for all groups, versions and resources`, paramKind(), who, verb)
	}
	return fmt.Sprintf(`user %s does not have "%s" permission on the object referenced by paramRef`, who, verb)
}

// resourceOf is the served resource of kind in group/version, "" for none
// (kube's resolver asks discovery).
func (p policyParamAuthorization) resourceOf(group, version, kind string) string {
	for _, r := range p.store.schema.All() {
		if r.Group == group && r.Version == version && r.Kind == kind {
			return r.Plural
		}
	}
	return ""
}

// parseGroupVersion is schema.ParseGroupVersion: "" and "/" are the empty
// group version, "v" the core group's, "g/v" a group's; more slashes are
// no group version.
func parseGroupVersion(gv string) (group, version string, ok bool) {
	switch strings.Count(gv, "/") {
	case 0:
		return "", gv, true
	case 1:
		if gv == "/" {
			return "", "", true
		}
		g, v, _ := strings.Cut(gv, "/")
		return g, v, true
	}
	return "", "", false
}

// userInfoString is a user as kube's messages print its user.DefaultInfo
// (%v of the pointer).
func userInfoString(u user.User) string {
	keys := make([]string, 0, len(u.Extra))
	for k := range u.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	extra := make([]string, len(keys))
	for i, k := range keys {
		extra[i] = k + ":[" + strings.Join(u.Extra[k], " ") + "]"
	}
	return "&{" + u.Name + " " + u.UID + " [" + strings.Join(u.Groups, " ") + "] map[" + strings.Join(extra, " ") + "]}"
}
