package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
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

// The patch's directives.
const (
	directiveMarker       = "$patch"
	deleteDirective       = "delete"
	replaceDirective      = "replace"
	mergeDirective        = "merge"
	retainKeysDirective   = "$retainKeys"
	deleteFromListPrefix  = "$deleteFromPrimitiveList"
	setElementOrderPrefix = "$setElementOrder"
)

// kube's errors (k8s.io/apimachinery/pkg/util/mergepatch) that it answers
// with their own code; every other error is a 500 with its message.
var (
	errBadPatchFormatForPrimitiveList       = errors.New("invalid patch format of primitive list")
	errBadPatchFormatForRetainKeys          = errors.New("invalid patch format of retainKeys")
	errBadPatchFormatForSetElementOrderList = errors.New("invalid patch format of setElementOrder list")
	errNoListOfLists                        = errors.New("lists of lists are not supported")
)

// statusOf is the Status kube answers a strategic merge error with.
func statusOf(err error) error {
	switch err {
	case errBadPatchFormatForPrimitiveList, errBadPatchFormatForRetainKeys, errBadPatchFormatForSetElementOrderList:
		return apierrors.NewBadRequest(err.Error())
	case errNoListOfLists:
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
	if d, ok := patch[directiveMarker]; ok {
		switch d {
		case replaceDirective:
			delete(patch, directiveMarker)
			return patch, nil
		case deleteDirective:
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
		if strings.HasPrefix(k, deleteFromListPrefix) {
			key, err := directiveKey(k, deleteFromListPrefix)
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
				discardNulls(pv)
				setWithoutDirectives(original, k, pv)
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
			setWithoutDirectives(original, k, pv)
		}
		if err != nil {
			return nil, err
		}
	}
	return original, nil
}

// setWithoutDirectives sets original's key to the patch's value without its
// directives; a value that is itself a directive removes the key.
func setWithoutDirectives(original map[string]any, key string, pv any) {
	if v, keep := removeDirectives(pv); keep {
		original[key] = v
	} else {
		delete(original, key)
	}
}

// discardNulls removes null fields from a patch value taken whole: they have
// nothing to delete.
func discardNulls(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e == nil {
				delete(v, k)
			} else {
				discardNulls(e)
			}
		}
	case []any:
		for _, e := range v {
			discardNulls(e)
		}
	}
}

// removeDirectives strips directives from a patch value taken whole, and says
// whether to keep it (an object with $patch is dropped).
func removeDirectives(v any) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v[directiveMarker]; ok {
			return nil, false
		}
		for k, e := range v {
			if e2, keep := removeDirectives(e); keep {
				v[k] = e2
			} else {
				delete(v, k)
			}
		}
		return v, true
	case []any:
		if v == nil {
			return v, true
		}
		out := []any{}
		for _, e := range v {
			if e2, keep := removeDirectives(e); keep {
				out = append(out, e2)
			}
		}
		return out, true
	}
	return v, true
}

// directiveKey is the field a "$prefix/field" key names.
func directiveKey(key, prefix string) (string, error) {
	p, field, ok := strings.Cut(key, "/")
	if !ok || p != prefix {
		if prefix == deleteFromListPrefix {
			return "", errBadPatchFormatForPrimitiveList
		}
		return "", errBadPatchFormatForSetElementOrderList
	}
	return field, nil
}

