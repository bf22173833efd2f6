package kubectl

// This file owns kubectl apply's client-side patch: the three-way strategic
// merge patch (k8s.io/apimachinery's CreateThreeWayMergePatch) from the
// last applied configuration (original), the file's object (modified) and
// the live object (current), with the patch strategies and merge keys read
// from the server's OpenAPI v3 document, as kubectl 1.32 reads them
// (PatchMetaFromOpenAPIV3): no table of the built-in kinds in the module.
//
// The patch is the changes and additions from current to modified, plus
// the deletions from original to modified, merged as two patches are
// merged; its bytes (json.Marshal of the map: sorted keys) and its lists'
// order are kube's, which the differential test checks against
// apimachinery itself.

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

const (
	smpDirective       = "$patch"
	smpDelete          = "delete"
	smpReplace         = "replace"
	smpMerge           = "merge"
	smpRetainKeys      = "$retainKeys"
	smpRetainKeysTag   = "retainKeys"
	smpDeleteFromList  = "$deleteFromPrimitiveList"
	smpSetElementOrder = "$setElementOrder"
)

var (
	errNoListOfLists       = errors.New("lists of lists are not supported")
	errBadSetElementOrder  = errors.New("invalid patch format of setElementOrder list")
	errBadPrimitiveListFmt = errors.New("invalid patch format of primitive list")
)

// patchSchema is a type in an OpenAPI v3 document: its schema object and
// the document's schemas, to resolve references. A nil schema knows no
// fields and has no patch metadata.
type patchSchema struct {
	schema  map[string]any
	schemas map[string]any
}

// patchMeta is a field's patch strategies and merge key.
type patchMeta struct {
	strategies []string
	mergeKey   string
}

// schemaForKind finds the schema of a kind in a group version's document:
// the one whose x-kubernetes-group-version-kind names it.
func schemaForKind(doc map[string]any, group, version, kind string) (patchSchema, bool) {
	components, _ := doc["components"].(map[string]any)
	schemas, _ := components["schemas"].(map[string]any)
	for _, s := range schemas {
		m, _ := s.(map[string]any)
		gvks, _ := m["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			gm, _ := g.(map[string]any)
			if gm["group"] == group && gm["version"] == version && gm["kind"] == kind {
				return patchSchema{schema: m, schemas: schemas}, true
			}
		}
	}
	return patchSchema{}, false
}

// field is the schema and patch metadata of a key of the object this
// schema describes; a list's element's schema when list is set.
func (s patchSchema) field(key string, list bool) (patchSchema, patchMeta, error) {
	if s.schema == nil {
		return patchSchema{}, patchMeta{}, nil
	}
	props, _ := s.schema["properties"].(map[string]any)
	sub, ok := props[key].(map[string]any)
	if !ok {
		return patchSchema{}, patchMeta{}, fmt.Errorf("unable to find api field %q", key)
	}
	var meta patchMeta
	if k, ok := sub["x-kubernetes-patch-merge-key"].(string); ok {
		meta.mergeKey = k
	}
	if st, ok := sub["x-kubernetes-patch-strategy"].(string); ok {
		meta.strategies = strings.Split(st, ",")
	}
	if items, ok := sub["items"].(map[string]any); ok && list {
		sub = items
	}
	if all, ok := sub["allOf"].([]any); ok && len(all) > 0 {
		sub, _ = all[0].(map[string]any)
	}
	if ref, ok := sub["$ref"].(string); ok && ref != "" {
		resolved, ok := s.schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
		if !ok {
			return patchSchema{}, meta, fmt.Errorf("unable to resolve %s in OpenAPI V3", ref)
		}
		sub = resolved
	}
	return patchSchema{schema: sub, schemas: s.schemas}, meta, nil
}

// name is the schema's type as kube's errors name it.
func (s patchSchema) name() string {
	if t, ok := s.schema["type"].(string); ok && t != "" {
		return t
	}
	return "Struct"
}

// strategy splits the strategies into retainKeys and the other one.
func (m patchMeta) strategy() (retainKeys bool, strategy string, err error) {
	switch len(m.strategies) {
	case 0:
		return false, "", nil
	case 1:
		if m.strategies[0] == smpRetainKeysTag {
			return true, "", nil
		}
		return false, m.strategies[0], nil
	case 2:
		switch {
		case m.strategies[0] == smpRetainKeysTag:
			return true, m.strategies[1], nil
		case m.strategies[1] == smpRetainKeysTag:
			return true, m.strategies[0], nil
		}
	}
	return false, "", fmt.Errorf("unexpected patch strategy: %v", m.strategies)
}

