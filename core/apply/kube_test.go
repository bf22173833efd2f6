package apply

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	fuzz "github.com/google/gofuzz"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v4/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v4/typed"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/kinds"
	"kubeplay/core/object"
)

// The differential tests: kubeplay's FieldManager against kube's own
// (k8s.io/apimachinery's managedfields, the field manager kube-apiserver runs)
// on the same structured-merge-diff schemas, over random sequences of updates
// and applies by several managers to fuzzed objects. Each step must give the
// same managedFields (managers, operations, subresources, fields, whether a
// time is set), the same object from an apply, and the same errors and
// conflicts.

// diffKinds are the kinds the differential tests write, with a typed object to
// fuzz.
var diffKinds = []struct {
	res *api.Resource
	new func() runtime.Object
}{
	{servedResource("ConfigMap"), func() runtime.Object { return &corev1.ConfigMap{} }},
	{servedResource("Service"), func() runtime.Object { return &corev1.Service{} }},
	{servedResource("Deployment"), func() runtime.Object { return &appsv1.Deployment{} }},
	{servedResource("Pod"), func() runtime.Object { return &corev1.Pod{} }},
}

func servedResource(kind string) *api.Resource {
	for _, r := range kinds.All() {
		if r.Kind == kind {
			return r
		}
	}
	panic(kind)
}

// kubeTypeConverter is kube's TypeConverter on kubeplay's schemas.
type kubeTypeConverter struct{ t typed.ParseableType }

func (c kubeTypeConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	return c.t.FromUnstructured(obj.(*unstructured.Unstructured).Object, opts...)
}

func (c kubeTypeConverter) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	return &unstructured.Unstructured{Object: v.AsValue().Unstructured().(map[string]any)}, nil
}

// identity converts nothing: every object is of the kind's one version.
type identity struct{}

func (identity) Convert(in, out, context any) error { return errors.New("not implemented") }
func (identity) ConvertToVersion(in runtime.Object, _ runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}
func (identity) ConvertFieldLabel(kschema.GroupVersionKind, string, string) (string, string, error) {
	return "", "", errors.New("not implemented")
}

type noDefaults struct{}

func (noDefaults) Default(runtime.Object) {}

// zeroCreater makes the kind's zero object, as kube's scheme does for typed kinds.
type zeroCreater struct{ res *api.Resource }

func (z zeroCreater) New(kschema.GroupVersionKind) (runtime.Object, error) {
	return toKube(z.res, zeroObject(z.res)), nil
}

func kubeFieldManager(t testing.TB, res *api.Resource, sub string) *managedfields.FieldManager {
	t.Helper()
	pt, err := kindType(res)
	if err != nil {
		t.Fatal(err)
	}
	gvk := kschema.GroupVersionKind{Group: res.Group, Version: res.Version, Kind: res.Kind}
	var reset map[fieldpath.APIVersion]*fieldpath.Set
	if set := resetFields(res, sub); set != nil {
		reset = map[fieldpath.APIVersion]*fieldpath.Set{fieldpath.APIVersion(res.APIVersion()): set}
	}
	fm, err := managedfields.NewDefaultFieldManager(kubeTypeConverter{pt}, identity{}, noDefaults{}, zeroCreater{res},
		gvk, gvk.GroupVersion(), sub, fieldpath.NewExcludeFilterSetMap(reset))
	if err != nil {
		t.Fatal(err)
	}
	return fm
}

// toKube is an object in kube's unstructured form, with its kind and apiVersion.
func toKube(res *api.Resource, obj object.Object) *unstructured.Unstructured {
	u := smdValue(obj).(map[string]any)
	u["apiVersion"], u["kind"] = res.APIVersion(), res.Kind
	return &unstructured.Unstructured{Object: u}
}

