package crd_test

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/crd"
	"kubeplay/core/object"
	"kubeplay/core/sandbox"
	"kubeplay/core/user"
)

// FuzzK8S_URI_4_Definition: no definition, however malformed, panics its
// validation, or the serving of what it defines; a schema accepted validates,
// prunes and defaults any object without panicking.
func FuzzK8S_URI_4_Definition(f *testing.F) {
	seed, err := os.ReadFile("../apiserver/testdata/widget-crd.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed, []byte(`{"spec":{"size":"x","color":"green","ports":[{"name":"a"},{"name":"a"}]},"extra":1}`))
	f.Add([]byte(`{"spec":{"group":"a.b","names":{"plural":"xs","kind":"X"},"scope":"Cluster","versions":[{"name":"v1","storage":true,"served":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"a":{"type":"array","items":{"x-kubernetes-int-or-string":true}},"m":{"type":"object","additionalProperties":{"type":"integer","minimum":2}}}}}}]}}`),
		[]byte(`{"a":[1,"x",2.5,null],"m":{"k":1,"j":"s"}}`))
	f.Add([]byte(`{"spec":{"versions":[{"schema":{"openAPIV3Schema":{"type":"object","properties":{"p":{"pattern":"(","type":"string"}}}}}]}}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, def, obj []byte) {
		d, err := object.Decode(def)
		if err != nil {
			return
		}
		crd.Canonicalize(d)
		errs, _ := crd.Validate(d)
		parsed, err := crd.Read(d)
		if err != nil {
			return
		}
		parsed.Status.AcceptedNames = parsed.Spec.Names
		for _, r := range parsed.Resources() {
			o, err := object.Decode(obj)
			if err != nil {
				return
			}
			r.Custom.Schema.Prune(o)
			r.Custom.Schema.Default(map[string]any(o))
			_ = r.Custom.Schema.Validate(o)
			if len(errs) == 0 {
				if _, err := json.Marshal(o); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkK8S_URI_4_DefinitionServed creates a CustomResourceDefinition and
// lists its objects until the list succeeds; as the floor, in the same
// loop, it creates a ConfigMap and lists ConfigMaps. x-configmap is the
// definition's time over the floor's: how much longer than a plain write
// and read the controller's naming and establishing takes.
func BenchmarkK8S_URI_4_DefinitionServed(b *testing.B) {
	s, err := sandbox.NewServer(sandbox.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c := client.New(s, user.User{Name: "admin", Groups: []string{"system:masters"}}, "bench")
	ctx := context.Background()
	seed, err := os.ReadFile("../apiserver/testdata/widget-crd.json")
	if err != nil {
		b.Fatal(err)
	}
	var tCRD, tFloor int64
	for i := 0; i < b.N; i++ {
		def, _ := object.Decode(seed)
		plural := "widgets" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676%26))
		def["metadata"] = map[string]any{"name": plural + ".example.com"}
		names := def["spec"].(map[string]any)["names"].(map[string]any)
		names["plural"], names["kind"], names["singular"], names["shortNames"] = plural, "W"+plural, plural[:len(plural)-1], nil
		start := time.Now().UnixNano()
		if _, err := c.Create(ctx, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", def); err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := c.Get(ctx, "/apis/example.com/v1/"+plural); err == nil {
				break
			} else if !client.IsNotFound(err) {
				b.Fatal(err)
			}
		}
		mid := time.Now().UnixNano()
		if _, err := c.Create(ctx, "/api/v1/namespaces/default/configmaps", object.Object{"metadata": map[string]any{"generateName": "cm-"}}); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Get(ctx, "/api/v1/namespaces/default/configmaps?limit=1"); err != nil {
			b.Fatal(err)
		}
		tCRD += mid - start
		tFloor += time.Now().UnixNano() - mid
	}
	b.ReportMetric(float64(tCRD)/float64(tFloor), "x-configmap")
	b.ReportMetric(float64(tCRD)/float64(b.N)/1e3, "served-µs/op")
}

// deepDefinition is a definition whose schema nests depth objects, each with
// a property "a" (the innermost a string), and an object of it as deep with
// an unknown field at the bottom (pruned) and a number where the string
// goes (invalid).
func deepDefinition(depth int) (def, obj object.Object) {
	var b strings.Builder
	b.WriteString(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"deeps.example.com"},"spec":{"group":"example.com","scope":"Cluster","names":{"plural":"deeps","kind":"Deep","listKind":"DeepList"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":`)
	b.WriteString(strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `{"type":"string"}` + strings.Repeat(`}}`, depth))
	b.WriteString(`}}]},"status":{"storedVersions":["v1"]}}`)
	def, err := object.Decode([]byte(b.String()))
	if err != nil {
		panic(err)
	}
	obj, err = object.Decode([]byte(`{"apiVersion":"example.com/v1","kind":"Deep","metadata":{"name":"x"},"a":` +
		strings.Repeat(`{"a":`, depth-2) + `{"unknown":true,"a":1}` + strings.Repeat(`}`, depth-2) + `}`))
	if err != nil {
		panic(err)
	}
	return def, obj
}

// allocated is how many bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestROB_1_DeepSchemaCostsLinear: checking a definition whose schema nests
// thousands of levels deep, and pruning and validating an object of it as
// deep, costs in proportion to the depth: twice as deep allocates about twice
// as many bytes. (Kubeplay once wrote out every level's path, so that twice
// as deep cost four times as much: a 177 KB definition 4,900 levels deep
// cost 391 MiB.)
func TestROB_1_DeepSchemaCostsLinear(t *testing.T) {
	cost := func(depth int) (validate, object uint64) {
		def, obj := deepDefinition(depth)
		validate = allocated(func() {
			if errs, _ := crd.Validate(def); len(errs) > 0 {
				t.Fatal(errs)
			}
		})
		d, err := crd.Read(def)
		if err != nil {
			t.Fatal(err)
		}
		d.Status.AcceptedNames = d.Spec.Names
		s := d.Resources()[0].Custom.Schema
		object = allocated(func() {
			if pruned := s.Prune(obj); len(pruned) != 1 || pruned[0] != strings.Repeat("a.", depth-1)+"unknown" {
				t.Fatal(pruned)
			}
			if errs := s.Validate(obj); len(errs) != 1 || !strings.HasSuffix(errs[0].Error(), `.a.a: Invalid value: "integer": `+
				strings.Repeat("a.", depth-1)+`a in body must be of type string: "integer"`) {
				t.Fatal(errs)
			}
		})
		return validate, object
	}
	v1, o1 := cost(1000)
	v2, o2 := cost(2000)
	for _, c := range []struct {
		what  string
		n, n2 uint64
	}{{"checking the definition", v1, v2}, {"pruning and validating an object", o1, o2}} {
		if float64(c.n2) > 2.5*float64(c.n) {
			t.Errorf("%s allocates %d bytes 1000 levels deep, %d 2000 levels deep: more than twice as many", c.what, c.n, c.n2)
		}
	}
}

// BenchmarkROB_1_DeepSchema: checking a definition 4,900 levels deep (a
// 177 KB body), as a ratio to decoding its body (the floor: reading it at
// all), in the same run.
func BenchmarkROB_1_DeepSchema(b *testing.B) {
	def, _ := deepDefinition(4900)
	body, err := json.Marshal(def)
	if err != nil {
		b.Fatal(err)
	}
	var decode time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := object.Decode(body); err != nil {
			b.Fatal(err)
		}
		decode += time.Since(start)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		crd.Validate(def)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed())/float64(decode), "validate/decode")
	b.ReportMetric(float64(len(body))/1024, "body-KiB")
}
