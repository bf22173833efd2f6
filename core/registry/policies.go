package registry

import (
	"context"
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
			if err := p.judge(ev, policy, binding, t, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// judge is one policy's verdict with one binding.
func (p validatingPolicies) judge(ev api.Policies, policy, binding object.Object, t Target, a *admission.Attributes) error {
	spec, bspec := mapOf(policy, "spec"), mapOf(binding, "spec")
	policyName, bindingName := object.MetaString(policy, "name"), object.MetaString(binding, "name")
	fail := object.String(spec["failurePolicy"]) != "Ignore"
	actions := object.Strings(bspec, "validationActions")
	params, found := p.params(spec, bspec, t)
	deny := func(message, reason string) error {
		return policyDenial(t, policyName, bindingName, message, reason)
	}
	if !found {
		if object.String(mapOf(bspec, "paramRef")["parameterNotFoundAction"]) == "Deny" {
			return deny("failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction", "")
		}
		return nil
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

// params are the binding's parameter object, when the policy has a
// paramKind: the one its paramRef names (by name, in its namespace or the
// request's); found is false when there is none to be had.
func (p validatingPolicies) params(spec, bspec map[string]any, t Target) (map[string]any, bool) {
	kind := mapOf(spec, "paramKind")
	if kind == nil {
		return nil, true
	}
	ref := mapOf(bspec, "paramRef")
	name := object.String(ref["name"])
	if ref == nil || name == "" {
		return nil, false
	}
	group, version := "", object.String(kind["apiVersion"])
	if g, v, ok := cutLast(version, "/"); ok {
		group, version = g, v
	}
	var res *api.Resource
	for _, r := range p.w.store.schema.Resources(api.GroupVersion{Group: group, Version: version}) {
		if r.Kind == object.String(kind["kind"]) && r.View == nil {
			res = r
		}
	}
	if res == nil {
		return nil, false
	}
	ns := object.String(ref["namespace"])
	if ns == "" && res.Namespaced {
		ns = t.Namespace
	}
	obj, ok := (webhookCluster{p.w.store}).get(res, ns, name)
	return obj, ok
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

// policyDenial is kube's denial: admission's Forbidden for the write, with
// the validation's reason (Invalid unless it says) and its code, the
// message also its cause.
func policyDenial(t Target, policy, binding, message, reason string) error {
	message = fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", policy, binding, message)
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
