package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"kubeplay/core/admission"
	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/auth"
	"kubeplay/core/object"
	"kubeplay/core/user"
)

// validatingPolicies is kube's ValidatingAdmissionPolicy plugin: each
// stored policy whose matchConstraints are for the write, with each binding
// that names it and whose matchResources are for it too, judges the write
// by its expressions (the host's CEL, api.Policies): its variables, match
// conditions and validations, with the binding's parameters; a failed
// validation denies, warns or only audits as the binding's
// validationActions say, an expression that cannot be evaluated as the
// policy's failurePolicy says. The first denial is the answer.
type validatingPolicies struct{ w *webhooks }

func (p validatingPolicies) Admit(op Operation, t Target, obj, old object.Object) error {
	s := p.w.store
	ev, ok := s.cel.(api.Policies)
	if !ok {
		return nil
	}
	policyRes := s.schema.ByGroupResource(admission.Group, "validatingadmissionpolicies")
	bindingRes := s.schema.ByGroupResource(admission.Group, "validatingadmissionpolicybindings")
	if policyRes == nil || bindingRes == nil {
		return nil
	}
	policies, bindings := s.Decoded(policyRes), s.Decoded(bindingRes)
	if len(policies) == 0 || len(bindings) == 0 {
		return nil
	}
	a := p.w.attributes(op, t, obj, old)
	if a.Resource.Group == admission.Group {
		return nil // kube's policies do not judge admissionregistration's own kinds
	}
	byName := func(list []object.Object) {
		sort.SliceStable(list, func(i, j int) bool { return object.MetaString(list[i], "name") < object.MetaString(list[j], "name") })
	}
	byName(policies)
	byName(bindings)
	for _, policy := range policies {
		spec := mapOf(policy, "spec")
		constraints := mapOf(spec, "matchConstraints")
		if ok, err := p.w.dispatcher.MatchResources(constraints, a); err != nil || !ok {
			continue
		}
		name := object.MetaString(policy, "name")
		bound := slices.ContainsFunc(bindings, func(b object.Object) bool { return object.String(mapOf(b, "spec")["policyName"]) == name })
		paramRes, err := p.paramResource(mapOf(spec, "paramKind"))
		if err != nil && bound { // the policy's configuration error: its failure policy says
			if object.String(spec["failurePolicy"]) != "Ignore" {
				return policyDenial(t, name, "", "failed to configure policy: "+err.Error(), "")
			}
			continue
		}
		for _, binding := range bindings {
			bspec := mapOf(binding, "spec")
			if object.String(bspec["policyName"]) != name {
				continue
			}
			if m := mapOf(bspec, "matchResources"); m != nil {
				if ok, err := p.w.dispatcher.MatchResources(m, a); err != nil || !ok {
					continue
				}
			}
			if err := p.judge(ev, policy, binding, paramRes, t, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// judge is one policy's verdict with one binding: with each parameter
// object the binding's paramRef finds (kube's CollectParams), or none when
// the policy has no paramKind or the binding no paramRef. A binding that
// cannot be configured (its parameters' kind not served, a namespace it
// cannot have, no parameters where it says Deny) is denied as the policy's
// failurePolicy says.
func (p validatingPolicies) judge(ev api.Policies, policy, binding object.Object, paramRes *api.Resource, t Target, a *admission.Attributes) error {
	params, err := p.params(paramRes, mapOf(binding, "spec"), t)
	if err != nil {
		if object.String(mapOf(policy, "spec")["failurePolicy"]) != "Ignore" {
			return policyDenial(t, object.MetaString(policy, "name"), object.MetaString(binding, "name"), "failed to configure binding: "+err.Error(), "")
		}
		return nil
	}
	for _, param := range params {
		if err := p.evaluate(ev, policy, binding, param, t, a); err != nil {
			return err
		}
	}
	return nil
}

// evaluate is one policy's verdict with one binding and one of its
// parameter objects (nil for none).
func (p validatingPolicies) evaluate(ev api.Policies, policy, binding, params object.Object, t Target, a *admission.Attributes) error {
	spec, bspec := mapOf(policy, "spec"), mapOf(binding, "spec")
	policyName, bindingName := object.MetaString(policy, "name"), object.MetaString(binding, "name")
	fail := object.String(spec["failurePolicy"]) != "Ignore"
	actions := object.Strings(bspec, "validationActions")
	deny := func(message, reason string) error {
		return policyDenial(t, policyName, bindingName, message, reason)
	}
	req := api.PolicyRequest{Key: object.MetaString(policy, "uid") + "/" + fmt.Sprint(object.Meta(policy)["generation"]), Policy: spec,
		Object: a.Object, OldObject: a.OldObject, Params: params, Request: admissionRequest(a, t), User: t.User.Name, Groups: t.User.Groups,
		Authorize: func(c api.AuthzCheck) (bool, string) {
			return p.w.store.authz.Authorize(&auth.Attributes{User: user.User{Name: c.User, Groups: c.Groups}, Verb: c.Verb, ResourceRequest: c.ResourceRequest,
				APIGroup: c.Group, APIVersion: "*", Resource: c.Resource, Subresource: c.Subresource, Namespace: c.Namespace, Name: c.Name, Path: c.Path})
		}}
	if t.Namespace != "" {
		if ns, ok := (webhookCluster{p.w.store}).Namespace(t.Namespace); ok {
			req.Namespace = ns
		}
	}
	for _, d := range ev.EvaluatePolicy(context.Background(), req) {
		switch {
		case d.Error && fail:
			return deny(d.Message, "")
		case d.Deny:
			if slices.Contains(actions, "Warn") {
				t.warn([]string{fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", policyName, bindingName, d.Message)})
			}
			if slices.Contains(actions, "Deny") {
				return deny(d.Message, d.Reason)
			}
		}
	}
	return nil
}

// paramResource is the resource of a policy's paramKind (nil for none);
// one not served is kube's configuration error of the policy.
func (p validatingPolicies) paramResource(kind map[string]any) (*api.Resource, error) {
	if kind == nil {
		return nil, nil
	}
	group, version := "", object.String(kind["apiVersion"])
	if g, v, ok := cutLast(version, "/"); ok {
		group, version = g, v
	}
	for _, r := range p.w.store.schema.Resources(api.GroupVersion{Group: group, Version: version}) {
		if r.Kind == object.String(kind["kind"]) && r.View == nil {
			return r, nil
		}
	}
	return nil, fmt.Errorf("failed to find resource referenced by paramKind: '%s/%s, Kind=%s'", group, version, object.String(kind["kind"]))
}

// params are the parameter objects a binding's paramRef finds, as kube's
// CollectParams finds them: one nil when the policy has no paramKind (res,
// its resource, nil) or the binding no paramRef; else the object it names
// or those its selector selects (in name order), in its namespace or, for a
// namespaced kind, the request's; an error where kube's is a configuration
// error of the binding.
func (p validatingPolicies) params(res *api.Resource, bspec map[string]any, t Target) ([]object.Object, error) {
	ref := mapOf(bspec, "paramRef")
	if res == nil || ref == nil {
		return []object.Object{nil}, nil
	}
	ns := object.String(ref["namespace"])
	switch {
	case res.Namespaced && ns == "" && t.Namespace == "":
		return nil, errors.New("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
	case res.Namespaced && ns == "":
		ns = t.Namespace
	case !res.Namespaced && ns != "":
		return nil, errors.New("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
	}
	var params []object.Object
	name, sel := object.String(ref["name"]), ref["selector"]
	switch {
	case name != "" && sel != nil:
		return nil, errors.New("paramRef.name and paramRef.selector are mutually exclusive")
	case name != "":
		if obj, ok := (webhookCluster{p.w.store}).get(res, ns, name); ok {
			params = append(params, obj)
		}
	case sel != nil:
		selects := admission.ParseSelector(sel)
		for _, obj := range p.w.store.decodedIn(res, ns) {
			if selects.Matches(object.Labels(obj)) {
				params = append(params, obj)
			}
		}
	default:
		return nil, errors.New("one of name or selector must be provided")
	}
	if len(params) == 0 && object.String(ref["parameterNotFoundAction"]) == "Deny" {
		return nil, errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")
	}
	return params, nil
}

func cutLast(s, sep string) (string, string, bool) {
	for i := len(s) - len(sep); i >= 0; i-- {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return "", s, false
}

// admissionRequest is what a policy's request variable holds (kube's
// AdmissionRequest for CEL).
func admissionRequest(a *admission.Attributes, t Target) map[string]any {
	gvk := map[string]any{"group": a.Resource.Group, "version": a.Resource.Version, "kind": a.Resource.Kind}
	gvr := map[string]any{"group": a.Resource.Group, "version": a.Resource.Version, "resource": a.Resource.Resource}
	groups := make([]any, len(t.User.Groups))
	for i, g := range t.User.Groups {
		groups[i] = g
	}
	return map[string]any{"kind": gvk, "resource": gvr, "subResource": a.Subresource, "requestKind": gvk, "requestResource": gvr,
		"requestSubResource": a.Subresource, "name": a.Name, "namespace": a.Namespace, "operation": a.Operation,
		"userInfo": map[string]any{"username": t.User.Name, "uid": t.User.UID, "groups": groups}, "dryRun": a.DryRun}
}

// policyDenial is kube's denial (binding "" for the policy's own): admission's Forbidden for the write, with
// the validation's reason (Invalid unless it says) and its code, the
// message also its cause.
func policyDenial(t Target, policy, binding, message, reason string) error {
	if binding == "" { // the policy's own configuration error
		message = fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", policy, message)
	} else {
		message = fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", policy, binding, message)
	}
	res := t.Res
	if t.Via != nil {
		res = t.Via
	}
	plural := res.Plural
	if t.Sub != "" {
		plural += "/" + t.Sub
	}
	st := apierrors.NewForbidden(res.Group, plural, t.Name, message)
	if reason == "" {
		reason = "Invalid"
	}
	st.Reason, st.Code = reason, reasonCode(reason)
	st.Details.Causes = append(st.Details.Causes, apierrors.StatusCause{Message: message})
	return st
}

// reasonCode is the HTTP code of a denial's reason.
func reasonCode(reason string) int {
	switch reason {
	case "Forbidden":
		return 403
	case "Unauthorized":
		return 401
	case "RequestEntityTooLarge":
		return 413
	}
	return 422
}

// mapOf is the object at key in m, nil when there is none.
func mapOf(m map[string]any, key string) map[string]any {
	c, _ := m[key].(map[string]any)
	return c
}
