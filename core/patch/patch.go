// Package patch owns the PATCH request bodies of kube-apiserver: which patch
// media types a kind takes (and kube's 415 for the others), and, for each type,
// the mechanism that turns the object stored into the patched one, as
// k8s.io/apiserver's patch handler does: a JSON patch (RFC 6902, with kube's
// own library, github.com/evanphx/json-patch v4), a JSON merge patch (RFC 7386)
// and a strategic merge patch (the built-in kinds' patch strategies and merge
// keys, with its directives), each with kube's errors. The patched object is
// read into the kind's Go type as kube reads it. A mechanism is the
// UpdatedObjectInfo of the registry's single update path, so a patch shares
// PUT's preconditions, validation, admission and dry run. Server-side apply
// (the apply-patch types) is core/apply's.
//
// With fieldValidation Warn or Strict (core/fieldvalidation), each type reports
// the unknown and duplicate fields kube's does: those of the patch itself (the
// keys a JSON or strategic merge patch gives twice, a JSON patch's unknown
// operation fields), then the unknown fields of the patched object; Strict makes
// them the patch's 422.
package patch

import (
	"context"
	"fmt"
	"strings"

	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/fieldvalidation"
	"kubeplay/core/object"
	"kubeplay/core/types"
	"kubeplay/core/web"
)

// Type is a patch's media type (types.PatchType).
type Type string

// The patch types kube-apiserver knows.
const (
	JSON      Type = "application/json-patch+json"
	Merge     Type = "application/merge-patch+json"
	Strategic Type = "application/strategic-merge-patch+json"
	ApplyYAML Type = "application/apply-patch+yaml"
	ApplyCBOR Type = "application/apply-patch+cbor"
)

// Accepted are the patch types a kind takes, in the order kube-apiserver lists
// them: a strategic merge patch needs the kind's Go type (builtin).
func Accepted(builtin bool) []Type {
	if builtin {
		return []Type{JSON, Merge, Strategic, ApplyYAML, ApplyCBOR}
	}
	return []Type{JSON, Merge, ApplyYAML, ApplyCBOR}
}

// ParseType reads a PATCH's Content-Type as kube-apiserver does: what comes
// before a ";", matched exactly. A type the kind does not take is kube's 415:
// for a built-in kind go-restful's, which names none (its routes take the
// same types), for another kind the patch handler's, which lists them.
func ParseType(contentType string, builtin bool) (Type, error) {
	if i := strings.IndexByte(contentType, ';'); i > 0 {
		contentType = contentType[:i]
	}
	accepted := Accepted(builtin)
	for _, t := range accepted {
		if string(t) == contentType {
			return t, nil
		}
	}
	return "", unsupported(builtin, accepted)
}

// unsupported is kube's 415 for a patch type a kind does not take.
func unsupported(builtin bool, accepted []Type) error {
	if builtin {
		return apierrors.New(web.StatusUnsupportedMediaType, "UnsupportedMediaType", "415: Unsupported Media Type", &apierrors.StatusDetails{})
	}
	names := make([]string, len(accepted))
	for i, t := range accepted {
		names[i] = string(t)
	}
	return apierrors.New(web.StatusUnsupportedMediaType, "UnsupportedMediaType",
		"the body of the request was in an unknown format - accepted media types include: "+strings.Join(names, ", "), nil)
}

// Mechanism turns the object stored into the patched object, read into its
// kind's Go type. It may run more than once (on newer objects, when the
// store retries) and returns a fresh object each time; the patch is read when
// it first runs, so that a missing object is a 404 whatever the patch.
type Mechanism func(current object.Object) (object.Object, error)

// New is the mechanism of a patch of type t for kind in apiVersion, with the
// request's field validation (its warnings go to ctx's response).
func New(ctx context.Context, t Type, body []byte, apiVersion, kind string, validation fieldvalidation.Directive) Mechanism {
	k := target{apiVersion: apiVersion, kind: kind, ctx: ctx, validation: validation}
	switch t {
	case JSON:
		return k.jsonPatch(body)
	case Merge:
		return k.mergePatch(body)
	case Strategic:
		return k.strategicPatch(body)
	}
	// Server-side apply is core/apply's; until it serves the apply types they
	// are refused as before.
	err := unsupported(true, nil)
	return func(object.Object) (object.Object, error) { return nil, err }
}

// target is the kind a patch is for, and the request's field validation.
type target struct {
	apiVersion, kind string
	ctx              context.Context
	validation       fieldvalidation.Directive
}

// document is the object's JSON as kube's JSON and merge patches see it:
// with its kind and apiVersion.
func (k target) document(current object.Object) ([]byte, error) {
	doc, err := object.Encode(current)
	if err != nil {
		return nil, apierrors.NewInternal(err)
	}
	return object.WithTypeMeta(doc, k.kind, k.apiVersion), nil
}

// decode reads a patched object's JSON into the kind's Go type, as kube
// decodes a JSON or merge patch's result: an error is an invalid patch that
// shows the patched JSON. Then field validation judges patchErrs (the patch's
// own field errors) and the patched object's unknown and duplicate fields.
// Kinds without a Go type keep the object as it is.
func (k target) decode(patched []byte, patchErrs []error) (object.Object, error) {
	if !types.Known(k.apiVersion, k.kind) {
		obj, err := object.Decode(patched)
		if err != nil {
			return nil, invalidPatch(string(patched), err)
		}
		return obj, nil
	}
	obj, err := types.DecodeJSON(k.apiVersion, k.kind, patched)
	if err != nil {
		return nil, invalidPatch(string(patched), err)
	}
	if k.validation.Checks() {
		errs := append(patchErrs[:len(patchErrs):len(patchErrs)], types.StrictJSON(k.apiVersion, k.kind, patched)...)
		if err := k.validation.Apply(k.ctx, errs); err != nil {
			return nil, invalidPatch(string(patched), err)
		}
	}
	return obj, nil
}

// invalidPatch is kube's 422 for a patched object its type cannot hold.
func invalidPatch(shown string, err error) error {
	return apierrors.NewInvalid("", "", "", field.ErrorList{field.Invalid(field.NewPath("patch"), shown, err.Error())})
}

// safely runs f, turning a panic of the engine into a 500. kube's libraries
// panic on a few patches (a JSON patch's test of the root without a value, a
// strategic merge patch comparing objects) and kube-apiserver then drops the
// connection; kubeplay answers instead.
func safely[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = apierrors.NewInternal(fmt.Errorf("%v", r))
		}
	}()
	return f()
}

// once runs parse the first time the mechanism runs and keeps its answer.
func once[T any](parse func() (T, error)) func() (T, error) {
	var (
		done bool
		v    T
		err  error
	)
	return func() (T, error) {
		if !done {
			v, err = parse()
			done = true
		}
		return v, err
	}
}
