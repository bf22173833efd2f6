package admission

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
)

// A webhook called for real: the AdmissionReview v1 kube posts, and its
// answer judged and applied as kube's dispatchers do.

// optionsKinds are the options kube sends with each operation.
var optionsKinds = map[string]string{"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}

// review posts a's AdmissionReview to target and applies the answer.
func (d *Dispatcher) review(ctx context.Context, inv invocation, a *Attributes, mutating bool, target string, timeout time.Duration) error {
	h := inv.hook
	uid := object.NewUID()
	body, err := json.Marshal(map[string]any{"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1", "request": request(uid, inv, a)})
	if err != nil {
		return apierrors.NewInternal(err)
	}
	caBundle, err := base64.StdEncoding.DecodeString(object.String(object.Path(h.Spec, "clientConfig", "caBundle")))
	if err != nil {
		caBundle = nil
	}
	answer, err := d.Call(ctx, target, caBundle, body, timeout)
	if err != nil {
		return &callError{h.Name, "failed to call webhook: " + err.Error()}
	}
	var rv struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
		Response   *struct {
			UID       string         `json:"uid"`
			Allowed   bool           `json:"allowed"`
			Result    map[string]any `json:"status"`
			Patch     []byte         `json:"patch"`
			PatchType *string        `json:"patchType"`
			Warnings  []string       `json:"warnings"`
		} `json:"response"`
	}
	if err := json.Unmarshal(answer, &rv); err != nil {
		return &callError{h.Name, "failed to call webhook: " + err.Error()}
	}
	invalid := func(why string) error { return &callError{h.Name, "received invalid webhook response: " + why} }
	r := rv.Response
	switch {
	case r == nil:
		return invalid("webhook response was absent")
	case r.UID != uid:
		return invalid(fmt.Sprintf("expected response.uid=%q, got %q", uid, r.UID))
	case rv.APIVersion != "admission.k8s.io/v1" || rv.Kind != "AdmissionReview":
		return invalid(fmt.Sprintf("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got %s, Kind=%s", rv.APIVersion, rv.Kind))
	case mutating && len(r.Patch) > 0 && r.PatchType == nil:
		return invalid("webhook returned response.patch but not response.patchType")
	case mutating && len(r.Patch) == 0 && r.PatchType != nil:
		return invalid("webhook returned response.patchType but not response.patch")
	case mutating && r.PatchType != nil && *r.PatchType == "":
		return invalid(`webhook returned invalid response.patchType of ""`)
	case !mutating && len(r.Patch) > 0:
		return invalid("validating webhook may not return response.patch")
	case !mutating && r.PatchType != nil:
		return invalid("validating webhook may not return response.patchType")
	}
	if a.Warn != nil {
		for _, w := range r.Warnings {
			a.Warn(w)
		}
	}
	if !r.Allowed {
		return rejection(h.Name, r.Result)
	}
	if len(r.Patch) == 0 {
		return nil
	}
	return applyPatch(h.Name, a, inv.resource, r.Patch, *r.PatchType)
}

// inVersion is obj as a webhook called for res is sent it.
func inVersion(a *Attributes, res Resource, obj object.Object) object.Object {
	if obj == nil || a.InVersion == nil {
		return obj
	}
	return a.InVersion(res, obj)
}

// request is the AdmissionRequest of a to the webhook inv calls.
func request(uid string, inv invocation, a *Attributes) map[string]any {
	res := inv.resource
	userInfo := map[string]any{"username": a.User.Name}
	if a.User.UID != "" {
		userInfo["uid"] = a.User.UID
	}
	if len(a.User.Groups) > 0 {
		userInfo["groups"] = a.User.Groups
	}
	if len(a.User.Extra) > 0 {
		userInfo["extra"] = a.User.Extra
	}
	req := map[string]any{
		"uid":             uid,
		"kind":            map[string]any{"group": res.Group, "version": res.Version, "kind": res.Kind},
		"resource":        map[string]any{"group": res.Group, "version": res.Version, "resource": res.Resource},
		"requestKind":     map[string]any{"group": a.Resource.Group, "version": a.Resource.Version, "kind": a.Resource.Kind},
		"requestResource": map[string]any{"group": a.Resource.Group, "version": a.Resource.Version, "resource": a.Resource.Resource},
		"operation":       a.Operation,
		"userInfo":        userInfo,
		"object":          inVersion(a, res, a.Object),
		"oldObject":       inVersion(a, res, a.OldObject),
		"dryRun":          a.DryRun,
	}
	if a.Subresource != "" {
		req["subResource"], req["requestSubResource"] = a.Subresource, a.Subresource
	}
	if a.Name != "" {
		req["name"] = a.Name
	}
	if a.Namespace != "" {
		req["namespace"] = a.Namespace
	}
	if kind := optionsKinds[a.Operation]; kind != "" {
		req["options"] = map[string]any{"kind": kind, "apiVersion": "meta.k8s.io/v1"}
	}
	return req
}

// rejection is kube's ToStatusErr: the webhook's Status, at least a 400
// Failure, its message prefixed with who denied the request.
func rejection(hook string, result map[string]any) error {
	deniedBy := fmt.Sprintf("admission webhook %q denied the request", hook)
	code := int(object.Int(result["code"]))
	if code < 400 {
		code = 400
	}
	msg, reason := object.String(result["message"]), object.String(result["reason"])
	switch {
	case msg != "":
		msg = deniedBy + ": " + msg
	case reason != "":
		msg = deniedBy + ": " + reason
	default:
		msg = deniedBy + " without explanation"
	}
	st := apierrors.New(code, reason, msg, nil)
	if details, ok := result["details"].(map[string]any); ok {
		if raw, err := json.Marshal(details); err == nil {
			var sd apierrors.StatusDetails
			if json.Unmarshal(raw, &sd) == nil {
				st.Details = &sd
			}
		}
	}
	return st
}

// applyPatch applies a mutating webhook's JSON patch to a.Object (in the
// form of res, the webhook's), in place.
func applyPatch(hook string, a *Attributes, res Resource, patch []byte, patchType string) error {
	if patchType != "JSONPatch" {
		return &callError{hook, fmt.Sprintf("unsupported patch type %q", patchType)}
	}
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return apierrors.NewInternal(err)
	}
	if len(p) == 0 {
		return nil
	}
	if a.Object == nil {
		return apierrors.NewInternal(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", hook))
	}
	doc, err := json.Marshal(inVersion(a, res, a.Object))
	if err != nil {
		return apierrors.NewInternal(err)
	}
	patched, err := p.Apply(doc)
	if err != nil {
		return apierrors.NewInternal(err)
	}
	obj, err := object.Decode(patched)
	if err != nil {
		return apierrors.NewInternal(err)
	}
	if a.FromVersion != nil {
		obj = a.FromVersion(res, obj)
	}
	clear(a.Object)
	for k, v := range obj {
		a.Object[k] = v
	}
	return nil
}
