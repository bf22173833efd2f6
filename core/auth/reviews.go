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

// Review answers a review of kind (SelfSubjectReview or
// SelfSubjectAccessReview) created by u at now.
func Review(kind string, u user.User, obj object.Object, now time.Time) (object.Object, error) {
	switch kind {
	case "SelfSubjectReview":
		return selfSubjectReview(u, obj, now), nil
	case "SelfSubjectAccessReview":
		return selfSubjectAccessReview(obj)
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

// selfSubjectAccessReview is `kubectl auth can-i`: exactly one of the resource
// and non-resource attributes, and every request is allowed (AlwaysAllow).
func selfSubjectAccessReview(obj object.Object) (object.Object, error) {
	spec, _ := obj["spec"].(map[string]any)
	p := field.NewPath("spec")
	var errs field.ErrorList
	res, nonRes := spec["resourceAttributes"], spec["nonResourceAttributes"]
	if res != nil && nonRes != nil {
		nr, _ := nonRes.(map[string]any)
		path, _ := nr["path"].(string)
		verb, _ := nr["verb"].(string)
		errs = append(errs, field.Invalid(p.Child("nonResourceAttributes"),
			field.GoSyntax(fmt.Sprintf("authorization.NonResourceAttributes{Path:%q, Verb:%q}", path, verb)),
			"cannot be specified in combination with resourceAttributes"))
	}
	if res == nil && nonRes == nil {
		errs = append(errs, field.Invalid(p.Child("resourceAttributes"), "null",
			"exactly one of nonResourceAttributes or resourceAttributes must be specified"))
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid("authorization.k8s.io", "", "", errs)
	}
	object.Meta(obj)["creationTimestamp"] = nil
	obj["status"] = map[string]any{"allowed": true}
	return obj, nil
}

func stringsToAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
