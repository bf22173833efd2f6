package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
	"kubeplay/core/patch/lists"
	"kubeplay/core/types"
)

// A strategic merge patch is a JSON merge patch that knows the kind's Go type:
// lists whose field is tagged patchStrategy "merge" merge with the patch's list
// (by the field's patchMergeKey for lists of objects) instead of being
// replaced, "replace" fields are replaced whole, and "retainKeys" fields drop
// what the patch's $retainKeys list does not name. Directives in the patch:
//
//   - "$patch": "replace" in an object replaces it with the rest of the
//     patch's object; "delete" removes it (in a merged list: the element with
//     that merge key). In a merged list, an element {"$patch": "replace"}
//     replaces the whole list with the patch's other elements.
//   - "$retainKeys": [...] keeps only the fields it names.
//   - "$deleteFromPrimitiveList/<field>": [...] removes those values from a
//     merged list of scalars.
//   - "$setElementOrder/<field>": [...] orders a merged list: its elements
//     first in that order, the others where they were.
//
// The engine is kube's (k8s.io/apimachinery/pkg/util/strategicpatch, the half
// a server runs: StrategicMergeMapPatch) rewritten over the message table's
// patch metadata, with its errors and its answers to odd input, so that what
// a patch makes of an object is what kube makes of it. Values are kube's
// unstructured ones: objects, lists, strings, bools, int64 and float64.

// kube's errors (k8s.io/apimachinery/pkg/util/mergepatch) that it answers
// with their own code; every other error is a 500 with its message.
var (
	errBadPatchFormatForPrimitiveList       = errors.New("invalid patch format of primitive list")
	errBadPatchFormatForRetainKeys          = errors.New("invalid patch format of retainKeys")
	errBadPatchFormatForSetElementOrderList = errors.New("invalid patch format of setElementOrder list")
)

// statusOf is the Status kube answers a strategic merge error with.
func statusOf(err error) error {
	switch err {
	case errBadPatchFormatForPrimitiveList, errBadPatchFormatForRetainKeys, errBadPatchFormatForSetElementOrderList:
		return apierrors.NewBadRequest(err.Error())
	case lists.ErrNoListOfLists:
		return apierrors.NewUnprocessable()
	}
	return apierrors.NewUnknown(err)
}

// strategicPatch is a strategic merge patch for a built-in kind.
func (k target) strategicPatch(body []byte) Mechanism {
	return func(current object.Object) (object.Object, error) {
		// The patch is read anew each time: merging consumes it.
		p, err := decodeUnstructured(body)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		schema, ok := types.KindPatchSchema(k.apiVersion, k.kind)
		if !ok {
			return nil, apierrors.NewBadRequest("strategic merge patch format is not supported")
		}
		original := unstructured(current).(map[string]any)
		original["kind"], original["apiVersion"] = k.kind, k.apiVersion
		merged, err := merge(original, p, schema)
		if err != nil {
			return nil, err
		}
		// What the patch left, as kube shows it in its errors.
		shown := fmt.Sprintf("%+v", p)
		if err := types.FromUnstructured(k.apiVersion, k.kind, merged); err != nil {
			return nil, invalidPatch(shown, err)
		}
		doc, err := json.Marshal(merged)
		if err != nil {
			return nil, invalidPatch(shown, err)
		}
		obj, err := types.DecodeJSON(k.apiVersion, k.kind, doc)
		if err != nil {
			return nil, invalidPatch(shown, err)
		}
		if k.validation.Checks() {
			// The keys the patch gives twice, then the merged object's
			// unknown fields as kube's unstructured converter finds them.
			errs := append(types.DuplicateJSONFields(body), types.UnknownUnstructured(k.apiVersion, k.kind, doc)...)
			if err := k.validation.Apply(k.ctx, errs); err != nil {
				return nil, invalidPatch(shown, err)
			}
		}
		return obj, nil
	}
}

// merge merges patch into original, answering errors as kube does. Where
// kube's engine compares values Go cannot compare (objects in a list of
// scalars, or as a merge key's value) it panics: see safely.
func merge(original, patch map[string]any, schema types.PatchSchema) (map[string]any, error) {
	return safely(func() (map[string]any, error) {
		out, err := mergeMap(original, patch, schema)
		if err != nil {
			return nil, statusOf(err)
		}
		return out, nil
	})
}

