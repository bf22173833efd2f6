package auth

import (
	"fmt"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/user"
)

// The reviews are create-only kinds that are never stored: the answer is the
// request's object with its status filled in, as kube's REST handlers for
// them write it.

// Reviewer answers the access reviews: the authorizer, and the rules a user
// holds in a namespace.
type Reviewer interface {
	Authorizer
	// RulesFor is what a SelfSubjectRulesReview shows of u in namespace:
	// its resource rules and non-resource rules (PolicyRule-shaped), and
	// the error met resolving them ("" for none).
	RulesFor(u user.User, namespace string) (resource, nonResource []any, evaluationError string)
	// TokenAuthenticator answers a TokenReview.
	TokenAuthenticator
}

// Review answers a review of kind created by u in namespace (a
// LocalSubjectAccessReview's) at now, the access reviews by z.
func Review(kind string, u user.User, namespace string, obj object.Object, now time.Time, z Reviewer) (object.Object, error) {
	switch kind {
	case "SelfSubjectReview":
		return selfSubjectReview(u, obj, now), nil
	case "SelfSubjectAccessReview":
		return accessReview(kind, u, "", obj, z)
	case "SubjectAccessReview", "LocalSubjectAccessReview":
		return accessReview(kind, u, namespace, obj, z)
	case "SelfSubjectRulesReview":
		return rulesReview(u, obj, z)
	case "TokenReview":
		return tokenReview(obj, z)
	}
	return nil, apierrors.NewBadRequest("not a review: " + kind)
}

// selfSubjectReview is `kubectl auth whoami`: the user as authenticated (and
// impersonated), created now.
func selfSubjectReview(u user.User, obj object.Object, now time.Time) object.Object {
	info := map[string]any{"username": u.Name}
	if u.UID != "" {
		info["uid"] = u.UID
	}
	if len(u.Groups) > 0 {
		info["groups"] = stringsToAny(u.Groups)
	}
	if len(u.Extra) > 0 {
		extra := map[string]any{}
		for k, vs := range u.Extra {
			extra[k] = stringsToAny(vs)
		}
		info["extra"] = extra
	}
	meta := object.Meta(obj)
	meta["creationTimestamp"] = now.UTC().Format(time.RFC3339)
	obj["status"] = map[string]any{"userInfo": info}
	return obj
}

