package table

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/util/jsonpath"

	"kubeplay/core/object"
)

// fuzzCustom exercises every column type and path shape of ForCustom.
var fuzzCustom = func() *Printer {
	p, err := ForCustom([]CustomColumn{
		{Name: "S", Type: "string", JSONPath: ".spec"},
		{Name: "I", Type: "integer", JSONPath: ".spec.replicas"},
		{Name: "N", Type: "number", JSONPath: ".status.ratio"},
		{Name: "B", Type: "boolean", JSONPath: ".spec.suspend"},
		{Name: "D", Type: "date", JSONPath: ".status.startTime"},
		{Name: "F", Type: "string", JSONPath: `.status.conditions[?(@.type=="Ready")].status`},
		{Name: "X", Type: "string", JSONPath: ".spec.containers[*].ports[-1:].name"},
		{Name: "W", Type: "string", JSONPath: ".metadata.*"},
	})
	if err != nil {
		panic(err)
	}
	return p
}()

// FuzzPrinters feeds arbitrary objects to every printer and to Build: no panic,
// one cell per column, cells of the JSON types kube emits, and a Table that
// decodes as a metav1.Table. Seeds: testdata/fuzz/FuzzPrinters (the fixtures).
func FuzzPrinters(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"x"}}`))
	printers := []*Printer{Default, fuzzCustom}
	for _, p := range builtins {
		printers = append(printers, p)
	}
	now := time.Date(2026, 11, 23, 11, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := object.Decode(data)
		if err != nil {
			return
		}
		for _, p := range printers {
			cells := p.Cells(obj, now)
			if len(cells) != len(p.Columns()) {
				t.Fatalf("%d cells for %d columns", len(cells), len(p.Columns()))
			}
			for _, c := range cells {
				switch c.(type) {
				case nil, string, int64, float64, bool:
				default:
					t.Fatalf("cell of type %T", c)
				}
			}
			for _, include := range []IncludeObject{IncludeNone, IncludeMetadata, IncludeObjects} {
				b, err := Build(nil, p, []Item{{Object: obj, Kind: "Thing", APIVersion: "v1"}}, Options{Version: "v1", Include: include, Now: now})
				if err != nil {
					continue // an object.Encode failure, reported to the caller
				}
				var tbl metav1.Table
				if err := json.Unmarshal(b, &tbl); err != nil {
					t.Fatalf("Build gave %s: %v", b, err)
				}
			}
		}
	})
}

// FuzzJSONPath checks the CRD column paths against client-go's JSONPath, which
// kube-apiserver uses: a path this package accepts parses there too, and both
// find the same first value (or both find none). Seeds: testdata/fuzz/FuzzJSONPath.
func FuzzJSONPath(f *testing.F) {
	f.Add(".spec.a[0].b", []byte(`{"spec":{"a":[{"b":1}]}}`))
	f.Fuzz(func(t *testing.T, path string, data []byte) {
		mine, err := parseJSONPath(path)
		if err != nil {
			return
		}
		input, ok := decodeAny(data)
		if !ok || input == nil {
			return // kube evaluates paths on objects, never on null
		}
		got, gotErr := mine.eval([]any{input})

		jp := jsonpath.New("fuzz")
		if err := jp.Parse("{" + path + "}"); err != nil {
			t.Fatalf("client-go rejects %q: %v", path, err)
		}
		jp.AllowMissingKeys(true)
		var want []reflect.Value
		results, wantErr := jp.FindResults(unstructured(input))
		if wantErr == nil && len(results) > 0 {
			want = results[0]
		}
		if (gotErr != nil || len(got) == 0) != (wantErr != nil || len(want) == 0) {
			t.Fatalf("%q on %s: got %v (%v), client-go %v (%v)", path, data, got, gotErr, values(want), wantErr)
		}
		if len(got) == 0 || gotErr != nil {
			return
		}
		if strings.Contains(strings.ReplaceAll(path, "[*]", ""), "*") {
			// client-go's .* visits a map in random order: any of its values
			// may come first.
			for _, w := range want {
				if reflect.DeepEqual(unstructured(got[0]), w.Interface()) {
					return
				}
			}
			t.Fatalf("%q on %s: got %#v, not among client-go's %v", path, data, unstructured(got[0]), values(want))
		}
		if !reflect.DeepEqual(unstructured(got[0]), want[0].Interface()) {
			t.Fatalf("%q on %s: got %#v, client-go %#v", path, data, unstructured(got[0]), want[0].Interface())
		}
	})
}

// decodeAny decodes any JSON value with json.Number, as stored objects hold.
func decodeAny(data []byte) (any, bool) {
	var v any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&v); err != nil || d.More() {
		return nil, false
	}
	return v, true
}

func values(vs []reflect.Value) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v.Interface()
	}
	return out
}

func TestK8S_ENC_5_HumanDurationMatchesApimachinery(t *testing.T) {
	var ds []time.Duration
	for s := -5; s < 3*60*60; s += 7 {
		ds = append(ds, time.Duration(s)*time.Second+time.Duration(s%3)*300*time.Millisecond)
	}
	for h := 0; h < 24*365*10; h += 5 {
		ds = append(ds, time.Duration(h)*time.Hour, time.Duration(h)*time.Hour+17*time.Minute)
	}
	for _, d := range ds {
		if got, want := humanDuration(d), duration.HumanDuration(d); got != want {
			t.Fatalf("humanDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
