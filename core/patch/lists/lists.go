// Package lists is what the server's strategic merge patch (core/patch) and
// the client's (kubectl apply's three-way patch, core/kubectl) share, from
// k8s.io/apimachinery/pkg/util/strategicpatch and mergepatch: the patch's
// directives, the $patch directives of a list's elements, merge keys, the
// order kube gives a merged list (the patch's elements in the patch's
// order, the others where they were), nulls dropped from a value taken
// whole, and kube's errors.
package lists

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
)

// The patch's directives.
const (
	DirectiveMarker       = "$patch"
	DeleteDirective       = "delete"
	ReplaceDirective      = "replace"
	MergeDirective        = "merge"
	RetainKeysDirective   = "$retainKeys"
	DeleteFromListPrefix  = "$deleteFromPrimitiveList"
	SetElementOrderPrefix = "$setElementOrder"
)

// ErrNoListOfLists is kube's mergepatch.ErrNoListOfLists.
var ErrNoListOfLists = errors.New("lists of lists are not supported")

// BadArgType is kube's ErrBadArgType.
func BadArgType(want string, got any) error {
	return fmt.Errorf("expected a %s, but received a %s", want, TypeName(got))
}

// TypeName is a value's Go type as kube's message prints it (fmt's "%s" of
// reflect.TypeOf: "%!s(<nil>)" for nil).
func TypeName(v any) string {
	if v == nil {
		return "%!s(<nil>)"
	}
	return reflect.TypeOf(v).String()
}

// CheckOrder checks a $setElementOrder list against the patch's list: the
// patch's elements (but deletions) must be in it, in its order.
func CheckOrder(patchList, order []any, mergeKey string) error {
	if len(order) == 0 || len(patchList) == 0 {
		return nil
	}
	items := patchList
	if mergeKey != "" {
		var err error
		if items, _, err = SplitDeletions(patchList); err != nil {
			return err
		}
	}
	i, j := 0, 0
	for i < len(items) && j < len(order) {
		if HasDirective(items[i]) {
			i++
			continue
		}
		same, err := SameMergeKey(items[i], order[j], mergeKey)
		if err != nil {
			return err
		}
		if same {
			i++
		}
		j++
	}
	if i < len(items) && j >= len(order) {
		return fmt.Errorf("The order in patch list:\n%v\n doesn't match %s list:\n%v\n", patchList, SetElementOrderPrefix, order)
	}
	return nil
}

func HasDirective(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, found := m[DirectiveMarker]
	return found
}

// SameMergeKey says whether two elements are one: equal scalars, or objects
// with the same merge key value.
func SameMergeKey(a, b any, mergeKey string) (bool, error) {
	if mergeKey == "" {
		return a == b, nil
	}
	ma, ok := a.(map[string]any)
	if !ok {
		return false, BadArgType("map[string]interface {}", a)
	}
	mb, ok := b.(map[string]any)
	if !ok {
		return false, BadArgType("map[string]interface {}", b)
	}
	va, ok := ma[mergeKey]
	if !ok {
		return false, NoMergeKey(ma, mergeKey)
	}
	vb, ok := mb[mergeKey]
	if !ok {
		return false, NoMergeKey(mb, mergeKey)
	}
	return va == vb, nil
}

// NoMergeKey is kube's ErrNoMergeKey.
func NoMergeKey(m map[string]any, key string) error {
	return fmt.Errorf("map: %v does not contain declared merge key: %s", m, key)
}

// SplitDeletions splits a list of objects into the elements to keep and the
// {"$patch": "delete"} ones.
func SplitDeletions(list []any) (keep, del []any, err error) {
	for _, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, BadArgType("map[string]interface {}", v)
		}
		if m[DirectiveMarker] == DeleteDirective {
			del = append(del, v)
		} else {
			keep = append(keep, v)
		}
	}
	return keep, del, nil
}

