package patch

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"

	fuzz "github.com/google/gofuzz"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"kubeplay/core/types"
)

// strategicKind is a built-in kind the differential test patches.
type strategicKind struct {
	apiVersion, kind string
	newObj           func() any
}

var strategicKinds = []strategicKind{
	{"apps/v1", "Deployment", func() any { return &appsv1.Deployment{} }},
	{"apps/v1", "StatefulSet", func() any { return &appsv1.StatefulSet{} }},
	{"v1", "Pod", func() any { return &corev1.Pod{} }},
	{"v1", "Service", func() any { return &corev1.Service{} }},
	{"v1", "ConfigMap", func() any { return &corev1.ConfigMap{} }},
	{"v1", "Node", func() any { return &corev1.Node{} }},
	{"v1", "Endpoints", func() any { return &corev1.Endpoints{} }},
}

// kubeStrategic is kube's answer: StrategicMergeMapPatch on copies, with the
// error text; a panic of kube's library (which kube-apiserver answers with a
// 500) is reported as panicked.
func kubeStrategic(k strategicKind, original, p map[string]any) (out map[string]any, msg string, panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	out, err := strategicpatch.StrategicMergeMapPatch(runtime.DeepCopyJSON(original), runtime.DeepCopyJSON(p), k.newObj())
	if err != nil {
		return nil, err.Error(), false
	}
	return out, "", false
}

// ourStrategic is the engine's answer on copies.
func ourStrategic(t testing.TB, k strategicKind, original, p map[string]any) (map[string]any, string) {
	schema, ok := types.KindPatchSchema(k.apiVersion, k.kind)
	if !ok {
		t.Fatalf("no schema for %s", k.kind)
	}
	out, err := merge(runtime.DeepCopyJSON(original), runtime.DeepCopyJSON(p), schema)
	if err != nil {
		return nil, err.Error()
	}
	return out, ""
}

// compareStrategic checks the engine against kube's library on one object and
// patch: the same result, or the same error. kube visits a patch's keys in Go's
// random map order, so a patch with several faults fails with any of them:
// both run again until they agree (or not, within a bound). Errors that print Go values compare by their first words.
func compareStrategic(t testing.TB, k strategicKind, original, p map[string]any) {
	t.Helper()
	var got, want map[string]any
	var gotErr, wantErr string
	for try := 0; try < 200; try++ {
		var panicked bool
		if want, wantErr, panicked = kubeStrategic(k, original, p); panicked {
			return // kubeplay answers an error instead
		}
		got, gotErr = ourStrategic(t, k, original, p)
		if gotErr != "" || wantErr != "" {
			if errorShape(wantErr) == errorShape(gotErr) {
				return
			}
			continue
		}
		if reflect.DeepEqual(got, want) {
			return
		}
	}
	if gotErr != "" || wantErr != "" {
		t.Fatalf("%s: errors differ\npatch %s\n got %q\nwant %q", k.kind, jsonOf(p), gotErr, wantErr)
	}
	t.Fatalf("%s: results differ\noriginal %s\npatch %s\n got %s\nwant %s", k.kind, jsonOf(original), jsonOf(p), jsonOf(got), jsonOf(want))
}

// errorShape is an error's text up to where it prints a Go value.
func errorShape(s string) string {
	for _, cut := range []string{" in map:", "map[", "list element types", "The order in patch list"} {
		if i := strings.Index(s, cut); i >= 0 {
			s = s[:i]
		}
	}
	return s
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// fuzzedObject is a random object of k's Go type in kube's unstructured form.
func fuzzedObject(f *fuzz.Fuzzer, k strategicKind) map[string]any {
	obj := k.newObj()
	f.Fuzz(obj)
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		panic(err)
	}
	return u
}

// newFuzzer makes small objects: few elements, many nils, a few merge key
// values so that list elements meet.
func newFuzzer(seed int64) *fuzz.Fuzzer {
	names := []string{"a", "b", "c"}
	return fuzz.NewWithSeed(seed).NilChance(0.7).NumElements(0, 3).MaxDepth(6).Funcs(
		func(s *string, c fuzz.Continue) { *s = names[c.Intn(len(names))] },
	)
}

// patches makes strategic merge patches for original: kube's own two-way
// patches to a modified object (directives and all), the modified object
// itself, and those with directives sprinkled in at random.
func patches(r *rand.Rand, f *fuzz.Fuzzer, k strategicKind, original map[string]any) []map[string]any {
	modified := runtime.DeepCopyJSON(original)
	other := fuzzedObject(f, k)
	for key, v := range other {
		if r.Intn(2) == 0 {
			modified[key] = v
		}
	}
	var out []map[string]any
	ob, _ := json.Marshal(original)
	mb, _ := json.Marshal(modified)
	if p, err := strategicpatch.CreateTwoWayMergePatch(ob, mb, k.newObj()); err == nil {
		var m map[string]any
		if json.Unmarshal(p, &m) == nil {
			out = append(out, toUnstructured(m))
		}
	}
	out = append(out, runtime.DeepCopyJSON(other))
	for _, p := range append([]map[string]any(nil), out...) {
		q := runtime.DeepCopyJSON(p)
		sprinkle(r, q)
		out = append(out, q)
	}
	return out
}

// toUnstructured turns encoding/json's float64 numbers into kube's int64 when
// integral.
func toUnstructured(v map[string]any) map[string]any {
	b, _ := json.Marshal(v)
	m, err := decodeUnstructured(b)
	if err != nil {
		panic(err)
	}
	return m
}