// threeWayMergePatch is CreateThreeWayMergePatch with overwrite: the patch
// that takes current to modified and removes what original had and
// modified has not.
func threeWayMergePatch(original, modified, current []byte, schema patchSchema) ([]byte, error) {
	var maps [3]map[string]any
	for i, b := range [][]byte{original, modified, current} {
		maps[i] = map[string]any{}
		if len(b) > 0 {
			if err := json.Unmarshal(b, &maps[i]); err != nil {
				return nil, errors.New("invalid JSON document")
			}
		}
	}
	delta, err := diffObjects(maps[2], maps[1], schema, diffOptions{ignoreDeletions: true})
	if err != nil {
		return nil, err
	}
	deletions, err := diffObjects(maps[0], maps[1], schema, diffOptions{ignoreChanges: true})
	if err != nil {
		return nil, err
	}
	patch, err := mergePatches(deletions, delta, schema)
	if err != nil {
		return nil, err
	}
	return json.Marshal(patch)
}

// diffOptions are DiffOptions with SetElementOrder, as apply diffs.
type diffOptions struct {
	ignoreDeletions bool // the delta: changes and additions only
	ignoreChanges   bool // the deletions only
	retainKeys      bool // build a $retainKeys directive
}

// diffObjects is the patch from original to modified (diffMaps).
func diffObjects(original, modified map[string]any, schema patchSchema, o diffOptions) (map[string]any, error) {
	patch := map[string]any{}
	var retain []any
	for key, mv := range modified {
		if o.retainKeys && mv != nil {
			retain = append(retain, key)
		}
		ov, ok := original[key]
		if !ok {
			if !o.ignoreChanges {
				patch[key] = mv
			}
			continue
		}
		if key == smpDirective {
			os, ok1 := ov.(string)
			ms, ok2 := mv.(string)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("invalid value for special key: %s", smpDirective)
			}
			if os != ms {
				patch[key] = mv
			}
			continue
		}
		if reflect.TypeOf(ov) != reflect.TypeOf(mv) {
			if !o.ignoreChanges {
				patch[key] = mv
			}
			continue
		}
		var err error
		switch ov := ov.(type) {
		case map[string]any:
			err = diffObjectField(key, ov, mv.(map[string]any), patch, schema, o)
		case []any:
			err = diffListField(key, ov, mv.([]any), patch, schema, o)
		default:
			if !o.ignoreChanges && !reflect.DeepEqual(ov, mv) {
				patch[key] = mv
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if !o.ignoreDeletions {
		for key := range original {
			if _, ok := modified[key]; !ok {
				patch[key] = nil
			}
		}
	}
	if len(retain) > 0 && (len(patch) > 0 || hasMoreFields(original, modified)) {
		patch[smpRetainKeys] = sortScalars(retain)
	}
	return patch, nil
}

// hasMoreFields says whether original has a non-null field modified lacks.
func hasMoreFields(original, modified map[string]any) bool {
	for k, v := range original {
		if _, ok := modified[k]; v != nil && !ok {
			return true
		}
	}
	return false
}

func diffObjectField(key string, ov, mv, patch map[string]any, schema patchSchema, o diffOptions) error {
	sub, meta, err := schema.field(key, false)
	if err != nil {
		if reflect.DeepEqual(ov, mv) {
			return nil
		}
		return err
	}
	retain, strategy, err := meta.strategy()
	if err != nil {
		return err
	}
	o.retainKeys = retain
	if strategy == smpReplace {
		if !o.ignoreChanges {
			patch[key] = mv
		}
		return nil
	}
	p, err := diffObjects(ov, mv, sub, o)
	if err != nil {
		return err
	}
	if len(p) > 0 {
		patch[key] = p
	}
	return nil
}

func diffListField(key string, ov, mv []any, patch map[string]any, schema patchSchema, o diffOptions) error {
	sub, meta, err := schema.field(key, true)
	if err != nil {
		if reflect.DeepEqual(ov, mv) {
			return nil
		}
		return err
	}
	retain, strategy, err := meta.strategy()
	if err != nil {
		return err
	}
	if strategy != smpMerge {
		if !o.ignoreChanges && !reflect.DeepEqual(ov, mv) {
			patch[key] = mv
		}
		return nil
	}
	o.retainKeys = retain
	add, del, order, err := diffLists(ov, mv, sub, meta.mergeKey, o)
	if err != nil {
		return err
	}
	if len(add) > 0 {
		patch[key] = add
	}
	if len(del) > 0 {
		patch[smpDeleteFromList+"/"+key] = del
	}
	if len(order) > 0 {
		patch[smpSetElementOrder+"/"+key] = order
	}
	return nil
}

// diffLists diffs two merged lists: the patch's list, the parallel list of
// scalars to delete, and the $setElementOrder list.
func diffLists(original, modified []any, schema patchSchema, mergeKey string, o diffOptions) (patch, deletions, order []any, err error) {
	if len(original) == 0 {
		if len(modified) == 0 || o.ignoreChanges {
			return nil, nil, nil, nil
		}
		return modified, nil, nil, nil
	}
	kind, err := elementKind(original, modified)
	if err != nil {
		return nil, nil, nil, err
	}
	switch kind {
	case reflect.Map:
		patch, deletions, err = diffListsOfMaps(original, modified, schema, mergeKey, o)
		if err != nil {
			return nil, nil, nil, err
		}
		if patch, err = sortByOrder(patch, modified, mergeKey, kind); err != nil {
			return nil, nil, nil, err
		}
		same, err := sameOrder(original, modified, mergeKey)
		if err != nil {
			return nil, nil, nil, err
		}
		patch = append(patch, deletions...)
		deletions = nil
		if !o.ignoreChanges && (len(patch) > 0 || !same) || !o.ignoreDeletions && len(patch) > 0 {
			order = make([]any, len(modified))
			for i, v := range modified {
				order[i] = map[string]any{mergeKey: v.(map[string]any)[mergeKey]}
			}
		}
	case reflect.Slice:
		return nil, nil, nil, errNoListOfLists
	default:
		patch, deletions = diffListsOfScalars(original, modified, o)
		if patch, err = sortByOrder(patch, modified, mergeKey, kind); err != nil {
			return nil, nil, nil, err
		}
		if !o.ignoreDeletions && len(deletions) > 0 || !o.ignoreChanges && !reflect.DeepEqual(original, modified) {
			order = modified
		}
	}
	return patch, deletions, order, nil
}

func sameOrder(original, modified []any, mergeKey string) (bool, error) {
	if len(original) != len(modified) {
		return false, nil
	}
	for i := range modified {
		eq, err := sameMergeKey(original[i], modified[i], mergeKey)
		if err != nil || !eq {
			return eq, err
		}
	}
	return true, nil
}

func sameMergeKey(a, b any, mergeKey string) (bool, error) {
	if mergeKey == "" {
		return a == b, nil
	}
	am, ok := a.(map[string]any)
	if !ok {
		return false, badArgType(am, a)
	}
	bm, ok := b.(map[string]any)
	if !ok {
		return false, badArgType(bm, b)
	}
	av, ok := am[mergeKey]
	if !ok {
		return false, noMergeKey(am, mergeKey)
	}
	bv, ok := bm[mergeKey]
	if !ok {
		return false, noMergeKey(bm, mergeKey)
	}
	return av == bv, nil
}

func badArgType(expected, actual any) error {
	return fmt.Errorf("expected a %s, but received a %s", reflect.TypeOf(expected), reflect.TypeOf(actual))
}

func badPatchType(t any, m map[string]any) error {
	return fmt.Errorf("unknown patch type: %s in map: %v", t, m)
}

func noMergeKey(m map[string]any, key string) error {
	return fmt.Errorf("map: %v does not contain declared merge key: %s", m, key)
}

// diffListsOfScalars compares the sorted scalars (as %v strings): what
// modified adds and what it removes.
func diffListsOfScalars(original, modified []any, o diffOptions) (add, del []any) {
	ms := sortScalars(append([]any(nil), modified...))
	os := sortScalars(original)
	add, del = []any{}, []any{}
	i, j := 0, 0
	for i < len(os) || j < len(ms) {
		var ostr, mstr string
		if i < len(os) {
			ostr = fmt.Sprintf("%v", os[i])
		}
		if j < len(ms) {
			mstr = fmt.Sprintf("%v", ms[j])
		}
		switch {
		case i < len(os) && j < len(ms) && ostr == mstr:
			i++
			j++
		case i >= len(os) || j < len(ms) && ostr > mstr:
			if !o.ignoreChanges {
				add = append(add, ms[j])
			}
			j++
		default:
			if !o.ignoreDeletions {
				del = append(del, os[i])
			}
			i++
		}
	}
	return add, dedupScalars(del)
}

// diffListsOfMaps walks both lists sorted by merge key: changed elements
// (their diff with the merge key), added ones, and delete directives for
// removed ones.
func diffListsOfMaps(original, modified []any, schema patchSchema, mergeKey string, o diffOptions) (patch, deletions []any, err error) {
	patch = make([]any, 0, len(modified))
	deletions = make([]any, 0, len(original))
	os := sortMapsByKey(original, mergeKey)
	ms := sortMapsByKey(modified, mergeKey)
	i, j := 0, 0
	for i < len(os) || j < len(ms) {
		var oe, me map[string]any
		var ok, mk any
		var ostr, mstr string
		if i < len(os) {
			if oe, ok, err = elementAndKey(os[i], mergeKey); err != nil {
				return nil, nil, err
			}
			ostr = fmt.Sprintf("%v", ok)
		}
		if j < len(ms) {
			if me, mk, err = elementAndKey(ms[j], mergeKey); err != nil {
				return nil, nil, err
			}
			mstr = fmt.Sprintf("%v", mk)
		}
		both := i < len(os) && j < len(ms)
		switch {
		case both && ostr == mstr:
			p, err := diffObjects(oe, me, schema, o)
			if err != nil {
				return nil, nil, err
			}
			if len(p) > 0 {
				p[mergeKey] = mk
				patch = append(patch, p)
			}
			i++
			j++
		case i >= len(os) || both && ostr > mstr:
			if !o.ignoreChanges {
				patch = append(patch, me)
			}
			j++
		default:
			if !o.ignoreDeletions {
				deletions = append(deletions, map[string]any{mergeKey: ok, smpDirective: smpDelete})
			}
			i++
		}
	}
	return patch, deletions, nil
}

func elementAndKey(v any, mergeKey string) (map[string]any, any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil, badArgType(m, v)
	}
	k, ok := m[mergeKey]
	if !ok {
		return nil, nil, noMergeKey(m, mergeKey)
	}
	return m, k, nil
}

// lessOrEqual is kube's order of scalars and merge keys: their %v strings,
// with equal ones "less" (sort.StringsAreSorted), under sort.Sort.
type byString struct {
	s   []any
	key func(any) any
}

func (b byString) Len() int      { return len(b.s) }
func (b byString) Swap(i, j int) { b.s[i], b.s[j] = b.s[j], b.s[i] }
func (b byString) Less(i, j int) bool {
	return fmt.Sprintf("%v", b.key(b.s[i])) <= fmt.Sprintf("%v", b.key(b.s[j]))
}

// sortScalars sorts s in place.
func sortScalars(s []any) []any {
	sort.Sort(byString{s, func(v any) any { return v }})
	return s
}

// sortMapsByKey is a sorted copy of a list of objects, by merge key.
func sortMapsByKey(s []any, key string) []any {
	out := append([]any{}, s...)
	sort.Sort(byString{out, func(v any) any { return v.(map[string]any)[key] }})
	return out
}

// dedupScalars removes repeated scalars as kube does: a repeat is replaced
// by the last element.
func dedupScalars(s []any) []any {
	n := len(s) - 1
	for i := 0; i < n; i++ {
		for j := i + 1; j <= n; j++ {
			if s[i] == s[j] {
				s[j] = s[n]
				s = s[:n]
				n--
				j--
			}
		}
	}
	return s
}

// elementKind is the kind of the lists' elements, which must agree.
func elementKind(lists ...[]any) (reflect.Kind, error) {
	var t reflect.Type
	for _, l := range lists {
		for _, v := range l {
			vt := reflect.TypeOf(v)
			if t == nil {
				t = vt
				if t != nil && t.Kind() == reflect.Slice {
					return 0, errNoListOfLists
				}
			} else if t != vt {
				return 0, fmt.Errorf("list element types are not identical: %v", fmt.Sprint(lists))
			}
		}
	}
	if t == nil {
		return 0, errors.New("no elements in any of the given slices")
	}
	return t.Kind(), nil
}

// indexIn is the position of v in l, by merge key for objects.
func indexIn(l []any, v any, mergeKey string, kind reflect.Kind) int {
	get := func(x any) any { return x }
	if kind == reflect.Map {
		get = func(x any) any {
			m, _ := x.(map[string]any)
			return m[mergeKey]
		}
	}
	for i, e := range l {
		if get(v) == get(e) {
			return i
		}
	}
	return -1
}

// sortByOrder orders toSort as order has them (a stable sort whose
// elements not in order count as less), delete directives last.
func sortByOrder(toSort, order []any, mergeKey string, kind reflect.Kind) ([]any, error) {
	var deletes []any
	if kind == reflect.Map {
		for _, l := range [][]any{toSort, order} {
			for _, v := range l {
				if _, _, err := elementAndKey(v, mergeKey); err != nil {
					return nil, err
				}
			}
		}
		var keep []any
		for _, v := range toSort {
			if v.(map[string]any)[smpDirective] == smpDelete {
				deletes = append(deletes, v)
			} else {
				keep = append(keep, v)
			}
		}
		toSort = keep
	}
	sort.SliceStable(toSort, func(i, j int) bool {
		if ii := indexIn(order, toSort[i], mergeKey, kind); ii >= 0 {
			if ij := indexIn(order, toSort[j], mergeKey, kind); ij >= 0 {
				return ii < ij
			}
		}
		return true
	})
	return append(toSort, deletes...), nil
}

// mergeOrdered interleaves the server's elements (left) into the patch's
// (right) by their places in serverOrder, keeping each list's own order.
func mergeOrdered(left, right, serverOrder []any, mergeKey string, kind reflect.Kind) []any {
	out := make([]any, 0, len(left)+len(right))
	i, j := 0, 0
	for i < len(left) || j < len(right) {
		switch {
		case i >= len(left):
			out = append(out, right[j])
			j++
		case j >= len(right):
			out = append(out, left[i])
			i++
		default:
			li := indexIn(serverOrder, left[i], mergeKey, kind)
			ri := indexIn(serverOrder, right[j], mergeKey, kind)
			if li >= 0 && ri >= 0 && li < ri {
				out = append(out, left[i])
				i++
			} else {
				out = append(out, right[j])
				j++
			}
		}
	}
	return out
}

// normalizeOrder orders the patch's elements by patchOrder and the
// server's by serverOrder, and interleaves them.
func normalizeOrder(patch, server, patchOrder, serverOrder []any, mergeKey string, kind reflect.Kind) ([]any, error) {
	patch, err := sortByOrder(patch, patchOrder, mergeKey, kind)
	if err != nil {
		return nil, err
	}
	if server, err = sortByOrder(server, serverOrder, mergeKey, kind); err != nil {
		return nil, err
	}
	return mergeOrdered(server, patch, serverOrder, mergeKey, kind), nil
}

// mergePatches merges the delta into the deletions as kube's mergeMap does
// with MergeOptions{} (directives kept, nulls kept, parallel lists not
// merged).
func mergePatches(original, patch map[string]any, schema patchSchema) (map[string]any, error) {
	if d, ok := patch[smpDirective]; ok {
		switch d {
		case smpReplace:
			delete(patch, smpDirective)
			return patch, nil
		case smpDelete:
			return map[string]any{}, nil
		}
		return nil, badPatchType(d, patch)
	}
	if original == nil {
		original = map[string]any{}
	}
	if rk, ok := patch[smpRetainKeys]; ok {
		delete(patch, smpRetainKeys)
		if ork, ok := original[smpRetainKeys]; ok {
			if !reflect.DeepEqual(ork, rk) {
				return nil, fmt.Errorf("%v and %v are not deep equal: this may happen when calculating the 3-way diff patch", ork, rk)
			}
		} else {
			original[smpRetainKeys] = rk
		}
	}
	if err := mergeElementOrders(original, patch, schema); err != nil {
		return nil, err
	}
	for k, pv := range patch {
		if strings.HasPrefix(k, smpDeleteFromList) {
			original[k] = pv
			continue
		}
		if pv == nil {
			original[k] = nil
			continue
		}
		ov, ok := original[k]
		if !ok || reflect.TypeOf(ov) != reflect.TypeOf(pv) {
			setWithoutDirectives(original, k, pv)
			continue
		}
		var err error
		switch ov := ov.(type) {
		case map[string]any:
			sub, meta, err2 := schema.field(k, false)
			if err2 != nil {
				return nil, err2
			}
			_, strategy, err2 := meta.strategy()
			if err2 != nil {
				return nil, err2
			}
			if strategy == smpReplace {
				original[k] = pv
			} else {
				original[k], err = mergePatches(ov, pv.(map[string]any), sub)
			}
		case []any:
			sub, meta, err2 := schema.field(k, true)
			if err2 != nil {
				return nil, err2
			}
			_, strategy, err2 := meta.strategy()
			if err2 != nil {
				return nil, err2
			}
			if strategy == smpMerge {
				original[k], err = mergeLists(ov, pv.([]any), sub, meta.mergeKey)
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

func setWithoutDirectives(m map[string]any, k string, v any) {
	if v, keep := withoutDirectives(v); keep {
		m[k] = v
	} else {
		delete(m, k)
	}
}

// withoutDirectives drops the objects that carry a $patch directive.
func withoutDirectives(v any) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v[smpDirective]; ok {
			return nil, false
		}
		for k, e := range v {
			if e2, keep := withoutDirectives(e); keep {
				v[k] = e2
			} else {
				delete(v, k)
			}
		}
		return v, true
	case []any:
		out := []any{}
		for _, e := range v {
			if e2, keep := withoutDirectives(e); keep {
				out = append(out, e2)
			}
		}
		return out, true
	}
	return v, true
}

// mergeElementOrders moves the patch's $setElementOrder lists into
// original and merges the lists they order (mergePatchIntoOriginal).
func mergeElementOrders(original, patch map[string]any, schema patchSchema) error {
	for key, order := range patch {
		if !strings.HasPrefix(key, smpSetElementOrder) {
			continue
		}
		if have, ok := original[key]; ok {
			if !reflect.DeepEqual(have, order) {
				return errBadSetElementOrder
			}
		} else {
			original[key] = order
		}
		delete(patch, key)
		orderList, ok := order.([]any)
		if !ok {
			return badArgType(orderList, order)
		}
		parts := strings.SplitN(key, "/", 2)
		if len(parts) < 2 || parts[0] != smpSetElementOrder {
			return errBadSetElementOrder
		}
		field := parts[1]
		ov, inOriginal := original[field]
		pv, inPatch := patch[field]
		var ol, pl []any
		if inOriginal {
			if ol, ok = ov.([]any); !ok {
				return badArgType(ol, ov)
			}
		}
		if inPatch {
			if pl, ok = pv.([]any); !ok {
				return badArgType(pl, pv)
			}
		}
		sub, meta, err := schema.field(field, true)
		if err != nil {
			return err
		}
		_, strategy, err := meta.strategy()
		if err != nil {
			return err
		}
		if err := checkOrderList(pl, orderList, meta.mergeKey); err != nil {
			return err
		}
		var merged []any
		switch {
		case inOriginal && !inPatch:
			merged = ol
		case !inOriginal && inPatch:
			v, _ := withoutDirectives(pl)
			merged = v.([]any)
		case inOriginal && inPatch:
			if strategy == smpMerge {
				if merged, err = mergeLists(ol, pl, sub, meta.mergeKey); err != nil {
					return err
				}
			} else {
				merged = pl
			}
		default:
			continue
		}
		inOrder, serverOnly, err := partitionByPresence(merged, orderList, meta.mergeKey)
		if err != nil {
			return err
		}
		kind, err := elementKind(ol, pl)
		if err != nil {
			return err
		}
		all, err := normalizeOrder(inOrder, serverOnly, orderList, ol, meta.mergeKey, kind)
		if err != nil {
			return err
		}
		original[field] = all
		delete(patch, field)
	}
	return nil
}

// checkOrderList is validatePatchWithSetOrderList: the patch's elements
// appear in the order list, in its order.
func checkOrderList(patchList, orderList []any, mergeKey string) error {
	if len(orderList) == 0 || len(patchList) == 0 {
		return nil
	}
	items := patchList
	if mergeKey != "" {
		items = nil
		for _, v := range patchList {
			m, ok := v.(map[string]any)
			if !ok {
				return badArgType(m, v)
			}
			if m[smpDirective] != smpDelete {
				items = append(items, v)
			}
		}
	}
	i, j := 0, 0
	for i < len(items) && j < len(orderList) {
		if m, ok := items[i].(map[string]any); ok {
			if _, ok := m[smpDirective]; ok {
				i++
				continue
			}
		}
		eq, err := sameMergeKey(items[i], orderList[j], mergeKey)
		if err != nil {
			return err
		}
		if eq {
			i++
		}
		j++
	}
	if i < len(items) && j >= len(orderList) {
		return fmt.Errorf("The order in patch list:\n%v\n doesn't match %s list:\n%v\n", patchList, smpSetElementOrder, orderList)
	}
	return nil
}

// partitionByPresence splits l into the elements present in by and the
// others.
func partitionByPresence(l, by []any, mergeKey string) (in, out []any, err error) {
	in, out = make([]any, 0, len(l)), make([]any, 0, len(l))
	for _, v := range l {
		var found bool
		if mergeKey == "" {
			for _, b := range by {
				if b == v {
					found = true
					break
				}
			}
		} else {
			_, k, err := elementAndKey(v, mergeKey)
			if err != nil {
				return nil, nil, err
			}
			if _, found, err = findByKey(by, mergeKey, k); err != nil {
				return nil, nil, err
			}
		}
		if found {
			in = append(in, v)
		} else {
			out = append(out, v)
		}
	}
	return in, out, nil
}

func findByKey(l []any, key string, value any) (int, bool, error) {
	for i, v := range l {
		m, ok := v.(map[string]any)
		if !ok {
			return 0, false, fmt.Errorf("value for key %v is not a map", i)
		}
		if kv, ok := m[key]; ok && kv == value {
			return i, true, nil
		}
	}
	return 0, false, nil
}

// mergeLists merges a patch's merged list into another's (mergeSlice).
func mergeLists(original, patch []any, schema patchSchema, mergeKey string) ([]any, error) {
	if len(original) == 0 && len(patch) == 0 {
		return original, nil
	}
	kind, err := elementKind(original, patch)
	if err != nil {
		return nil, err
	}
	var merged []any
	if kind != reflect.Map {
		merged = dedupScalars(append(original, patch...))
	} else {
		if mergeKey == "" {
			return nil, fmt.Errorf("cannot merge lists without merge key for %s", schema.name())
		}
		var plain []any
		replace := false
		for _, v := range patch {
			m := v.(map[string]any)
			d, ok := m[smpDirective]
			if !ok {
				plain = append(plain, v)
				continue
			}
			switch d {
			case smpDelete:
				k, ok := m[mergeKey]
				if !ok {
					return nil, noMergeKey(m, mergeKey)
				}
				for {
					i, found, err := findByKey(original, mergeKey, k)
					if err != nil {
						return nil, err
					}
					if !found {
						break
					}
					original = append(original[:i], original[i+1:]...)
				}
			case smpReplace:
				replace = true
			case smpMerge:
				return nil, errors.New("merging lists cannot yet be specified in the patch")
			default:
				return nil, badPatchType(d, m)
			}
		}
		if replace {
			original, plain = plain, nil
		}
		patch = plain
		// merged shares original's elements, as kube's does: the server's
		// order below is original's, before the patch's were appended.
		merged = original
		for _, v := range patch {
			m := v.(map[string]any)
			k, ok := m[mergeKey]
			if !ok {
				return nil, noMergeKey(m, mergeKey)
			}
			i, found, err := findByKey(merged, mergeKey, k)
			if err != nil {
				return nil, err
			}
			if found {
				if merged[i], err = mergePatches(merged[i].(map[string]any), m, schema); err != nil {
					return nil, err
				}
			} else {
				merged = append(merged, v)
			}
		}
	}
	inPatch, serverOnly, err := partitionByPresence(merged, patch, mergeKey)
	if err != nil {
		return nil, err
	}
	return normalizeOrder(inPatch, serverOnly, patch, original, mergeKey, kind)
}