// fromJSONValue is a value of kube's unstructured form in core/object's form.
func fromJSONValue(t testing.TB, v any) object.Object {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := object.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// objectFuzzer fills typed objects with few, short, often equal values, so that
// managers touch the same fields with the same or other values.
func objectFuzzer(rnd *rand.Rand) *fuzz.Fuzzer {
	words := []string{"a", "b", "c"}
	return fuzz.New().RandSource(rnd).NilChance(0.4).NumElements(0, 2).MaxDepth(8).Funcs(
		func(s *string, c fuzz.Continue) { *s = words[c.Intn(len(words))] },
		func(m *metav1.ObjectMeta, c fuzz.Continue) {
			c.Fuzz(&m.Labels)
			c.Fuzz(&m.Annotations)
		},
		func(tm *metav1.Time, c fuzz.Continue) {
			if c.RandBool() {
				*tm = metav1.NewTime(time.Unix(1700000000+int64(c.Intn(3)), 0))
			}
		},
		func(tm *metav1.MicroTime, c fuzz.Continue) {},
		func(q *resource.Quantity, c fuzz.Continue) { *q = resource.MustParse(fmt.Sprint(c.Intn(3))) },
		func(v *intstr.IntOrString, c fuzz.Continue) {
			if c.RandBool() {
				*v = intstr.FromInt32(int32(c.Intn(3)))
			} else {
				*v = intstr.FromString(words[c.Intn(len(words))])
			}
		},
		func(r *runtime.RawExtension, c fuzz.Continue) {},
		// kubeplay reads a null []byte as empty (kube writes it back null).
		func(b *[]byte, c fuzz.Continue) { *b = []byte(words[c.Intn(len(words))]) },
		func(i *int32, c fuzz.Continue) { *i = int32(c.Intn(3)) },
		func(i *int64, c fuzz.Continue) { *i = int64(c.Intn(3)) },
	)
}

// fuzzed is a random object of the kind as kube's typed object writes it
// (every field without omitempty there), named "x".
func fuzzed(t testing.TB, kind int, f *fuzz.Fuzzer) map[string]any {
	t.Helper()
	obj := diffKinds[kind].new()
	f.Fuzz(obj)
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	res := diffKinds[kind].res
	u["apiVersion"], u["kind"] = res.APIVersion(), res.Kind
	meta, _ := u["metadata"].(map[string]any)
	meta["name"] = "x"
	delete(meta, "creationTimestamp")
	return u
}

// sparse is a random part of v (an applied configuration is): fields and list
// items dropped, nulls and empty maps left out. Keys of list items, kind,
// apiVersion and metadata.name are kept.
func sparse(rnd *rand.Rand, v any, depth int) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for _, k := range sortedKeys(v) {
			keep := depth == 0 && (k == "apiVersion" || k == "kind" || k == "metadata") ||
				depth == 1 && k == "name" || k == "name" || k == "containerPort" || k == "port" || k == "protocol" || rnd.Intn(3) > 0
			if !keep || v[k] == nil {
				continue
			}
			e := sparse(rnd, v[k], depth+1)
			if m, ok := e.(map[string]any); ok && len(m) == 0 && depth > 0 {
				continue
			}
			out[k] = e
		}
		return out
	case []any:
		var out []any
		for _, e := range v {
			if rnd.Intn(4) > 0 {
				out = append(out, sparse(rnd, e, depth+1))
			}
		}
		if out == nil {
			out = []any{}
		}
		return out
	}
	return v
}

// mixed is a with parts of b: each field of a map, at random, from a or b.
func mixed(rnd *rand.Rand, a, b any) any {
	am, ok1 := a.(map[string]any)
	bm, ok2 := b.(map[string]any)
	if !ok1 || !ok2 {
		if rnd.Intn(2) == 0 {
			return a
		}
		return b
	}
	out := map[string]any{}
	for _, k := range sortedKeys(am) {
		out[k] = am[k]
	}
	for _, k := range sortedKeys(bm) {
		switch {
		case k == "metadata" || k == "apiVersion" || k == "kind":
		case rnd.Intn(3) == 0:
			delete(out, k)
		case rnd.Intn(2) == 0:
			if _, ok := out[k]; ok {
				out[k] = mixed(rnd, out[k], bm[k])
			} else {
				out[k] = bm[k]
			}
		}
	}
	if meta, ok := out["metadata"].(map[string]any); ok {
		meta = copyMap(meta)
		if bmeta, ok := bm["metadata"].(map[string]any); ok && rnd.Intn(2) == 0 {
			meta["labels"] = bmeta["labels"]
		}
		out["metadata"] = meta
	}
	return out
}

func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return maps.Clone(m)
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// entryView is a managedFields entry as compared: time only as set or not.
type entryView struct {
	Manager, Operation, APIVersion, Subresource, FieldsType, Fields string
	Timed                                                           bool
}