// ElementType is the kind of the lists' elements, which must all be of one Go
// type and no list.
func ElementType(lists ...[]any) (reflect.Kind, error) {
	var t reflect.Type
	for _, l := range lists {
		for _, v := range l {
			vt := reflect.TypeOf(v)
			switch {
			case t == nil:
				t = vt
				if vt != nil && vt.Kind() == reflect.Slice {
					return 0, ErrNoListOfLists
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

// DedupScalars drops repeated values as kube does: a repeat is overwritten by
// the list's last element.
func DedupScalars(s []any) []any {
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

// ApplyElementDirectives applies the $patch elements of a patch list of
// objects: "delete" removes the elements with its merge key, "replace" makes
// the patch's other elements the list.
func ApplyElementDirectives(original, patch []any, mergeKey string) ([]any, []any, error) {
	plain := []any{}
	replace := false
	for _, v := range patch {
		m := v.(map[string]any)
		d, ok := m[DirectiveMarker]
		if !ok {
			plain = append(plain, v)
			continue
		}
		switch d {
		case DeleteDirective:
			kv, ok := m[mergeKey]
			if !ok {
				return nil, nil, NoMergeKey(m, mergeKey)
			}
			for {
				_, i, found, err := FindByKey(original, mergeKey, kv)
				if err != nil {
					return nil, nil, err
				}
				if !found {
					break
				}
				original = append(original[:i], original[i+1:]...)
			}
		case ReplaceDirective:
			replace = true
		case MergeDirective:
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

// FindByKey finds the object whose merge key has value v.
func FindByKey(list []any, key string, v any) (map[string]any, int, bool, error) {
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

// Partition splits list into the elements by is about and the others.
func Partition(list, by []any, mergeKey string) (in, out []any, err error) {
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
			return nil, nil, BadArgType("map[string]interface {}", v)
		}
		kv, ok := m[mergeKey]
		if !ok {
			return nil, nil, NoMergeKey(m, mergeKey)
		}
		_, _, found, err := FindByKey(by, mergeKey, kv)
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

// NormalizeOrder orders the patch's elements by patchOrder and the server's
// by serverOrder, then interleaves them: each server element goes before the
// first patch element it came before in serverOrder.
func NormalizeOrder(patch, server, patchOrder, serverOrder []any, mergeKey string, kind reflect.Kind) ([]any, error) {
	patch, err := SortByOrder(patch, patchOrder, mergeKey, kind)
	if err != nil {
		return nil, err
	}
	if server, err = SortByOrder(server, serverOrder, mergeKey, kind); err != nil {
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
			si, pj := IndexOf(serverOrder, server[i], mergeKey, kind), IndexOf(serverOrder, patch[j], mergeKey, kind)
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

// SortByOrder sorts list (stably) by the positions of its elements in order;
// for objects, deletions go last.
func SortByOrder(list, order []any, mergeKey string, kind reflect.Kind) ([]any, error) {
	var del []any
	if kind == reflect.Map {
		for _, l := range [][]any{list, order} {
			for _, v := range l {
				m, ok := v.(map[string]any)
				if !ok {
					return nil, BadArgType("map[string]interface {}", v)
				}
				if _, ok := m[mergeKey]; !ok {
					return nil, NoMergeKey(m, mergeKey)
				}
			}
		}
		var err error
		if list, del, err = SplitDeletions(list); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(list, func(a, b int) bool {
		if ia := IndexOf(order, list[a], mergeKey, kind); ia >= 0 {
			if ib := IndexOf(order, list[b], mergeKey, kind); ib >= 0 {
				return ia < ib
			}
		}
		return true
	})
	return append(list, del...), nil
}

// IndexOf is the position of v in l (by merge key for objects), or -1.
func IndexOf(l []any, v any, mergeKey string, kind reflect.Kind) int {
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

// DiscardNulls removes null fields from a patch value taken whole: they have
// nothing to delete.
func DiscardNulls(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e == nil {
				delete(v, k)
			} else {
				DiscardNulls(e)
			}
		}
	case []any:
		for _, e := range v {
			DiscardNulls(e)
		}
	}
}

// SetWithoutDirectives sets original's key to the patch's value without its
// directives; a value that is itself a directive removes the key.
func SetWithoutDirectives(original map[string]any, key string, pv any) {
	if v, keep := RemoveDirectives(pv); keep {
		original[key] = v
	} else {
		delete(original, key)
	}
}

// RemoveDirectives strips directives from a patch value taken whole, and says
// whether to keep it (an object with $patch is dropped).
func RemoveDirectives(v any) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v[DirectiveMarker]; ok {
			return nil, false
		}
		for k, e := range v {
			if e2, keep := RemoveDirectives(e); keep {
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
			if e2, keep := RemoveDirectives(e); keep {
				out = append(out, e2)
			}
		}
		return out, true
	}
	return v, true
}

// OrderedBy is a list merged under a $setElementOrder list, in kube's
// order: the elements the order list names first, in its order, the
// others where they were in original; patch is the patch's list.
func OrderedBy(merged, order, original, patch []any, mergeKey string) ([]any, error) {
	inOrder, others, err := Partition(merged, order, mergeKey)
	if err != nil {
		return nil, err
	}
	kind, err := ElementType(original, patch)
	if err != nil {
		return nil, err
	}
	return NormalizeOrder(inOrder, others, order, original, mergeKey, kind)
}
