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

	ourpath "kubeplay/core/jsonpath"
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

// FuzzCustomColumn checks a CRD column's cells against kube-apiserver's
// tableconvertor, which evaluates the path with client-go's JSONPath: the
// path parses or fails alike, and each column type's cell of the first value
// found is the same. Seeds: testdata/fuzz/FuzzCustomColumn.
func FuzzCustomColumn(f *testing.F) {
	f.Add(".spec.a[0].b", []byte(`{"spec":{"a":[{"b":1}]}}`))
	types := []string{"string", "integer", "number", "boolean", "date"}
	now := time.Date(2026, 11, 23, 11, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, path string, data []byte) {
		obj, err := object.Decode(data)
		if err != nil {
			return
		}
		jp := jsonpath.New("fuzz")
		parseErr := jp.Parse("{" + path + "}")
		jp.AllowMissingKeys(true)
		for _, typ := range types {
			p, err := ForCustom([]CustomColumn{{Name: "C", Type: typ, JSONPath: path}})
			if (err != nil) != (parseErr != nil) {
				t.Fatalf("%q: ours %v, client-go %v", path, err, parseErr)
			}
			if err != nil {
				return
			}
			got := p.Cells(obj, now)[1]
			results, err := jp.FindResults(unstructuredObject(obj))
			if err != nil || len(results) == 0 || len(results[0]) == 0 {
				if got != nil {
					t.Fatalf("%q (%s) on %s: got %#v, kube nil", path, typ, data, got)
				}
				continue
			}
			// kube's cell is of the first value found; client-go's .* and
			// .. visit a map in random order, so there any may come first.
			candidates := results[0][:1]
			if strings.Contains(strings.ReplaceAll(path, "[*]", ""), "*") || strings.Contains(path, "..") {
				candidates = results[0]
			}
			var want []any
			for _, v := range candidates {
				if want = append(want, kubeCell(jp, typ, v.Interface(), now)); reflect.DeepEqual(got, want[len(want)-1]) {
					break
				}
			}
			if !reflect.DeepEqual(got, want[len(want)-1]) {
				t.Fatalf("%q (%s) on %s: got %#v, kube %#v", path, typ, data, got, want)
			}
		}
	})
}

// kubeCell is tableconvertor's cell of the value client-go's JSONPath found.
func kubeCell(jp *jsonpath.JSONPath, typ string, value any, now time.Time) any {
	switch typ {
	case "string":
		var b bytes.Buffer
		if jp.PrintResults(&b, []reflect.Value{reflect.ValueOf(value)}) != nil {
			return nil
		}
		return b.String()
	case "integer":
		switch n := value.(type) {
		case int64:
			return n
		case float64:
			return int64(n)
		}
	case "number":
		switch n := value.(type) {
		case int64:
			return float64(n)
		case float64:
			return n
		}
	case "boolean":
		if b, ok := value.(bool); ok {
			return b
		}
	case "date":
		if s, ok := value.(string); ok {
			var ts metav1.Time
			if ts.UnmarshalQueryParameter(s) != nil {
				return "<invalid>"
			}
			if ts.IsZero() {
				return "<unknown>"
			}
			return duration.HumanDuration(now.Sub(ts.Time))
		}
	}
	return nil
}

// unstructuredObject is obj with kube's unstructured number types.
func unstructuredObject(obj object.Object) map[string]any {
	return ourpath.Normalize(map[string]any(obj)).(map[string]any)
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