// decodeUnstructured reads a patch as kube does (sigs.k8s.io/json, keeping
// integers): into an object whose numbers are int64, or float64 when not an
// integer int64 holds.
func decodeUnstructured(body []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if v == nil {
		return map[string]any{}, nil
	}
	return unstructured(v).(map[string]any), nil
}

// unstructured is a copy of a decoded JSON value with kube's unstructured
// numbers: int64 for integers int64 holds, float64 for the others.
func unstructured(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = unstructured(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = unstructured(e)
		}
		return out
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return n
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return math.Inf(1) // json.Unmarshal refused it before
		}
		return f
	}
	return v
}

// mergeMap merges patch into original (both may be changed) as the field's
// struct says.
func mergeMap(original, patch map[string]any, schema types.PatchSchema) (map[string]any, error) {
	if d, ok := patch[lists.DirectiveMarker]; ok {
		switch d {
		case lists.ReplaceDirective:
			delete(patch, lists.DirectiveMarker)
			return patch, nil
		case lists.DeleteDirective:
			return map[string]any{}, nil
		}
		return nil, fmt.Errorf("unknown patch type: %s in map: %v", d, patch)
	}
	if original == nil {
		original = map[string]any{}
	}
	if err := applyRetainKeys(original, patch); err != nil {
		return nil, err
	}
	if err := applySetElementOrder(original, patch, schema); err != nil {
		return nil, err
	}
	for k, pv := range patch {
		deleteList := false
		if strings.HasPrefix(k, lists.DeleteFromListPrefix) {
			key, err := directiveKey(k, lists.DeleteFromListPrefix)
			if err != nil {
				return nil, err
			}
			k, deleteList = key, true
		}
		if pv == nil {
			delete(original, k)
			continue
		}
		ov, found := original[k]
		if !found || reflect.TypeOf(ov) != reflect.TypeOf(pv) {
			if !deleteList {
				lists.DiscardNulls(pv)
				lists.SetWithoutDirectives(original, k, pv)
			}
			continue
		}
		var err error
		switch ov := ov.(type) {
		case map[string]any:
			sub, meta, lerr := schema.Field(k)
			if lerr != nil {
				return nil, lerr
			}
			if meta.Replace {
				original[k] = pv
			} else {
				original[k], err = mergeMap(ov, pv.(map[string]any), sub)
			}
		case []any:
			sub, meta, lerr := schema.ListField(k)
			if lerr != nil {
				return nil, lerr
			}
			if meta.Merge || deleteList {
				original[k], err = mergeSlice(ov, pv.([]any), sub, meta.MergeKey, deleteList)
			} else {
				original[k] = pv
			}
		default:
			lists.SetWithoutDirectives(original, k, pv)
		}
		if err != nil {
			return nil, err
		}
	}
	return original, nil
}

// directiveKey is the field a "$prefix/field" key names.
func directiveKey(key, prefix string) (string, error) {
	p, field, ok := strings.Cut(key, "/")
	if !ok || p != prefix {
		if prefix == lists.DeleteFromListPrefix {
			return "", errBadPatchFormatForPrimitiveList
		}
		return "", errBadPatchFormatForSetElementOrderList
	}
	return field, nil
}

// applyRetainKeys applies a $retainKeys directive: the fields it does not name
// go, and the patch may set no other.
func applyRetainKeys(original, patch map[string]any) error {
	rk, ok := patch[lists.RetainKeysDirective]
	if !ok {
		return nil
	}
	delete(patch, lists.RetainKeysDirective)
	list, ok := rk.([]any)
	if !ok {
		return errBadPatchFormatForRetainKeys
	}
	keep := map[any]bool{}
	for _, k := range list {
		keep[k] = true
	}
	for k, v := range patch {
		if v == nil || strings.HasPrefix(k, lists.DeleteFromListPrefix) || strings.HasPrefix(k, lists.SetElementOrderPrefix) {
			continue
		}
		if !keep[k] {
			return errBadPatchFormatForRetainKeys
		}
	}
	for k := range original {
		if !keep[k] {
			delete(original, k)
		}
	}
	return nil
}

