package jsonpath

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/util/jsonpath"
)

// objects are the documents the differential test evaluates templates on.
var objects = []string{
	`{"kind":"List","apiVersion":"v1","items":[
	  {"metadata":{"name":"a","namespace":"ns","labels":{"app":"web","tier":"fe"},"annotations":{"example.com/owner":"x"}},
	   "spec":{"replicas":3,"ratio":1.5,"whole":2.0,"suspend":false,"containers":[{"name":"c1","image":"nginx","ports":[{"containerPort":80,"name":"http"},{"containerPort":443}]},{"name":"c2","image":"busybox"}]},
	   "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True","n":1},{"type":"Scheduled","status":"False","n":2.5}],"nothing":null}},
	  {"metadata":{"name":"b","labels":{"app":"db"}},"spec":{"replicas":1,"containers":[]},"status":{"phase":"Pending","conditions":[]}},
	  {"metadata":{"name":"c"},"spec":{"replicas":10,"big":12345678901234567,"exp":1e3,"neg":-4},"status":{}}
	],"metadata":{"resourceVersion":""}}`,
	`{"metadata":{"name":"x"},"spec":{"items":[{"name":"a","n":1,"ok":true},{"name":"b","n":2,"ok":false},{"name":"c","n":3}],"s":"str","empty":[],"nil":null,"m":{"k":"v"}}}`,
	`{"a":[[1,2],[3,[4,5]]],"b":{"c":{"d":"e"}},"t":true,"f":1.25,"n":null,"s":"hi"}`,
}

// templates are what kubectl users and CRD columns write, and what they
// get wrong.
var templates = []string{
	"", "plain text", "{}", "{.}", "{@}", "{$}", "{.kind}", "{.missing}", "{.items}", "{.items[0]}",
	"{.items[*].metadata.name}", "{.items[0].metadata.name}", "{.items[-1].metadata.name}",
	"{.items[1:].metadata.name}", "{.items[:2].metadata.name}", "{.items[::2].metadata.name}",
	"{.items[0:3:0]}", "{.items[5]}", "{.items[-9]}", "{.items[:0]}", "{.items[2:1]}", "{.items[]}",
	"{.items[0,2].metadata.name}", "{.items[0]['metadata','spec'].replicas}", "{.items[*]['metadata.name']}",
	"{.items[*].metadata.labels.app}", "{.items[0].metadata.annotations['example.com/owner']}",
	`{.items[0].metadata.annotations.example\.com/owner}`, "{.items[*].spec.containers[*].name}",
	"{.items[*].spec.containers[*].ports[*].containerPort}", "{..name}", "{..containerPort}", "{.items[0]..name}",
	"{...name}", "{....name}", "{..}", "{.a..}", "{.b..d}", "{.b.*}", "{.b.c.*}", "{.s.*}", "{.s[0]}", "{..[0]}",
	`{.items[?(@.metadata.name=="a")].spec.replicas}`, `{.items[?(@.metadata.name!='a')].metadata.name}`,
	"{.items[?(@.spec.replicas>1)].metadata.name}", "{.items[?(@.spec.replicas>=3)].metadata.name}",
	"{.items[?(@.spec.replicas<3)].metadata.name}", "{.items[?(@.spec.replicas<=3)].metadata.name}",
	"{.items[?(@.spec.replicas==1.0)].metadata.name}", "{.items[?(@.spec.ratio==1.5)].metadata.name}",
	"{.items[?(@.spec.ratio>1)].metadata.name}", "{.items[?(@.spec.suspend==false)].metadata.name}",
	"{.items[?(@.spec.suspend<true)].metadata.name}", "{.items[?(@.metadata.labels)].metadata.name}",
	"{.items[?(@.metadata.labels.app)].metadata.name}", "{.items[?(@.spec.replicas==@.spec.replicas)].metadata.name}",
	"{.items[?(@.spec.replicas=1)].metadata.name}", "{.items[?(@.spec.replicas=<1)].metadata.name}",
	"{.items[?(@.metadata==1)].metadata.name}", "{.items[?(@.spec.replicas==\"3\")].metadata.name}",
	"{.items[0].status.conditions[?(@.type==\"Ready\")].status}", "{.items[*].status.conditions[?(@.n>1)].type}",
	"{.items[0].status.conditions[?(@.n==1)].type}", "{.items[0].spec[?(@.x)]}", "{.items[0].status.nothing[?(@.x)]}",
	"{.items[?(@.spec.containers[*].name)].metadata.name}", "{.items[?(@.spec.containers[*].name==\"c1\")].metadata.name}",
	"{.spec.items[?(@.ok)].name}", "{.spec.items[?(@.ok==true)].name}", "{.spec.items[?(@.n>=2.5)].name}",
	"{.spec.items[?(@.name<\"b\")].n}", "{.spec.nil[0]}", "{.spec.empty[0]}", "{.spec.s[0]}", "{.spec.m[0]}",
	"{range .items[*]}{.metadata.name}{\"\\n\"}{end}", "{range .items[*]}[{.metadata.name}, {.spec.replicas}] {end}",
	"{range .items[*]}{range .spec.containers[*]}{.name} {end}|{end}", "{range .missing[*]}{.x}{end}after",
	"{range .items[*]}{.metadata.name}", "{end}", "{range}{end}", "{.items[*].metadata.name}{end}",
	"{range .items[*]}{.metadata.name}{end}{end}", "{range .items[*]}{range .x}{end}",
	"{.kind} {.apiVersion}", "x{.kind}y{.apiVersion}z", "{.kind}{\"\\t\"}{'single'}", "{\"unterminated}",
	"{1}", "{-2}", "{+3}", "{1.5}", "{1.2.3}", "{true}", "{false}", "{foo}", "{.kind true 3}",
	"{.items[0].spec.replicas 7}", "{.a[*][*]}", "{.a[1][1][0]}", "{.a[*][1]}", "{.t}", "{.f}", "{.n}", "{.s}",
	"{.b}", "{.a}", "{.items[0].spec.big}", "{.items[2].spec.exp}", "{.items[2].spec.whole}",
	"{.items[0].spec.whole}", "{.items[2].spec.neg}", "{.items[?(@.spec.neg<0)].metadata.name}",
	"{.items[0", "{.items[0}", "{.items", "{.items[?(@.x)}", "{.items[?(@.x)", "{.items[?(@.x==\"a)\")]}",
	"{.items[a]}", "{.items[1:b]}", "{.items[--1]}", "{#}", "{.items\n}", "{\n}", "{.a\\.b}", "{.a\\}",
	"{.items[0].metadata.labels.*}", "{.items[*].metadata.*}", "{.items[?(@.metadata.name in (a))]}",
	"{.items[?()]}", "{.items[?(@)]}", "{.items[?(@==1)]}", "{.a[?(@[0]==1)]}", "{.a[?(@[0]>=3)]}",
	"{.items[0].spec.containers[?(@.ports[0].containerPort==80)].name}", "{.items[0].spec.containers[0]['name','image']}",
	"{.items[0].spec.containers[0]['name', 'image']}", "{.items[0].spec.containers[0][name]}",
	"{.b['c']['d']}", "{.b['c'].d}", "{.b[\"c\"]}", "{.b.'c'}", "{.b[c]}", "{$.b.c}", "{@.b.c.d}",
	"{ .b . c . d }", "{.b.c.d.e}", "{.b.c.d[0]}", "{.s[*]}", "{.s[?(@==104)]}", "{.s.*[?(@)]}",
	"{.spec.s.*}", "{.spec.s[*]}", "{..s}", "{.f[0]}", "{.t[0]}", "{.f[?(@)]}",
}

