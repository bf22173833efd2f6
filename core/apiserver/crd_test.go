package apiserver

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"kubeplay/core/object"
)

// The expected answers below are kube-apiserver 1.32.13's (the refapi kit)
// to the same requests.

const (
	crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	widgets = "/apis/example.com/v1/namespaces/default/widgets"
)

// readTestdata reads a file of testdata.
func readTestdata(t testing.TB, name string) string {
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// established waits until the definition name is Established and list is
// served.
func (s *testServer) established(t testing.TB, name, list string) *response {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := s.do("GET", crdPath+"/"+name, nil)
		conds, _ := object.Path(r.Obj, "status", "conditions").([]any)
		for _, c := range conds {
			if object.Path(c, "type") == "Established" && object.Path(c, "status") == "True" && s.do("GET", list, nil).Code == 200 {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never established: %s", name, r.Body)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// gone waits until path answers 404.
func (s *testServer) gone(t testing.TB, path string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.do("GET", path, nil).Code != 404 {
		if time.Now().After(deadline) {
			t.Fatalf("%s still there", path)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestK8S_URI_4_CustomResourceDefinition: a definition is created with kube's
// defaults and empty status, then named and established by the controller,
// serving its type in discovery, aggregated discovery and OpenAPI.
func TestK8S_URI_4_CustomResourceDefinition(t *testing.T) {
	s := newTestServer(t, testConfig{})
	created := s.do("POST", crdPath, readTestdata(t, "widget-crd.json")).must(t, 201)
	if got := string(mustJSON(created.Obj["status"])); got != `{"acceptedNames":{"kind":"","plural":""},"conditions":null,"storedVersions":["v1"]}` {
		t.Errorf("status on create: %s", got)
	}
	if created.str("spec", "conversion", "strategy") != "None" || created.str("spec", "names", "listKind") != "WidgetList" {
		t.Errorf("defaults: %s", created.Body)
	}
	crd := s.established(t, "widgets.example.com", widgets)
	conds := object.Path(crd.Obj, "status", "conditions").([]any)
	if len(conds) != 2 || object.Path(conds[0], "reason") != "NoConflicts" || object.Path(conds[0], "message") != "no conflicts found" ||
		object.Path(conds[1], "reason") != "InitialNamesAccepted" || object.Path(conds[1], "message") != "the initial names have been accepted" {
		t.Errorf("conditions: %v", conds)
	}
	if got := string(mustJSON(object.Path(crd.Obj, "status", "acceptedNames"))); got != `{"kind":"Widget","listKind":"WidgetList","plural":"widgets","shortNames":["wd"],"singular":"widget"}` {
		t.Errorf("acceptedNames: %s", got)
	}

	var names []string
	for _, r := range s.do("GET", "/apis/example.com/v1", nil).must(t, 200).Obj["resources"].([]any) {
		names = append(names, object.Path(r, "name").(string)+" "+object.Path(r, "kind").(string))
	}
	if !slices.Equal(names, []string{"widgets Widget", "widgets/status Widget", "widgets/scale Scale"}) {
		t.Errorf("discovery: %v", names)
	}
	agg := s.do("GET", "/apis", nil, "Accept", aggregatedV2).must(t, 200)
	if !strings.Contains(string(agg.Body), `{"metadata":{"name":"example.com","creationTimestamp":null},"versions":[{"version":"v1","resources":[{"resource":"widgets","responseKind":{"group":"example.com","version":"v1","kind":"Widget"},"scope":"Namespaced","singularResource":"widget","verbs":["delete","deletecollection","get","list","patch","create","update","watch"],"shortNames":["wd"],"subresources":[{"subresource":"status","responseKind":{"group":"example.com","version":"v1","kind":"Widget"},"verbs":["get","patch","update"]},{"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get","patch","update"]}]}],"freshness":"Current"}]}`) {
		t.Errorf("aggregated discovery: %s", agg.Body)
	}
	doc := s.do("GET", "/openapi/v3/apis/example.com/v1", nil).must(t, 200)
	schemas, _ := object.Path(doc.Obj, "components", "schemas").(map[string]any)
	if gvk := object.Path(schemas["com.example.v1.Widget"], "x-kubernetes-group-version-kind"); len(schemas) < 3 || schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"] == nil ||
		string(mustJSON(gvk)) != `[{"group":"example.com","kind":"Widget","version":"v1"}]` {
		t.Errorf("OpenAPI v3 document: %.400s", doc.Body)
	}
	if !strings.Contains(string(s.do("GET", "/openapi/v3", nil).Body), `"apis/example.com/v1"`) {
		t.Error("the OpenAPI v3 index does not list the group version")
	}

	// Deleting it deletes its objects, then it, then stops serving them.
	s.do("POST", widgets, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","finalizers":["example.com/hold"]}}`).must(t, 201)
	deleting := s.do("DELETE", crdPath+"/widgets.example.com", nil).must(t, 200)
	if fs := object.Strings(object.Meta(deleting.Obj), "finalizers"); !slices.Equal(fs, []string{"customresourcecleanup.apiextensions.k8s.io"}) {
		t.Errorf("finalizers: %v", fs)
	}
	if !strings.Contains(string(deleting.Body), `"message":"CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon","reason":"InstanceDeletionPending","status":"True","type":"Terminating"`) {
		t.Errorf("Terminating condition: %s", deleting.Body)
	}
	time.Sleep(20 * time.Millisecond)
	s.do("GET", crdPath+"/widgets.example.com", nil).must(t, 200) // its object's finalizer holds it
	s.do("PATCH", widgets+"/w1", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json").must(t, 200)
	s.gone(t, crdPath+"/widgets.example.com")
	s.gone(t, widgets)
	s.do("GET", "/apis/example.com/v1", nil).must(t, 404)
}

// TestK8S_URI_4_CustomResources: custom objects are pruned (unknown fields
// warned of, or refused with fieldValidation=Strict), defaulted and
// validated by their schema; printed with their columns; their status and
// scale subresources own their parts; protobuf is refused.
func TestK8S_URI_4_CustomResources(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.do("POST", crdPath, readTestdata(t, "widget-crd.json")).must(t, 201)
	s.established(t, "widgets.example.com", widgets)

	const withUnknown = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"red","extra":1},"other":2,"status":{"replicas":5}}`
	s.do("POST", widgets+"?fieldValidation=Strict", withUnknown).wantStatus(t, 400, "BadRequest",
		`Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "other", unknown field "spec.extra"`)
	w1 := s.do("POST", widgets, withUnknown).must(t, 201)
	if got := w1.Header.Values("Warning"); !slices.Equal(got, []string{`299 - "unknown field \"other\""`, `299 - "unknown field \"spec.extra\""`}) {
		t.Errorf("warnings %q", got)
	}
	if got := string(mustJSON(w1.Obj["spec"])); got != `{"color":"red","size":3}` || w1.Obj["status"] != nil || w1.Obj["other"] != nil {
		t.Errorf("pruned and defaulted: %s", w1.Body)
	}
	s.do("POST", widgets, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{"size":"big","color":"green","replicas":0.5}}`).
		wantStatus(t, 422, "Invalid", `Widget.example.com "w2" is invalid: [spec.color: Unsupported value: "green": supported values: "red", "blue", `+
			`spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number", `+
			`spec.size: Invalid value: "string": spec.size in body must be of type integer: "string", `+
			`.spec.replicas: Invalid value: 0: .spec.replicas accessor error: 0.5 is of the type float64, expected int64]`)
	s.do("POST", widgets, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w3"},"spec":{"size":0}}`).
		wantStatus(t, 422, "Invalid", `Widget.example.com "w3" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1`)

	table := s.do("GET", widgets, nil, "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").must(t, 200)
	if got := string(mustJSON(object.Path(table.Obj, "columnDefinitions"))); !strings.Contains(got, `{"description":"Custom resource definition column (in JSONPath format): .spec.size","format":"","name":"Size","priority":0,"type":"integer"}`) {
		t.Errorf("columns: %s", got)
	}
	if got := string(mustJSON(object.Path(table.Obj, "rows"))); !strings.HasPrefix(got, `[{"cells":["w1",3]`) {
		t.Errorf("rows: %s", got)
	}

	// The main resource ignores status; the status subresource writes only it.
	s.do("PATCH", widgets+"/w1", `{"status":{"replicas":7},"spec":{"color":"blue"}}`, "Content-Type", "application/merge-patch+json").must(t, 200)
	r := s.do("PATCH", widgets+"/w1/status", `{"status":{"replicas":2},"spec":{"color":"red"}}`, "Content-Type", "application/merge-patch+json").must(t, 200)
	if got := string(mustJSON(r.Obj["spec"])) + string(mustJSON(r.Obj["status"])); got != `{"color":"blue","size":3}{"replicas":2}` {
		t.Errorf("after the status write: %s", got)
	}
	s.do("GET", widgets+"/w1/scale", nil).wantStatus(t, 500, "InternalError", `Internal error occurred: the spec replicas field ".spec.replicas" does not exist`)
	scale := s.do("PATCH", widgets+"/w1/scale", `{"spec":{"replicas":4}}`, "Content-Type", "application/merge-patch+json").must(t, 200)
	if got := string(mustJSON(scale.Obj["spec"])) + string(mustJSON(scale.Obj["status"])); scale.str("kind") != "Scale" || got != `{"replicas":4}{"replicas":2}` {
		t.Errorf("scale: %s", scale.Body)
	}
	if got := object.Path(s.do("GET", widgets+"/w1", nil).Obj, "spec", "replicas"); got != float64(4) {
		t.Errorf("spec.replicas after scaling: %v", got)
	}

	// Server-side apply merges a list of x-kubernetes-list-type map by its keys.
	apply := func(manager, port string) *response {
		return s.do("PATCH", widgets+"/w4?fieldManager="+manager, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w4"},"spec":{"ports":[{"name":"`+port+`","port":80}]}}`,
			"Content-Type", "application/apply-patch+yaml")
	}
	apply("a", "http").must(t, 201)
	if got := string(mustJSON(object.Path(apply("b", "https").must(t, 200).Obj, "spec", "ports"))); got != `[{"name":"http","port":80},{"name":"https","port":80}]` {
		t.Errorf("applied ports: %s", got)
	}

	r = s.do("GET", widgets, nil, "Accept", "application/vnd.kubernetes.protobuf")
	if r.Code != 406 || r.Header.Get("Content-Type") != "application/vnd.kubernetes.protobuf" {
		t.Errorf("protobuf: %d %s", r.Code, r.Header.Get("Content-Type"))
	}
	s.do("PATCH", widgets+"/w1", `{}`, "Content-Type", "application/strategic-merge-patch+json").must(t, 415)
}

// TestK8S_URI_4_Versions: versions share their objects, converted with the
// None strategy (apiVersion only); each validates with its own schema;
// discovery prefers the newest.
func TestK8S_URI_4_Versions(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.do("POST", crdPath, readTestdata(t, "gadget-crd.json")).must(t, 201)
	s.established(t, "gadgets.example.com", "/apis/example.com/v2/gadgets")
	s.do("POST", "/apis/example.com/v1/gadgets", `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g1"},"spec":{"n":"5","tags":["a","b"]}}`).must(t, 201)
	g := s.do("GET", "/apis/example.com/v2/gadgets/g1", nil).must(t, 200)
	if g.str("apiVersion") != "example.com/v2" || string(mustJSON(g.Obj["spec"])) != `{"n":"5","tags":["a","b"]}` {
		t.Errorf("read through v2: %s", g.Body)
	}
	s.do("POST", "/apis/example.com/v2/gadgets", `{"apiVersion":"example.com/v2","kind":"Gadget","metadata":{"name":"g2"},"spec":{"n":1.5,"tags":["a","a"]}}`).
		wantStatus(t, 422, "Invalid", `Gadget.example.com "g2" is invalid: [spec.n: Invalid value: "number": spec.n in body must be of type integer,string: "number", spec.tags[1]: Duplicate value: "a"]`)
	groups := s.do("GET", "/apis", nil).must(t, 200)
	if !strings.Contains(string(groups.Body), `{"name":"example.com","versions":[{"groupVersion":"example.com/v2","version":"v2"},{"groupVersion":"example.com/v1","version":"v1"}],"preferredVersion":{"groupVersion":"example.com/v2","version":"v2"}}`) {
		t.Errorf("/apis: %s", groups.Body)
	}
}

// TestK8S_URI_4_InvalidDefinitions: invalid definitions get kube's 422s, and
// nothing is stored. (kube prints its internal Go values in the message about
// the storage version; kubeplay summarizes them.)
func TestK8S_URI_4_InvalidDefinitions(t *testing.T) {
	s := newTestServer(t, testConfig{})
	const v = `"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]`
	cases := []struct{ body, message string }{
		{`{"metadata":{"name":"foos.example"},"spec":{"group":"example","scope":"Namespaced","names":{"plural":"foos","kind":"Foo"},` + v + `}}`,
			`CustomResourceDefinition.apiextensions.k8s.io "foos.example" is invalid: spec.group: Invalid value: "example": should be a domain with at least one dot`},
		{`{"metadata":{"name":"bars.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"foos","kind":"Foo"},` + v + `}}`,
			`CustomResourceDefinition.apiextensions.k8s.io "bars.example.com" is invalid: metadata.name: Invalid value: "bars.example.com": must be spec.names.plural+"."+spec.group`},
		{`{"metadata":{"name":"foos.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"foos","kind":"Foo"},"versions":[{"name":"v1","served":true,"storage":true}]}}`,
			`CustomResourceDefinition.apiextensions.k8s.io "foos.example.com" is invalid: spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required`},
		{`{"metadata":{"name":"foos.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"foos","kind":"Foo","listKind":"Foo_List","shortNames":["F!"]},"versions":[{"name":"v1","served":true,"storage":true,` +
			`"schema":{"openAPIV3Schema":{"type":"object","properties":{"a":{"type":"array"},"b":{"type":"object","properties":{"c":{"type":"string"}},"additionalProperties":{"type":"string"}},"d":{"type":"strange"},"e":{"x-kubernetes-int-or-string":true}}}},` +
			`"additionalPrinterColumns":[{"name":"X","type":"weird","jsonPath":"spec.x"}],"subresources":{"scale":{"specReplicasPath":"spec.replicas","statusReplicasPath":".status.replicas"}}}]}}`,
			`CustomResourceDefinition.apiextensions.k8s.io "foos.example.com" is invalid: [` +
				`spec.names.listKind: Invalid value: "Foo_List": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'), ` +
				`spec.names.shortNames[0]: Invalid value: "F!": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'), ` +
				`spec.validation.openAPIV3Schema.properties[a].items: Required value: must be specified, ` +
				`spec.validation.openAPIV3Schema.properties[b].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive, ` +
				`spec.validation.openAPIV3Schema.properties[d].type: Unsupported value: "strange": supported values: "array", "boolean", "integer", "number", "object", "string", ` +
				`spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with ., ` +
				`spec.additionalPrinterColumns[0].type: Invalid value: "weird": must be one of boolean,date,integer,number,string, ` +
				`spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.x": must be a simple json path starting with .]`},
	}
	for _, c := range cases {
		s.do("POST", crdPath, c.body).wantStatus(t, 422, "Invalid", c.message)
	}
	r := s.do("POST", crdPath, `{"metadata":{"name":"foos.example.com"},"spec":{"group":"example.com","scope":"Sometimes","names":{"plural":"Foos","kind":"foo"},"versions":[]}}`).wantStatus(t, 422, "Invalid", "")
	for _, want := range []string{`spec.scope: Unsupported value: "Sometimes": supported values: "Cluster", "Namespaced"`, "must have exactly one version marked as storage version",
		`status.storedVersions: Invalid value: []string(nil): must have at least one stored version`} {
		if !strings.Contains(r.str("message"), want) {
			t.Errorf("message %q lacks %q", r.str("message"), want)
		}
	}
	if items := s.do("GET", crdPath, nil).must(t, 200).items(); len(items) != 0 {
		t.Errorf("stored: %v", items)
	}

	// CEL rules are checked and kept, with no warning (as kube).
	cel := `{"metadata":{"name":"foos.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"foos","kind":"Foo"},"versions":[{"name":"v1","served":true,"storage":true,` +
		`"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.a > 0"}],"properties":{"a":{"type":"integer"}}}}}}}]}}`
	if w := s.do("POST", crdPath, cel).must(t, 201).Header.Values("Warning"); len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
}

// TestK8S_WRITE_2_PreservedUnknownFieldsManaged: a custom resource whose
// schema keeps unknown fields at its root has its fields managed as kube
// manages them (each field of a free-form object its own, lists atomic): an
// update records them, an apply conflicts with it and, forced, takes them
// over (answers recorded against kube-apiserver 1.32.13). Kubeplay once
// recorded nothing and answered every apply with a 500.
func TestK8S_WRITE_2_PreservedUnknownFieldsManaged(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.do("POST", crdPath, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"frees.example.com"},`+
		`"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"frees","kind":"Free","listKind":"FreeList","singular":"free"},`+
		`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`).must(t, 201)
	const frees = "/apis/example.com/v1/namespaces/default/frees"
	s.established(t, "frees.example.com", frees)
	managed := func(r *response) string {
		entries, _ := object.Path(r.Obj, "metadata", "managedFields").([]any)
		for _, e := range entries {
			delete(e.(map[string]any), "time")
		}
		b, _ := json.Marshal(entries)
		return string(b)
	}
	r := s.do("POST", frees, `{"apiVersion":"example.com/v1","kind":"Free","metadata":{"name":"mf"},"a":{"a":1,"l":[1,{"x":2}]}}`, "User-Agent", "test/1.0").must(t, 201)
	if got, want := managed(r), `[{"apiVersion":"example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:a":{".":{},"f:a":{},"f:l":{}}},"manager":"test","operation":"Update"}]`; got != want {
		t.Fatalf("managedFields\n got %s\nwant %s", got, want)
	}
	apply := `{"apiVersion":"example.com/v1","kind":"Free","metadata":{"name":"mf"},"a":{"a":2},"foo":{"b":[1]}}`
	r = s.do("PATCH", frees+"/mf?fieldManager=m", apply, "Content-Type", "application/apply-patch+yaml").
		wantStatus(t, 409, "Conflict", `Apply failed with 1 conflict: conflict with "test" using example.com/v1: .a.a`)
	r = s.do("PATCH", frees+"/mf?fieldManager=m&force=true", apply, "Content-Type", "application/apply-patch+yaml").must(t, 200)
	if got, want := managed(r), `[{"apiVersion":"example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:a":{".":{},"f:a":{}},"f:foo":{".":{},"f:b":{}}},"manager":"m","operation":"Apply"},`+
		`{"apiVersion":"example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:a":{".":{},"f:l":{}}},"manager":"test","operation":"Update"}]`; got != want {
		t.Fatalf("managedFields\n got %s\nwant %s", got, want)
	}
	if a, _ := json.Marshal(r.Obj["a"]); string(a) != `{"a":2,"l":[1,{"x":2}]}` {
		t.Fatalf("a: %s", a)
	}
}

// TestK8S_URI_4_SchemaErrorsAsKube: a definition's schema is checked as
// kube-apiserver 1.32.13 checks it (answers recorded against it): first the
// rules of structural schemas (a type everywhere but where unknown fields are
// kept or a value is an int-or-string, the root an object without
// additionalProperties, arrays with items), sorted by their text as kube
// sorts them, then the OpenAPI schema's own (known types, properties or
// additionalProperties), each schema before what it holds. (kube walks a
// schema's properties in Go's map order: kubeplay's sorted order is one of
// kube's answers; each case below has one.)
func TestK8S_URI_4_SchemaErrorsAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	for _, c := range []struct {
		schema  string
		code    int
		message string
	}{
		{`{"properties":{"a":{"type":"string"}}}`, 422, `CustomResourceDefinition.apiextensions.k8s.io "foos.example.com" is invalid: spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root`},
		{`{"type":"array"}`, 422, `CustomResourceDefinition.apiextensions.k8s.io "foos.example.com" is invalid: [spec.validation.openAPIV3Schema.items: Required value: must be specified, spec.validation.openAPIV3Schema.type: Invalid value: "array": must be object at the root]`},
		{`{"type":"strange"}`, 422, `CustomResourceDefinition.apiextensions.k8s.io "foos.example.com" is invalid: [spec.validation.openAPIV3Schema.type: Invalid value: "strange": must be object at the root, spec.validation.openAPIV3Schema.type: Unsupported value: "strange": supported values: "array", "boolean", "integer", "number", "object", "string"]`},
		{`{"x-kubernetes-preserve-unknown-fields":true}`, 201, ``},
		{`{"type":"object","additionalProperties":false}`, 422, `CustomResourceDefinition.apiextensions.k8s.io "foos.example.com" is invalid: spec.validation.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root`},
		{`{"type":"object","properties":{"z":{"type":"array"},"n":{"properties":{"m":{"properties":{"x":{"type":"string"}}}}}}}`, 422, `CustomResourceDefinition.apiextensions.k8s.io "foos.example.com" is invalid: [spec.validation.openAPIV3Schema.properties[n].properties[m].type: Required value: must not be empty for specified object fields, spec.validation.openAPIV3Schema.properties[n].type: Required value: must not be empty for specified object fields, spec.validation.openAPIV3Schema.properties[z].items: Required value: must be specified]`},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"properties":{"b":{}}}}}}`, 422, `CustomResourceDefinition.apiextensions.k8s.io "foos.example.com" is invalid: [spec.validation.openAPIV3Schema.properties[a].items.properties[b].type: Required value: must not be empty for specified object fields, spec.validation.openAPIV3Schema.properties[a].items.type: Required value: must not be empty for specified array items]`},
		{`{"type":"object","properties":{"a":{"type":"object","additionalProperties":false,"properties":{"b":{"type":"string"}}}}}`, 422, `CustomResourceDefinition.apiextensions.k8s.io "foos.example.com" is invalid: spec.validation.openAPIV3Schema.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`},
		{`{"type":"object","properties":{"b":{"type":"bad","properties":{"c":{"type":"worse"}},"additionalProperties":{"type":"odd","properties":{"d":{}}}}}}`, 422, `CustomResourceDefinition.apiextensions.k8s.io "foos.example.com" is invalid: [spec.validation.openAPIV3Schema.properties[b].additionalProperties.properties[d].type: Required value: must not be empty for specified object fields, spec.validation.openAPIV3Schema.properties[b].type: Unsupported value: "bad": supported values: "array", "boolean", "integer", "number", "object", "string", spec.validation.openAPIV3Schema.properties[b].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive, spec.validation.openAPIV3Schema.properties[b].additionalProperties.type: Unsupported value: "odd": supported values: "array", "boolean", "integer", "number", "object", "string", spec.validation.openAPIV3Schema.properties[b].properties[c].type: Unsupported value: "worse": supported values: "array", "boolean", "integer", "number", "object", "string"]`},
	} {
		body := `{"metadata":{"name":"foos.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"foos","kind":"Foo"},` +
			`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":` + c.schema + `}}]}}`
		r := s.do("POST", crdPath+"?dryRun=All", body)
		if c.code == 201 {
			r.must(t, 201)
			continue
		}
		r.wantStatus(t, c.code, "Invalid", c.message)
	}
}