func viewEntries(t testing.TB, entries []any) []entryView {
	t.Helper()
	var out []entryView
	for _, e := range entries {
		m := e.(map[string]any)
		str := func(k string) string { s, _ := m[k].(string); return s }
		fields, err := json.Marshal(m["fieldsV1"])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entryView{str("manager"), str("operation"), str("apiVersion"), str("subresource"), str("fieldsType"), string(fields), m["time"] != nil})
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

// errView is an error as compared: its code, reason, message and causes.
func errView(err error) string {
	if err == nil {
		return "<nil>"
	}
	var kst kerrors.APIStatus
	if errors.As(err, &kst) {
		s := kst.Status()
		var causes []string
		if s.Details != nil {
			for _, c := range s.Details.Causes {
				causes = append(causes, string(c.Type)+" "+c.Message+" "+c.Field)
			}
		}
		sort.Strings(causes)
		return fmt.Sprintf("%d %s %s %v", s.Code, s.Reason, s.Message, causes)
	}
	var st *apierrors.Status
	if errors.As(err, &st) {
		var causes []string
		if st.Details != nil {
			for _, c := range st.Details.Causes {
				causes = append(causes, c.Type+" "+c.Message+" "+c.Field)
			}
		}
		sort.Strings(causes)
		if st.Code == 500 && st.Reason == "" {
			return st.Message // kube's plain errors
		}
		return fmt.Sprintf("%d %s %s %v", st.Code, st.Reason, st.Message, causes)
	}
	return err.Error()
}

// differentialRun plays one random sequence of writes, seeded by seed, on both
// field managers and fails at the first difference.
func differentialRun(t *testing.T, seed int64, kind int) {
	rnd := rand.New(rand.NewSource(seed))
	f := objectFuzzer(rnd)
	res := diffKinds[kind].res
	managers := []string{"alice", "bob", "kubectl", "unknown", "ctl"}
	subs := []string{""}
	if res.Sub("status") != nil {
		subs = append(subs, "status")
	}
	kubeFM := map[string]*managedfields.FieldManager{}
	for _, sub := range subs {
		kubeFM[sub] = kubeFieldManager(t, res, sub)
	}
	var kp FieldManager
	base := fuzzed(t, kind, f)
	var kubeLive *unstructured.Unstructured // nil: no object yet
	var kpLive object.Object
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for step := 0; step < 8; step++ {
		now = now.Add(time.Second)
		manager := managers[rnd.Intn(len(managers))]
		sub := subs[rnd.Intn(len(subs))]
		if kubeLive == nil {
			sub = ""
		}
		var kubeObj runtime.Object
		var kubeErr, kpErr error
		var kpObj object.Object
		what := ""
		if rnd.Intn(2) == 0 {
			// An update: the live object with random changes (a create first).
			next := mixed(rnd, base, fuzzed(t, kind, f)).(map[string]any)
			if kubeLive != nil {
				next = mixed(rnd, kubeLive.DeepCopy().Object, next).(map[string]any)
			}
			meta, _ := next["metadata"].(map[string]any)
			switch rnd.Intn(6) {
			case 0: // a client resets managedFields
				meta["managedFields"] = []any{map[string]any{}}
			case 1: // or sends garbage
				meta["managedFields"] = []any{map[string]any{"manager": "x", "operation": "Bogus"}}
			case 2: // or sends them back edited
				if kubeLive != nil {
					if mf, ok := kubeLive.Object["metadata"].(map[string]any)["managedFields"].([]any); ok && len(mf) > 0 {
						e := copyMap(mf[0].(map[string]any))
						e["manager"] = "edited"
						meta["managedFields"] = append([]any{e}, mf[1:]...)
					}
				}
			default:
				delete(meta, "managedFields")
			}
			if rnd.Intn(3) == 0 {
				// As client-side apply does: what it applies, in an annotation.
				lastApplied := sparse(rnd, next, 0).(map[string]any)
				delete(lastApplied["metadata"].(map[string]any), "managedFields")
				annotations, _ := meta["annotations"].(map[string]any)
				annotations = copyMap(annotations)
				annotations["kubectl.kubernetes.io/last-applied-configuration"] = mustJSON(lastApplied)
				meta["annotations"] = annotations
				manager = "kubectl-client-side-apply"
			}
			what = fmt.Sprintf("update by %s (%s)", manager, sub)
			live := kubeLive
			if live == nil {
				live = toKube(res, zeroObject(res))
			}
			// Both update with kube's typed form of the object.
			next = typedShape(t, kind, next)
			if debugDiff {
				t.Logf("step %d: %s\nlive %s\nnew %s", step, what, mustJSON(live), mustJSON(next))
			}
			kubeObj, kubeErr = kubeFM[sub].Update(live, (&unstructured.Unstructured{Object: next}).DeepCopy(), manager)
			kpObj = kp.Update(res, sub, manager, now, kpLive, fromJSONValue(t, next))
		} else {
			force := rnd.Intn(3) == 0
			config := sparse(rnd, mixed(rnd, base, fuzzed(t, kind, f)), 0).(map[string]any)
			what = fmt.Sprintf("apply by %s (%s, force %v) of %s", manager, sub, force, mustJSON(config))
			live := kubeLive
			if live == nil {
				live = toKube(res, zeroObject(res))
			}
			kubeObj, kubeErr = kubeFM[sub].Apply(live, (&unstructured.Unstructured{Object: config}).DeepCopy(), manager, force)
			kpObj, kpErr = kp.Apply(res, sub, manager, now, kpLive, fromJSONValue(t, config), force)
		}
		if ke, ae := sortedLines(errView(kubeErr)), sortedLines(errView(kpErr)); ke != ae {
			t.Fatalf("seed %d step %d: %s\nkube error: %s\n  kubeplay: %s", seed, step, what, ke, ae)
		}
		if kubeErr != nil {
			continue
		}
		kubeU := kubeObj.(*unstructured.Unstructured)
		kubeMF, _ := kubeU.Object["metadata"].(map[string]any)["managedFields"]
		if kubeMF != nil {
			// kube keeps them typed; its JSON is what clients see.
			kubeMF = fromJSONValue(t, map[string]any{"m": mustKubeManagedFields(t, kubeU)})["m"]
		}
		kpMF := object.Meta(kpObj)["managedFields"]
		kubeEntries, _ := kubeMF.([]any)
		kpEntries, _ := kpMF.([]any)
		if k, a := viewEntries(t, kubeEntries), viewEntries(t, kpEntries); !reflect.DeepEqual(k, a) {
			t.Fatalf("seed %d step %d: %s\nkube managedFields:\n %v\nkubeplay:\n %v", seed, step, what, k, a)
		}
		// The objects as stored and read back typed, with a uid (which tells
		// kube's field manager an update from a create).
		kubeNext := typedShape(t, kind, kubeU.Object)
		kpNext := typedShape(t, kind, jsonValue(t, kpObj))
		if !reflect.DeepEqual(withoutManagedFields(kubeNext), withoutManagedFields(kpNext)) {
			t.Fatalf("seed %d step %d: %s\nkube object:\n %s\nkubeplay:\n %s", seed, step, what, mustJSON(kubeNext), mustJSON(kpNext))
		}
		kubeLive = &unstructured.Unstructured{Object: kubeNext}
		kubeLive.SetUID("u")
		kpLive = fromJSONValue(t, kubeLive.Object)
		object.Meta(kpLive)["managedFields"] = object.Meta(kpObj)["managedFields"]
	}
}

// typedShape is u as kube's typed object of the kind writes it: every field
// without omitempty there, unknown fields gone.
func typedShape(t testing.TB, kind int, u map[string]any) map[string]any {
	t.Helper()
	obj := diffKinds[kind].new()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, obj); err != nil {
		t.Fatal(err)
	}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	res := diffKinds[kind].res
	out["apiVersion"], out["kind"] = res.APIVersion(), res.Kind
	return out
}