func decode(t testing.TB, s string, useNumber bool) any {
	d := json.NewDecoder(strings.NewReader(s))
	if useNumber {
		d.UseNumber()
	}
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// differ is how ours and client-go's differ on one template and object, or
// "" when they agree: parse error or not, then per allowMissingKeys the
// evaluation error (its text) and the printed output. data is what we
// evaluate; kube is what client-go evaluates (data with kube's number types).
func differ(tmpl string, data, kube any) string {
	ours, ourErr := Parse(tmpl)
	theirErr := jsonpath.New("t").Parse(tmpl)
	if (ourErr == nil) != (theirErr == nil) {
		return fmt.Sprintf("parse: ours %v, client-go %v", ourErr, theirErr)
	}
	if ourErr != nil {
		if ourErr.Error() != theirErr.Error() {
			return fmt.Sprintf("parse error: ours %q, client-go %q", ourErr, theirErr)
		}
		return ""
	}
	// client-go visits a map's keys in random order: where a template may
	// visit one (.*, ..), compare what is printed as a multiset.
	unordered := strings.Contains(strings.ReplaceAll(tmpl, "[*]", ""), "*") || strings.Contains(tmpl, "..")
	for _, allow := range []bool{true, false} {
		for _, asJSON := range []bool{false, true} {
			// client-go's JSONPath keeps range state (and its parsed
			// nodes, cut short) from one evaluation to the next: a fresh
			// one each time.
			fresh := func() *jsonpath.JSONPath {
				j := jsonpath.New("t")
				j.Parse(tmpl)
				j.AllowMissingKeys(allow)
				return j
			}
			theirs := fresh()
			theirs.EnableJSONOutput(asJSON)
			var want, got bytes.Buffer
			panicked, wantErr := execute(theirs, &want, kube)
			if panicked {
				// client-go panics on some templates over null (it
				// indexes the invalid reflect.Value it holds): nothing
				// to agree with.
				return ""
			}
			gotErr := ours.Execute(&got, data, Options{AllowMissingKeys: allow, OutputJSON: asJSON})
			if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
				return fmt.Sprintf("allowMissingKeys=%v: error: ours %v, client-go %v", allow, gotErr, wantErr)
			}
			if gotErr != nil {
				continue
			}
			if unordered && !asJSON {
				g, w := printedValues(ours.FindResults(data, allow)), printedValues(theirFind(fresh(), kube))
				if !slices.Equal(g, w) {
					return fmt.Sprintf("allowMissingKeys=%v: values: ours %q, client-go %q", allow, g, w)
				}
				continue
			}
			if unordered {
				continue
			}
			if got.String() != want.String() {
				return fmt.Sprintf("allowMissingKeys=%v json=%v: ours %q, client-go %q", allow, asJSON, got.String(), want.String())
			}
		}
	}
	return ""
}