// applyRetainKeys applies a $retainKeys directive: the fields it does not name
// go, and the patch may set no other.
func applyRetainKeys(original, patch map[string]any) error {
	rk, ok := patch[retainKeysDirective]
	if !ok {
		return nil
	}
	delete(patch, retainKeysDirective)
	list, ok := rk.([]any)
	if !ok {
		return errBadPatchFormatForRetainKeys
	}
	keep := map[any]bool{}
	for _, k := range list {
		keep[k] = true
	}
	for k, v := range patch {
		if v == nil || strings.HasPrefix(k, deleteFromListPrefix) || strings.HasPrefix(k, setElementOrderPrefix) {
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
		if !strings.HasPrefix(key, setElementOrderPrefix) {
			continue
		}
		delete(patch, key)
		orderList, ok := order.([]any)
		if !ok {
			return badArgType("[]interface {}", order)
		}
		field, err := directiveKey(key, setElementOrderPrefix)
		if err != nil {
			return err
		}
		ov, inOriginal := original[field]
		pv, inPatch := patch[field]
		var originalList, patchList []any
		if inOriginal {
			if originalList, ok = ov.([]any); !ok {
				return badArgType("[]interface {}", ov)
			}
		}
		if inPatch {
			if patchList, ok = pv.([]any); !ok {
				return badArgType("[]interface {}", pv)
			}
		}
		sub, meta, err := schema.ListField(field)
		if err != nil {
			return err
		}
		if err := checkOrder(patchList, orderList, meta.MergeKey); err != nil {
			return err
		}
		var merged []any
		switch {
		case inOriginal && !inPatch:
			merged = originalList
		case !inOriginal && inPatch:
			v, _ := removeDirectives(patchList)
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
		inOrder, others, err := partition(merged, orderList, meta.MergeKey)
		if err != nil {
			return err
		}
		elem, err := elementType(originalList, patchList)
		if err != nil {
			return err
		}
		all, err := normalizeOrder(inOrder, others, orderList, originalList, meta.MergeKey, elem)
		if err != nil {
			return err
		}
		original[field] = all
		delete(patch, field)
	}
	return nil
}

// badArgType is kube's ErrBadArgType.
func badArgType(want string, got any) error {
	return fmt.Errorf("expected a %s, but received a %s", want, typeName(got))
}

// typeName is a value's Go type as kube's message prints it (fmt's "%s" of
// reflect.TypeOf: "%!s(<nil>)" for nil).
func typeName(v any) string {
	if v == nil {
		return "%!s(<nil>)"
	}
	return reflect.TypeOf(v).String()
}

// checkOrder checks a $setElementOrder list against the patch's list: the
// patch's elements (but deletions) must be in it, in its order.
func checkOrder(patchList, order []any, mergeKey string) error {
	if len(order) == 0 || len(patchList) == 0 {
		return nil
	}
	items := patchList
	if mergeKey != "" {
		var err error
		if items, _, err = splitDeletions(patchList); err != nil {
			return err
		}
	}
	i, j := 0, 0
	for i < len(items) && j < len(order) {
		if hasDirective(items[i]) {
			i++
			continue
		}
		same, err := sameMergeKey(items[i], order[j], mergeKey)
		if err != nil {
			return err
		}
		if same {
			i++
		}
		j++
	}
	if i < len(items) && j >= len(order) {
		return fmt.Errorf("The order in patch list:\n%v\n doesn't match %s list:\n%v\n", patchList, setElementOrderPrefix, order)
	}
	return nil
}

func hasDirective(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, found := m[directiveMarker]
	return found
}

// sameMergeKey says whether two elements are one: equal scalars, or objects
// with the same merge key value.
func sameMergeKey(a, b any, mergeKey string) (bool, error) {
	if mergeKey == "" {
		return a == b, nil
	}
	ma, ok := a.(map[string]any)
	if !ok {
		return false, badArgType("map[string]interface {}", a)
	}
	mb, ok := b.(map[string]any)
	if !ok {
		return false, badArgType("map[string]interface {}", b)
	}
	va, ok := ma[mergeKey]
	if !ok {
		return false, noMergeKey(ma, mergeKey)
	}
	vb, ok := mb[mergeKey]
	if !ok {
		return false, noMergeKey(mb, mergeKey)
	}
	return va == vb, nil
}

// noMergeKey is kube's ErrNoMergeKey.
func noMergeKey(m map[string]any, key string) error {
	return fmt.Errorf("map: %v does not contain declared merge key: %s", m, key)
}

// splitDeletions splits a list of objects into the elements to keep and the
// {"$patch": "delete"} ones.
func splitDeletions(list []any) (keep, del []any, err error) {
	for _, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, badArgType("map[string]interface {}", v)
		}
		if m[directiveMarker] == deleteDirective {
			del = append(del, v)
		} else {
			keep = append(keep, v)
		}
	}
	return keep, del, nil
}

