package patch

import (
	"bytes"
	"encoding/json"
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
	"kubeplay/core/types"
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
	var patchErrs []error
	parse := once(func() (jsonpatch.Patch, error) {
		if err := checkJSONPatchOps(body); err != nil {
			return nil, apierrors.NewBadRequest("error decoding patch: " + err.Error())
		}
		if k.validation.Checks() {
			patchErrs = types.StrictJSONPatch(body)
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
		doc, err := k.document(current)
		if err != nil {
			return nil, err
		}
		patched, err := safely(func() ([]byte, error) { return p.Apply(doc) })
		switch {
		case apierrors.HasCode(err, 500):
			return nil, err
		case err != nil:
			return nil, apierrors.NewUnprocessable()
		}
		return k.decode(patched, patchErrs)
	}
}

// checkJSONPatchOps reads a JSON patch as kube first reads it, into a list of
// {op, path, from string; value any} (its handlers.jsonPatchOp), keys matched
// case-sensitively: a syntax error anywhere, else the first value of the wrong
// type in the body, is the error, in encoding/json's words.
func checkJSONPatchOps(body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, _ := dec.Token(); tok == nil {
		return nil // null
	} else if tok != json.Delim('[') {
		return typeError(bytes.TrimSpace(body), "[]handlers.jsonPatchOp", "")
	}
	for dec.More() {
		var op json.RawMessage
		_ = dec.Decode(&op)
		switch op[0] {
		case 'n':
			continue
		case '{':
		default:
			return typeError(op, "handlers.jsonPatchOp", "")
		}
		fields := json.NewDecoder(bytes.NewReader(op))
		_, _ = fields.Token()
		for fields.More() {
			key, _ := fields.Token()
			var value json.RawMessage
			_ = fields.Decode(&value)
			switch key {
			case "op", "path", "from":
				if value[0] != '"' && value[0] != 'n' {
					return typeError(value, "string", "jsonPatchOp."+key.(string))
				}
			}
		}
	}
	return nil
}

// typeError is encoding/json's UnmarshalTypeError for the JSON value v.
func typeError(v []byte, goType, structField string) error {
	kind := "number"
	switch v[0] {
	case '{':
		kind = "object"
	case '[':
		kind = "array"
	case '"':
		kind = "string"
	case 't', 'f':
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
	check := once(func() ([]error, error) {
		// kube first reads the patch into a map (its field validation):
		// anything else, and numbers no float64 holds, are an error there,
		// and keys given twice are the patch's field errors.
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, apierrors.NewBadRequest("error decoding patch: " + err.Error())
		}
		if !k.validation.Checks() {
			return nil, nil
		}
		return types.DuplicateJSONFields(body), nil
	})
	return func(current object.Object) (object.Object, error) {
		patchErrs, err := check()
		if err != nil {
			return nil, err
		}
		doc, err := k.document(current)
		if err != nil {
			return nil, err
		}
		patched, err := safely(func() ([]byte, error) { return jsonpatch.MergePatch(doc, body) })
		switch {
		case apierrors.HasCode(err, 500):
			return nil, err
		case err == jsonpatch.ErrBadJSONPatch:
			return nil, apierrors.NewBadRequest(err.Error())
		case err != nil:
			return nil, apierrors.NewUnknown(err)
		}
		return k.decode(patched, patchErrs)
	}
}