// execute is client-go's Execute, and whether it panicked.
func execute(j *jsonpath.JSONPath, w *bytes.Buffer, data any) (panicked bool, err error) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	return false, j.Execute(w, data)
}

func theirFind(j *jsonpath.JSONPath, data any) ([][]any, error) {
	rs, err := j.FindResults(data)
	var out [][]any
	for _, r := range rs {
		var l []any
		for _, v := range r {
			l = append(l, v.Interface())
		}
		out = append(out, l)
	}
	return out, err
}

// printedValues is each value printed alone, sorted.
func printedValues(results [][]any, _ error) []string {
	var out []string
	for _, r := range results {
		for _, v := range r {
			var b bytes.Buffer
			PrintResults(&b, []any{v}, false)
			out = append(out, b.String())
		}
	}
	slices.Sort(out)
	return out
}

func TestLEARN_1_JSONPathMatchesClientGo(t *testing.T) {
	n := 0
	for _, tmpl := range templates {
		for i, o := range objects {
			for _, useNumber := range []bool{false, true} {
				// kubectl decodes whole numbers as int64 (as kube's
				// unstructured decoding does); the server's objects hold
				// json.Number; plain encoding/json gives float64.
				data := decode(t, o, useNumber)
				kube := Normalize(data)
				if d := differ(tmpl, data, kube); d != "" {
					t.Errorf("%q on object %d (json.Number %v): %s", tmpl, i, useNumber, d)
				}
				// float64 everywhere, as encoding/json decodes without
				// UseNumber: both evaluate the same value.
				if !useNumber {
					if d := differ(tmpl, data, data); d != "" {
						t.Errorf("%q on object %d (float64): %s", tmpl, i, d)
					}
				}
				n++
			}
		}
	}
	if n < 500 {
		t.Fatalf("only %d cases", n)
	}
}

// TestLEARN_1_JSONPathTemplateReuse: a Template keeps no state between
// evaluations (client-go's JSONPath does, in its range counters).
func TestLEARN_1_JSONPathTemplateReuse(t *testing.T) {
	tp, err := Parse("{range .items[*]}{.n},{end}")
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]any{"items": []any{map[string]any{"n": int64(1)}, map[string]any{"n": int64(2)}}}
	for range 3 {
		var b bytes.Buffer
		if err := tp.Execute(&b, data, Options{}); err != nil || b.String() != "1,2," {
			t.Fatalf("got %q, %v", b.String(), err)
		}
	}
}

func TestLEARN_1_JSONPathNormalize(t *testing.T) {
	in := map[string]any{"a": json.Number("1"), "b": []any{json.Number("1.0"), "s"}, "c": map[string]any{"d": true}}
	want := map[string]any{"a": int64(1), "b": []any{float64(1), "s"}, "c": map[string]any{"d": true}}
	if got := Normalize(in); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
	if _, ok := in["a"].(json.Number); !ok {
		t.Fatal("Normalize changed its input")
	}
}

// FuzzJSONPath holds the package to client-go on any template and
// document: parse errors, evaluation errors and output agree.
// Seeds: testdata/fuzz/FuzzJSONPath.
func FuzzJSONPath(f *testing.F) {
	f.Add("{.spec.a[0].b}", []byte(`{"spec":{"a":[{"b":1}]}}`))
	f.Fuzz(func(t *testing.T, tmpl string, doc []byte) {
		if strings.Count(tmpl, "range")+strings.Count(tmpl, "..") > 3 {
			return // nested ranges over recursive descent grow exponentially
		}
		d := json.NewDecoder(bytes.NewReader(doc))
		d.UseNumber()
		var data any
		if err := d.Decode(&data); err != nil || d.More() {
			return
		}
		if d := differ(tmpl, data, Normalize(data)); d != "" {
			t.Fatalf("%q on %s: %s", tmpl, doc, d)
		}
	})
}
