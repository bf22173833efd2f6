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

	"kubeplay/core/patch/lists"
)

// retainKeysStrategy is the patch strategy that builds $retainKeys.
const retainKeysStrategy = "retainKeys"

// errBadSetElementOrder is kube's ErrBadPatchFormatForSetElementOrderList.
var errBadSetElementOrder = errors.New("invalid patch format of setElementOrder list")

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
		if m.strategies[0] == retainKeysStrategy {
			return true, "", nil
		}
		return false, m.strategies[0], nil
	case 2:
		switch {
		case m.strategies[0] == retainKeysStrategy:
			return true, m.strategies[1], nil
		case m.strategies[1] == retainKeysStrategy:
			return true, m.strategies[0], nil
		}
	}
	return false, "", fmt.Errorf("unexpected patch strategy: %v", m.strategies)
}

// threeWayMergePatch is CreateThreeWayMergePatch with overwrite: the patch
// that takes current to modified and removes what original had and
// modified has not.
func threeWayMergePatch(original, modified, current []byte, schema patchSchema) ([]byte, error) {
	maps, err := unmarshalDocuments(original, modified, current)
	if err != nil {
		return nil, err
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

// unmarshalDocuments reads a patch's documents as kube does: JSON numbers
// as float64, an empty document as an empty object.
func unmarshalDocuments(docs ...[]byte) ([]map[string]any, error) {
	maps := make([]map[string]any, len(docs))
	for i, b := range docs {
		maps[i] = map[string]any{}
		if len(b) > 0 {
			if err := json.Unmarshal(b, &maps[i]); err != nil {
				return nil, errors.New("invalid JSON document")
			}
		}
	}
	return maps, nil
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
		if key == lists.DirectiveMarker {
			os, ok1 := ov.(string)
			ms, ok2 := mv.(string)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("invalid value for special key: %s", lists.DirectiveMarker)
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
		patch[lists.RetainKeysDirective] = sortScalars(retain)
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
	if strategy == lists.ReplaceDirective {
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
	if strategy != lists.MergeDirective {
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
		patch[lists.DeleteFromListPrefix+"/"+key] = del
	}
	if len(order) > 0 {
		patch[lists.SetElementOrderPrefix+"/"+key] = order
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
	kind, err := lists.ElementType(original, modified)
	if err != nil {
		return nil, nil, nil, err
	}
	switch kind {
	case reflect.Map:
		patch, deletions, err = diffListsOfMaps(original, modified, schema, mergeKey, o)
		if err != nil {
			return nil, nil, nil, err
		}
		if patch, err = lists.SortByOrder(patch, modified, mergeKey, kind); err != nil {
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
		return nil, nil, nil, lists.ErrNoListOfLists
	default:
		patch, deletions = diffListsOfScalars(original, modified, o)
		if patch, err = lists.SortByOrder(patch, modified, mergeKey, kind); err != nil {
			return nil, nil, nil, err
		}
		if !o.ignoreDeletions && len(deletions) > 0 || !o.ignoreChanges && !reflect.DeepEqual(original, modified) {
			order = modified
		}
	}
	return patch, deletions, order, nil
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
	return add, lists.DedupScalars(del)
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
				deletions = append(deletions, map[string]any{mergeKey: ok, lists.DirectiveMarker: lists.DeleteDirective})
			}
			i++
		}
	}
	return patch, deletions, nil
}

// sameOrder says whether two lists have the same elements in the same
// order (kube's isOrderSame).
func sameOrder(original, modified []any, mergeKey string) (bool, error) {
	if len(original) != len(modified) {
		return false, nil
	}
	for i := range modified {
		eq, err := lists.SameMergeKey(original[i], modified[i], mergeKey)
		if err != nil || !eq {
			return eq, err
		}
	}
	return true, nil
}

// elementAndKey is a list element and its merge key's value.
func elementAndKey(v any, mergeKey string) (map[string]any, any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil, lists.BadArgType("map[string]interface {}", v)
	}
	k, ok := m[mergeKey]
	if !ok {
		return nil, nil, lists.NoMergeKey(m, mergeKey)
	}
	return m, k, nil
}

// byString is kube's order of scalars and merge keys: their %v strings,
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

// mergePatches merges the delta into the deletions as kube's mergeMap does
// with MergeOptions{} (directives kept, nulls kept, parallel lists not
// merged).
func mergePatches(original, patch map[string]any, schema patchSchema) (map[string]any, error) {
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
	if rk, ok := patch[lists.RetainKeysDirective]; ok {
		delete(patch, lists.RetainKeysDirective)
		if ork, ok := original[lists.RetainKeysDirective]; ok {
			if !reflect.DeepEqual(ork, rk) {
				return nil, fmt.Errorf("%v and %v are not deep equal: this may happen when calculating the 3-way diff patch", ork, rk)
			}
		} else {
			original[lists.RetainKeysDirective] = rk
		}
	}
	if err := mergeElementOrders(original, patch, schema); err != nil {
		return nil, err
	}
	for k, pv := range patch {
		if strings.HasPrefix(k, lists.DeleteFromListPrefix) {
			original[k] = pv
			continue
		}
		if pv == nil {
			original[k] = nil
			continue
		}
		ov, ok := original[k]
		if !ok || reflect.TypeOf(ov) != reflect.TypeOf(pv) {
			lists.SetWithoutDirectives(original, k, pv)
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
			if strategy == lists.ReplaceDirective {
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
			if strategy == lists.MergeDirective {
				original[k], err = mergeLists(ov, pv.([]any), sub, meta.mergeKey)
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

// mergeElementOrders moves the patch's $setElementOrder lists into
// original and merges the lists they order (mergePatchIntoOriginal).
func mergeElementOrders(original, patch map[string]any, schema patchSchema) error {
	for key, order := range patch {
		if !strings.HasPrefix(key, lists.SetElementOrderPrefix) {
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
			return lists.BadArgType("[]interface {}", order)
		}
		parts := strings.SplitN(key, "/", 2)
		if len(parts) < 2 || parts[0] != lists.SetElementOrderPrefix {
			return errBadSetElementOrder
		}
		field := parts[1]
		ov, inOriginal := original[field]
		pv, inPatch := patch[field]
		var ol, pl []any
		if inOriginal {
			if ol, ok = ov.([]any); !ok {
				return lists.BadArgType("[]interface {}", ov)
			}
		}
		if inPatch {
			if pl, ok = pv.([]any); !ok {
				return lists.BadArgType("[]interface {}", pv)
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
		if err := lists.CheckOrder(pl, orderList, meta.mergeKey); err != nil {
			return err
		}
		var merged []any
		switch {
		case inOriginal && !inPatch:
			merged = ol
		case !inOriginal && inPatch:
			v, _ := lists.RemoveDirectives(pl)
			merged = v.([]any)
		case inOriginal && inPatch:
			if strategy == lists.MergeDirective {
				if merged, err = mergeLists(ol, pl, sub, meta.mergeKey); err != nil {
					return err
				}
			} else {
				merged = pl
			}
		default:
			continue
		}
		all, err := lists.OrderedBy(merged, orderList, ol, pl, meta.mergeKey)
		if err != nil {
			return err
		}
		original[field] = all
		delete(patch, field)
	}
	return nil
}

// mergeLists merges a patch's merged list into another's (mergeSlice).
func mergeLists(original, patch []any, schema patchSchema, mergeKey string) ([]any, error) {
	if len(original) == 0 && len(patch) == 0 {
		return original, nil
	}
	kind, err := lists.ElementType(original, patch)
	if err != nil {
		return nil, err
	}
	var merged []any
	if kind != reflect.Map {
		merged = lists.DedupScalars(append(original, patch...))
	} else {
		if mergeKey == "" {
			return nil, fmt.Errorf("cannot merge lists without merge key for %s", schema.name())
		}
		var err error
		if original, patch, err = lists.ApplyElementDirectives(original, patch, mergeKey); err != nil {
			return nil, err
		}
		// merged shares original's elements, as kube's does: the server's
		// order below is original's, before the patch's were appended.
		merged = original
		for _, v := range patch {
			m := v.(map[string]any)
			k, ok := m[mergeKey]
			if !ok {
				return nil, lists.NoMergeKey(m, mergeKey)
			}
			em, i, found, err := lists.FindByKey(merged, mergeKey, k)
			if err != nil {
				return nil, err
			}
			if found {
				if merged[i], err = mergePatches(em, m, schema); err != nil {
					return nil, err
				}
			} else {
				merged = append(merged, v)
			}
		}
	}
	inPatch, serverOnly, err := lists.Partition(merged, patch, mergeKey)
	if err != nil {
		return nil, err
	}
	return lists.NormalizeOrder(inPatch, serverOnly, patch, original, mergeKey, kind)
}