// jsonValue is an object of core/object's form as kube's unstructured form
// holds it.
func jsonValue(t testing.TB, obj object.Object) map[string]any {
	t.Helper()
	var u map[string]any
	if err := json.Unmarshal([]byte(mustJSON(obj)), &u); err != nil {
		t.Fatal(err)
	}
	return u
}

func withoutManagedFields(u map[string]any) map[string]any {
	c := (&unstructured.Unstructured{Object: u}).DeepCopy()
	c.SetManagedFields(nil)
	return c.Object
}

// mustKubeManagedFields are the managedFields of a kube object as its JSON
// writes them.
func mustKubeManagedFields(t testing.TB, u *unstructured.Unstructured) []metav1.ManagedFieldsEntry {
	t.Helper()
	return u.GetManagedFields()
}

// sortedLines is s with its lines sorted: structured-merge-diff lists a
// value's errors in no particular order.
func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var debugDiff = false

// TestK8S_WRITE_2_FieldManagerMatchesKube runs the differential test over many
// seeds for each kind (DIFF_SEED=seed/kind replays one, logging each update).
func TestK8S_WRITE_2_FieldManagerMatchesKube(t *testing.T) {
	if s := os.Getenv("DIFF_SEED"); s != "" {
		debugDiff = true
		var seed int64
		var kind int
		fmt.Sscanf(s, "%d/%d", &seed, &kind)
		differentialRun(t, seed, kind)
		return
	}
	n := 40 // the fuzz target explores more
	if testing.Short() {
		n = 10
	}
	for kind := range diffKinds {
		t.Run(diffKinds[kind].res.Kind, func(t *testing.T) {
			for seed := int64(1); seed <= int64(n); seed++ {
				differentialRun(t, seed, kind)
			}
		})
	}
}

// FuzzK8S_WRITE_2_FieldManagerMatchesKube explores more sequences.
func FuzzK8S_WRITE_2_FieldManagerMatchesKube(f *testing.F) {
	f.Fuzz(func(t *testing.T, seed int64, kind uint8) {
		differentialRun(t, seed, int(kind)%len(diffKinds))
	})
}