// sprinkle adds directives at random places of a patch.
func sprinkle(r *rand.Rand, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sprinkle(r, v[k])
			switch list, isList := v[k].([]any); {
			case r.Intn(20) == 0:
				v[k] = nil
			case isList && r.Intn(6) == 0:
				order := append([]any(nil), list...)
				r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
				v["$setElementOrder/"+k] = order
			case isList && r.Intn(10) == 0:
				v["$deleteFromPrimitiveList/"+k] = list
			}
		}
		switch r.Intn(40) {
		case 0:
			v["$patch"] = "replace"
		case 1:
			v["$patch"] = "delete"
		case 2:
			v["$patch"] = []string{"merge", "bogus"}[r.Intn(2)]
		case 3:
			rk := []any{}
			for _, k := range keys {
				if r.Intn(3) > 0 {
					rk = append(rk, k)
				}
			}
			v["$retainKeys"] = rk
		}
	case []any:
		for _, e := range v {
			sprinkle(r, e)
		}
	}
}

// TestK8S_WRITE_2_StrategicMatchesKube: on random objects of the built-in
// kinds and random patches (kube's own two-way patches, with and without
// directives sprinkled in), the engine makes what
// k8s.io/apimachinery/pkg/util/strategicpatch makes, or fails as it fails.
func TestK8S_WRITE_2_StrategicMatchesKube(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 50
	}
	for i := 0; i < n; i++ {
		seed := int64(i)
		r := rand.New(rand.NewSource(seed))
		f := newFuzzer(seed)
		k := strategicKinds[i%len(strategicKinds)]
		original := fuzzedObject(f, k)
		for _, p := range patches(r, f, k, original) {
			compareStrategic(t, k, original, p)
		}
	}
}

// TestK8S_WRITE_2_StrategicDirectives: the directives on a Deployment, each
// as kube's library applies it.
func TestK8S_WRITE_2_StrategicDirectives(t *testing.T) {
	k := strategicKinds[0]
	var original map[string]any
	if err := json.Unmarshal([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web","tier":"fe"},"finalizers":["a","b","c"]},
	"spec":{"replicas":2,"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}},"template":{"spec":{
	"containers":[{"name":"web","image":"nginx","ports":[{"containerPort":80},{"containerPort":443}],"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},{"name":"side","image":"busybox"}],
	"volumes":[{"name":"v","emptyDir":{}}]}}}}`), &original); err != nil {
		t.Fatal(err)
	}
	original = toUnstructured(original)
	for _, p := range []string{
		`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}`,
		`{"spec":{"template":{"spec":{"containers":[{"name":"new","image":"x"}]}}}}`,
		`{"spec":{"template":{"spec":{"containers":[{"name":"side","$patch":"delete"}]}}}}`,
		`{"spec":{"template":{"spec":{"containers":[{"name":"only","image":"x"},{"$patch":"replace"}]}}}}`,
		`{"spec":{"template":{"spec":{"containers":[{"$patch":"merge"}]}}}}`,
		`{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}`,
		`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"side"},{"name":"web"}],"containers":[{"name":"web","image":"y"}]}}}}`,
		`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"}],"containers":[{"name":"side","image":"y"}]}}}}`,
		`{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"B","$patch":"delete"},{"name":"C","value":"3"}],"$setElementOrder/env":[{"name":"C"},{"name":"A"}]}]}}}}`,
		`{"metadata":{"$deleteFromPrimitiveList/finalizers":["b"],"finalizers":["d"]}}`,
		`{"metadata":{"$setElementOrder/finalizers":["c","a","b"]}}`,
		`{"metadata":{"$deleteFromPrimitiveList":["b"]}}`,
		`{"metadata":{"$setElementOrder":["b"]}}`,
		`{"metadata":{"labels":{"$patch":"replace","new":"x"}}}`,
		`{"metadata":{"labels":{"$patch":"delete"}}}`,
		`{"metadata":{"labels":{"app":null,"x":"y"}}}`,
		`{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}}`,
		`{"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":{"maxSurge":2}}}}`,
		`{"spec":{"strategy":{"$retainKeys":"type"}}}`,
		`{"spec":{"template":{"spec":{"volumes":[{"name":"v","$retainKeys":["name","configMap"],"configMap":{"name":"cm"}}]}}}}`,
		`{"spec":{"template":{"spec":{"containers":[[1]]}}}}`,
		`{"spec":{"template":{"spec":{"containers":[{"name":"web","ports":[{"containerPort":80.0}]}]}}}}`,
		`{"spec":{"$setElementOrder/template":[1]}}`,
		`{"spec":{"$setElementOrder/nope":[1]}}`,
		`{"metadata":{"finalizers":[{"a":1}]}}`,
		`{"metadata":{"finalizers":[1]}}`,
		`{"$patch":"delete"}`,
		`{"$patch":5}`,
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(p), &m); err != nil {
			t.Fatal(err)
		}
		t.Run(p, func(t *testing.T) { compareStrategic(t, k, original, toUnstructured(m)) })
	}
}

// FuzzK8S_WRITE_2_Strategic (seeds in testdata/fuzz): a fuzzed patch body applied by the mechanism to
// a Deployment fails or succeeds as kube's library does, with the same
// result.
func FuzzK8S_WRITE_2_Strategic(f *testing.F) {
	k := strategicKinds[0]
	var original map[string]any
	_ = json.Unmarshal([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","finalizers":["a","b"]},"spec":{"replicas":1,"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}},"template":{"spec":{"containers":[{"name":"web","image":"nginx","ports":[{"containerPort":80}]}]}}}}`), &original)
	original = toUnstructured(original)
	f.Fuzz(func(t *testing.T, body string) {
		p, err := decodeUnstructured([]byte(body))
		if err != nil {
			return
		}
		compareStrategic(t, k, original, p)
	})
}