// mergeSlice merges a patch list into a list with merge strategy: scalars are
// added (or, for a $deleteFromPrimitiveList, removed); objects are merged by
// merge key, with the $patch directives of elements. The patch's elements come
// in the patch's order, the others where they were.
func mergeSlice(original, patch []any, schema types.PatchSchema, mergeKey string, deleteList bool) ([]any, error) {
	if len(original) == 0 && len(patch) == 0 {
		return original, nil
	}
	elem, err := elementType(original, patch)
	if err != nil {
		return nil, err
	}
	var merged []any
	if elem != reflect.Map {
		if deleteList {
			return deleteScalars(original, patch), nil
		}
		merged = dedupScalars(append(original, patch...))
	} else {
		if mergeKey == "" {
			return nil, fmt.Errorf("cannot merge lists without merge key for %s", schema.Name())
		}
		if original, patch, err = applyElementDirectives(original, patch, mergeKey); err != nil {
			return nil, err
		}
		if merged, err = mergeByKey(original, patch, mergeKey, schema); err != nil {
			return nil, err
		}
	}
	inPatch, others, err := partition(merged, patch, mergeKey)
	if err != nil {
		return nil, err
	}
	return normalizeOrder(inPatch, others, patch, original, mergeKey, elem)
}

// elementType is the kind of the lists' elements, which must all be of one Go
// type and no list.
func elementType(lists ...[]any) (reflect.Kind, error) {
	var t reflect.Type
	for _, l := range lists {
		for _, v := range l {
			vt := reflect.TypeOf(v)
			switch {
			case t == nil:
				t = vt
				if vt != nil && vt.Kind() == reflect.Slice {
					return 0, errNoListOfLists
				}
			case t != vt:
				return 0, fmt.Errorf("list element types are not identical: %v", fmt.Sprint(lists))
			}
		}
	}
	if t == nil {
		return 0, errors.New("no elements in any of the given slices")
	}
	return t.Kind(), nil
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

// dedupScalars drops repeated values as kube does: a repeat is overwritten by
// the list's last element.
func dedupScalars(s []any) []any {
	last := len(s) - 1
	for i := 0; i < last; i++ {
		for j := i + 1; j <= last; j++ {
			if s[i] == s[j] {
				s[j] = s[last]
				s = s[:last]
				last--
				j--
			}
		}
	}
	return s
}

// applyElementDirectives applies the $patch elements of a patch list of
// objects: "delete" removes the elements with its merge key, "replace" makes
// the patch's other elements the list.
func applyElementDirectives(original, patch []any, mergeKey string) ([]any, []any, error) {
	plain := []any{}
	replace := false
	for _, v := range patch {
		m := v.(map[string]any)
		d, ok := m[directiveMarker]
		if !ok {
			plain = append(plain, v)
			continue
		}
		switch d {
		case deleteDirective:
			kv, ok := m[mergeKey]
			if !ok {
				return nil, nil, noMergeKey(m, mergeKey)
			}
			for {
				_, i, found, err := findByKey(original, mergeKey, kv)
				if err != nil {
					return nil, nil, err
				}
				if !found {
					break
				}
				original = append(original[:i], original[i+1:]...)
			}
		case replaceDirective:
			replace = true
		case mergeDirective:
			return nil, nil, errors.New("merging lists cannot yet be specified in the patch")
		default:
			return nil, nil, fmt.Errorf("unknown patch type: %s in map: %v", d, m)
		}
	}
	if replace {
		return plain, nil, nil
	}
	return original, plain, nil
}

// mergeByKey merges each patch element into the element with its merge key,
// or appends it.
func mergeByKey(original, patch []any, mergeKey string, schema types.PatchSchema) ([]any, error) {
	for _, v := range patch {
		m := v.(map[string]any)
		kv, ok := m[mergeKey]
		if !ok {
			return nil, noMergeKey(m, mergeKey)
		}
		om, i, found, err := findByKey(original, mergeKey, kv)
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

// findByKey finds the object whose merge key has value v.
func findByKey(list []any, key string, v any) (map[string]any, int, bool, error) {
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, 0, false, fmt.Errorf("value for key %v is not a map", i)
		}
		if mv, ok := m[key]; ok && mv == v {
			return m, i, true, nil
		}
	}
	return nil, 0, false, nil
}

// partition splits list into the elements by is about and the others.
func partition(list, by []any, mergeKey string) (in, out []any, err error) {
	in, out = make([]any, 0, len(list)), make([]any, 0, len(list))
	if mergeKey == "" {
		inBy := map[any]bool{}
		for _, v := range by {
			inBy[v] = true
		}
		for _, v := range list {
			if inBy[v] {
				in = append(in, v)
			} else {
				out = append(out, v)
			}
		}
		return in, out, nil
	}
	for _, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, badArgType("map[string]interface {}", v)
		}
		kv, ok := m[mergeKey]
		if !ok {
			return nil, nil, noMergeKey(m, mergeKey)
		}
		_, _, found, err := findByKey(by, mergeKey, kv)
		if err != nil {
			return nil, nil, err
		}
		if found {
			in = append(in, v)
		} else {
			out = append(out, v)
		}
	}
	return in, out, nil
}

