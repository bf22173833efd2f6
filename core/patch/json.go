package patch

import (
	"encoding/json"
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
)

// maxJSONPatchOperations is kube-apiserver's limit on a JSON patch's operations.
const maxJSONPatchOperations = 10000

func init() {
	// kube-apiserver's --json-patch-max-copy-bytes default: what copy
	// operations may add up to.
	jsonpatch.AccumulatedCopySizeLimit = 3 << 20
}

// jsonPatch is an RFC 6902 JSON patch, applied as kube applies it: to the
// object's JSON, with the library kube uses. An operation that does not apply
// (a failing test, a missing path) is kube's generic 422, which keeps none of
// the library's message.
func (k target) jsonPatch(body []byte) Mechanism {
	parse := once(func() (jsonpatch.Patch, error) {
		if err := checkJSONPatchOps(body); err != nil {
			return nil, apierrors.NewBadRequest("error decoding patch: " + err.Error())
		}
		p, err := jsonpatch.DecodePatch(body)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if len(p) > maxJSONPatchOperations {
			return nil, apierrors.New(413, "RequestEntityTooLarge", fmt.Sprintf("Request entity too large: The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(p)), nil)
		}
		return p, nil
	})
	return func(current object.Object) (object.Object, error) {
		p, err := parse()
		if err != nil {
			return nil, err
		}
		doc, err := object.Encode(k.withTypeMeta(current))
		if err != nil {
			return nil, apierrors.NewInternal(err)
		}
		patched, err := p.Apply(doc)
		if err != nil {
			return nil, apierrors.NewUnprocessable()
		}
		return k.decode(patched)
	}
}

// checkJSONPatchOps reads a JSON patch as kube first reads it, into a list of
// {op, path, from string; value any} (its handlers.jsonPatchOp), keys matched
// case-sensitively: a syntax error or a value of the wrong type is the error,
// in encoding/json's words (the first type error in the body).
func checkJSONPatchOps(body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	ops, ok := v.([]any)
	switch {
	case v == nil:
		return nil
	case !ok:
		return typeError(v, "[]handlers.jsonPatchOp", "")
	}
	for _, op := range ops {
		fields, ok := op.(map[string]any)
		if !ok {
			if op != nil {
				return typeError(op, "handlers.jsonPatchOp", "")
			}
			continue
		}
		// encoding/json reports the first wrong value in the body; the keys
		// of one operation are checked in a fixed order, close enough.
		for _, name := range []string{"op", "path", "from"} {
			if f, set := fields[name]; set && f != nil {
				if _, ok := f.(string); !ok {
					return typeError(f, "string", "jsonPatchOp."+name)
				}
			}
		}
	}
	return nil
}

// typeError is encoding/json's UnmarshalTypeError for a value v.
func typeError(v any, goType, structField string) error {
	kind := "object"
	switch v.(type) {
	case []any:
		kind = "array"
	case string:
		kind = "string"
	case float64:
		kind = "number"
	case bool:
		kind = "bool"
	}
	if structField != "" {
		return fmt.Errorf("json: cannot unmarshal %s into Go struct field %s of type %s", kind, structField, goType)
	}
	return fmt.Errorf("json: cannot unmarshal %s into Go value of type %s", kind, goType)
}

// mergePatch is an RFC 7386 JSON merge patch, applied as kube applies it: to
// the object's JSON, with the library kube uses.
func (k target) mergePatch(body []byte) Mechanism {
	check := once(func() (struct{}, error) {
		// kube first reads the patch into a map (its field validation):
		// anything else, and numbers no float64 holds, are an error there.
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			return struct{}{}, apierrors.NewBadRequest("error decoding patch: " + err.Error())
		}
		return struct{}{}, nil
	})
	return func(current object.Object) (object.Object, error) {
		if _, err := check(); err != nil {
			return nil, err
		}
		doc, err := object.Encode(k.withTypeMeta(current))
		if err != nil {
			return nil, apierrors.NewInternal(err)
		}
		patched, err := jsonpatch.MergePatch(doc, body)
		switch {
		case err == jsonpatch.ErrBadJSONPatch:
			return nil, apierrors.NewBadRequest(err.Error())
		case err != nil:
			return nil, apierrors.NewUnknown(err)
		}
		return k.decode(patched)
	}
}