// applySetElementOrder merges each list a $setElementOrder directive names and
// orders it: the patch's elements as the directive orders them, the others
// where they were. The merged list leaves the patch.
func applySetElementOrder(original, patch map[string]any, schema types.PatchSchema) error {
	for key, order := range patch {
		if !strings.HasPrefix(key, lists.SetElementOrderPrefix) {
			continue
		}
		delete(patch, key)
		orderList, ok := order.([]any)
		if !ok {
			return lists.BadArgType("[]interface {}", order)
		}
		field, err := directiveKey(key, lists.SetElementOrderPrefix)
		if err != nil {
			return err
		}
		ov, inOriginal := original[field]
		pv, inPatch := patch[field]
		var originalList, patchList []any
		if inOriginal {
			if originalList, ok = ov.([]any); !ok {
				return lists.BadArgType("[]interface {}", ov)
			}
		}
		if inPatch {
			if patchList, ok = pv.([]any); !ok {
				return lists.BadArgType("[]interface {}", pv)
			}
		}
		sub, meta, err := schema.ListField(field)
		if err != nil {
			return err
		}
		if err := lists.CheckOrder(patchList, orderList, meta.MergeKey); err != nil {
			return err
		}
		var merged []any
		switch {
		case inOriginal && !inPatch:
			merged = originalList
		case !inOriginal && inPatch:
			v, _ := lists.RemoveDirectives(patchList)
			merged = v.([]any)
		case inOriginal && inPatch:
			if meta.Merge {
				if merged, err = mergeSlice(originalList, patchList, sub, meta.MergeKey, false); err != nil {
					return err
				}
			} else {
				merged = patchList
			}
		default:
			continue
		}
		all, err := lists.OrderedBy(merged, orderList, originalList, patchList, meta.MergeKey)
		if err != nil {
			return err
		}
		original[field] = all
		delete(patch, field)
	}
	return nil
}

// mergeSlice merges a patch list into a list with merge strategy: scalars are
// added (or, for a $deleteFromPrimitiveList, removed); objects are merged by
// merge key, with the $patch directives of elements. The patch's elements come
// in the patch's order, the others where they were.
func mergeSlice(original, patch []any, schema types.PatchSchema, mergeKey string, deleteList bool) ([]any, error) {
	if len(original) == 0 && len(patch) == 0 {
		return original, nil
	}
	elem, err := lists.ElementType(original, patch)
	if err != nil {
		return nil, err
	}
	var merged []any
	if elem != reflect.Map {
		if deleteList {
			return deleteScalars(original, patch), nil
		}
		merged = lists.DedupScalars(append(original, patch...))
	} else {
		if mergeKey == "" {
			return nil, fmt.Errorf("cannot merge lists without merge key for %s", schema.Name())
		}
		if original, patch, err = lists.ApplyElementDirectives(original, patch, mergeKey); err != nil {
			return nil, err
		}
		if merged, err = mergeByKey(original, patch, mergeKey, schema); err != nil {
			return nil, err
		}
	}
	inPatch, others, err := lists.Partition(merged, patch, mergeKey)
	if err != nil {
		return nil, err
	}
	return lists.NormalizeOrder(inPatch, others, patch, original, mergeKey, elem)
}

// deleteScalars removes the patch's values from a list of scalars.
func deleteScalars(list, del []any) []any {
	gone := map[any]bool{}
	for _, v := range del {
		gone[v] = true
	}
	out := make([]any, 0, len(list))
	for _, v := range list {
		if !gone[v] {
			out = append(out, v)
		}
	}
	return out
}

// mergeByKey merges each patch element into the element with its merge key,
// or appends it.
func mergeByKey(original, patch []any, mergeKey string, schema types.PatchSchema) ([]any, error) {
	for _, v := range patch {
		m := v.(map[string]any)
		kv, ok := m[mergeKey]
		if !ok {
			return nil, lists.NoMergeKey(m, mergeKey)
		}
		om, i, found, err := lists.FindByKey(original, mergeKey, kv)
		if err != nil {
			return nil, err
		}
		if !found {
			original = append(original, v)
			continue
		}
		if original[i], err = mergeMap(om, m, schema); err != nil {
			return nil, err
		}
	}
	return original, nil
}
