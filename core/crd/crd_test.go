package crd_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"kubeplay/core/apiserver"
	"kubeplay/core/auth"
	"kubeplay/core/client"
	"kubeplay/core/crd"
	"kubeplay/core/object"
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
	s, err := apiserver.New(apiserver.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c := client.New(s, auth.User{Name: "admin", Groups: []string{"system:masters"}}, "bench")
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