// accessReview answers `kubectl auth can-i` (SelfSubjectAccessReview, about
// u) and the reviews about a user named in the spec (SubjectAccessReview;
// LocalSubjectAccessReview, within namespace): exactly one of the resource
// and non-resource attributes, then z's decision and reason.
func accessReview(kind string, u user.User, namespace string, obj object.Object, z Reviewer) (object.Object, error) {
	spec, _ := obj["spec"].(map[string]any)
	p := field.NewPath("spec")
	var errs field.ErrorList
	res, _ := spec["resourceAttributes"].(map[string]any)
	nonRes, _ := spec["nonResourceAttributes"].(map[string]any)
	if res != nil && nonRes != nil {
		errs = append(errs, field.Invalid(p.Child("nonResourceAttributes"),
			field.GoSyntax(fmt.Sprintf("authorization.NonResourceAttributes{Path:%q, Verb:%q}", object.String(nonRes["path"]), object.String(nonRes["verb"]))),
			"cannot be specified in combination with resourceAttributes"))
	}
	if res == nil && nonRes == nil {
		errs = append(errs, field.Invalid(p.Child("resourceAttributes"), "null",
			"exactly one of nonResourceAttributes or resourceAttributes must be specified"))
	}
	if kind != "SelfSubjectAccessReview" {
		groups := object.Strings(spec, "groups")
		if name := object.String(spec["user"]); name == "" && len(groups) == 0 {
			errs = append(errs, field.Invalid(p.Child("user"), "", "at least one of user or group must be specified"))
		}
		u = user.User{Name: object.String(spec["user"]), UID: object.String(spec["uid"]), Groups: groups}
		if extra, ok := spec["extra"].(map[string]any); ok && len(extra) > 0 {
			u.Extra = map[string][]string{}
			for k := range extra {
				u.Extra[k] = object.Strings(extra, k)
			}
		}
	}
	if kind == "LocalSubjectAccessReview" {
		if res != nil && object.String(res["namespace"]) != namespace {
			errs = append(errs, field.Invalid(field.NewPath("spec.resourceAttributes.namespace"), object.String(res["namespace"]), "must match metadata.namespace"))
		}
		if nonRes != nil {
			errs = append(errs, field.Invalid(field.NewPath("spec.nonResourceAttributes"),
				field.GoSyntax(fmt.Sprintf("authorization.NonResourceAttributes{Path:%q, Verb:%q}", object.String(nonRes["path"]), object.String(nonRes["verb"]))),
				"disallowed on this kind of request"))
		}
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid("authorization.k8s.io", "", "", errs)
	}
	a := &Attributes{User: u, Explain: true}
	if res != nil {
		a.ResourceRequest = true
		a.Verb, a.APIGroup, a.APIVersion = object.String(res["verb"]), object.String(res["group"]), object.String(res["version"])
		a.Namespace, a.Resource, a.Subresource, a.Name = object.String(res["namespace"]), object.String(res["resource"]), object.String(res["subresource"]), object.String(res["name"])
	} else {
		a.Verb, a.Path = object.String(nonRes["verb"]), object.String(nonRes["path"])
	}
	allowed, reason := z.Authorize(a)
	object.Meta(obj)["creationTimestamp"] = nil
	status := map[string]any{"allowed": allowed}
	if reason != "" {
		status["reason"] = reason
	}
	obj["status"] = status
	return obj, nil
}

// rulesReview is `kubectl auth can-i --list`: the rules u holds in the
// spec's namespace (which it must name), as a fresh review.
func rulesReview(u user.User, obj object.Object, z Reviewer) (object.Object, error) {
	spec, _ := obj["spec"].(map[string]any)
	namespace := object.String(spec["namespace"])
	if namespace == "" {
		return nil, apierrors.NewBadRequest("no namespace on request")
	}
	resource, nonResource, evalErr := z.RulesFor(u, namespace)
	status := map[string]any{"resourceRules": resource, "nonResourceRules": nonResource, "incomplete": false}
	if evalErr != "" {
		status["evaluationError"] = evalErr
	}
	return object.Object{"kind": obj["kind"], "apiVersion": obj["apiVersion"], "metadata": map[string]any{"creationTimestamp": nil},
		"spec": map[string]any{}, "status": status}, nil
}

// tokenReview is who the spec's token is from (for its audiences; the
// API's when it names none), as kube's TokenReview answers: authenticated
// with the user and the audiences it serves, or the error.
func tokenReview(obj object.Object, z TokenAuthenticator) (object.Object, error) {
	spec, _ := obj["spec"].(map[string]any)
	token := object.String(spec["token"])
	if token == "" {
		return nil, apierrors.NewBadRequest("token is required for TokenReview in authentication")
	}
	object.Meta(obj)["creationTimestamp"] = nil
	u, audiences, err := z.AuthenticateToken(token, object.Strings(spec, "audiences"))
	if err != nil {
		obj["status"] = map[string]any{"user": map[string]any{}, "error": tokenError(err)}
		return obj, nil
	}
	info := map[string]any{"username": u.Name, "uid": u.UID, "groups": stringsToAny(u.Groups)}
	if len(u.Extra) > 0 {
		extra := map[string]any{}
		for k, vs := range u.Extra {
			extra[k] = stringsToAny(vs)
		}
		info["extra"] = extra
	}
	obj["status"] = map[string]any{"authenticated": true, "user": info, "audiences": stringsToAny(audiences)}
	return obj, nil
}

func stringsToAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