// normalizeOrder orders the patch's elements by patchOrder and the server's
// by serverOrder, then interleaves them: each server element goes before the
// first patch element it came before in serverOrder.
func normalizeOrder(patch, server, patchOrder, serverOrder []any, mergeKey string, kind reflect.Kind) ([]any, error) {
	patch, err := sortByOrder(patch, patchOrder, mergeKey, kind)
	if err != nil {
		return nil, err
	}
	if server, err = sortByOrder(server, serverOrder, mergeKey, kind); err != nil {
		return nil, err
	}
	out := make([]any, 0, len(patch)+len(server))
	i, j := 0, 0
	for i < len(server) || j < len(patch) {
		switch {
		case i >= len(server):
			out = append(out, patch[j])
			j++
		case j >= len(patch):
			out = append(out, server[i])
			i++
		default:
			si, pj := indexOf(serverOrder, server[i], mergeKey, kind), indexOf(serverOrder, patch[j], mergeKey, kind)
			if si >= 0 && pj >= 0 && si < pj {
				out = append(out, server[i])
				i++
			} else {
				out = append(out, patch[j])
				j++
			}
		}
	}
	return out, nil
}

// sortByOrder sorts list (stably) by the positions of its elements in order;
// for objects, deletions go last.
func sortByOrder(list, order []any, mergeKey string, kind reflect.Kind) ([]any, error) {
	var del []any
	if kind == reflect.Map {
		for _, l := range [][]any{list, order} {
			for _, v := range l {
				m, ok := v.(map[string]any)
				if !ok {
					return nil, badArgType("map[string]interface {}", v)
				}
				if _, ok := m[mergeKey]; !ok {
					return nil, noMergeKey(m, mergeKey)
				}
			}
		}
		var err error
		if list, del, err = splitDeletions(list); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(list, func(a, b int) bool {
		if ia := indexOf(order, list[a], mergeKey, kind); ia >= 0 {
			if ib := indexOf(order, list[b], mergeKey, kind); ib >= 0 {
				return ia < ib
			}
		}
		return true
	})
	return append(list, del...), nil
}

// indexOf is the position of v in l (by merge key for objects), or -1.
func indexOf(l []any, v any, mergeKey string, kind reflect.Kind) int {
	key := func(e any) any { return e }
	if kind == reflect.Map {
		key = func(e any) any {
			m, _ := e.(map[string]any)
			return m[mergeKey]
		}
	}
	want := key(v)
	for i, e := range l {
		if key(e) == want {
			return i
		}
	}
	return -1
}
