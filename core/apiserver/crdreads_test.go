package apiserver

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"kubeplay/core/object"
	"kubeplay/internal/refapi"
)

// crdReadsKubeFile holds kube-apiserver's answers to crdReadsCases.
const crdReadsKubeFile = "testdata/crd-reads-kube-1.32.13.json"

const (
	gizmoCRDs    = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	gizmosV1     = "/apis/stable.example.com/v1/namespaces/default/gizmos"
	gizmosV2     = "/apis/stable.example.com/v2/namespaces/default/gizmos"
	doodads      = "/apis/stable.example.com/v1/doodads"
	applyYAML    = "application/apply-patch+yaml"
	gizmoVersion = `{"name":"VERSION","served":true,"storage":STORAGE,"selectableFields":FIELDS,` +
		`"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{` +
		`"color":{"type":"string"},SIZE"shape":{"type":"string"DEFAULT},` +
		`"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"foo":{"type":"string"}}}}}}}}}`
)

// selectCRD is the Gizmo definition: v1 (stored) selects by spec.color and
// spec.size, v2 (without spec.size) by spec.color; v1's spec.shape defaults to shapeDefault
// (none when "").
func selectCRD(shapeDefault string) string {
	version := func(name, storage, fields, def string) string {
		size := `"size":{"type":"integer"},`
		if name == "v2" {
			size = ""
		}
		return strings.NewReplacer("VERSION", name, "STORAGE", storage, "FIELDS", fields, "DEFAULT", def, "SIZE", size).Replace(gizmoVersion)
	}
	def := ""
	if shapeDefault != "" {
		def = `,"default":"` + shapeDefault + `"`
	}
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gizmos.stable.example.com"},` +
		`"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"gizmos","kind":"Gizmo"},"versions":[` +
		version("v1", "true", `[{"jsonPath":".spec.color"},{"jsonPath":".spec.size"}]`, def) + "," +
		version("v2", "false", `[{"jsonPath":".spec.color"}]`, "") + `]}}`
}

// crdReadsCase is a kubeCase sent once ready (nil: at once) holds for the
// answer to a GET of wait, every step with contentType (JSON, or a JSON
// merge patch for a PATCH, when "").
type crdReadsCase struct {
	kubeCase
	contentType string
	wait        string
	ready       func(code int, body []byte) bool
}

func gizmo(name, spec string) kubeStep {
	return kpost(gizmosV1, `{"apiVersion":"stable.example.com/v1","kind":"Gizmo","metadata":{"name":"`+name+`"},"spec":`+spec+`}`)
}

// served says whether a GET answered 200.
func served(code int, _ []byte) bool { return code == 200 }

// The requests whose answers kube-apiserver 1.32.13 gave are recorded in
// crdReadsKubeFile (TestRecordCRDReadsKube writes it).
var crdReadsCases = []crdReadsCase{
	{kubeCase: kcase("definitions",
		kpost(gizmoCRDs, selectCRD("")),
		kpost(gizmoCRDs, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"doodads.stable.example.com"},`+
			`"spec":{"group":"stable.example.com","scope":"Cluster","names":{"plural":"doodads","kind":"Doodad"},"versions":[{"name":"v1","served":true,"storage":true,`+
			`"selectableFields":[{"jsonPath":".spec.on"}],"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"on":{"type":"boolean"}}}}}}}]}}`))},
	{kubeCase: kcase("fieldSelectors",
		gizmo("g1", `{"color":"red","size":3}`),
		gizmo("g2", `{"color":"blue","size":30}`),
		gizmo("g3", `{}`),
		kpost(doodads, `{"apiVersion":"stable.example.com/v1","kind":"Doodad","metadata":{"name":"d1"},"spec":{"on":true}}`),
		kpost(doodads, `{"apiVersion":"stable.example.com/v1","kind":"Doodad","metadata":{"name":"d2"},"spec":{"on":false}}`),
		kget(gizmosV1+"?fieldSelector=spec.color%3Dred"),
		kget(gizmosV1+"?fieldSelector=spec.color!%3Dred"),
		kget(gizmosV1+"?fieldSelector=spec.color%3D"),
		kget(gizmosV1+"?fieldSelector=spec.size%3D30,metadata.namespace%3Ddefault"),
		kget(gizmosV2+"?fieldSelector=spec.color%3Dblue"),
		kget(gizmosV2+"?fieldSelector=spec.size%3D3"),
		kget(gizmosV1+"?fieldSelector=spec.shape%3Dround"),
		kget(gizmosV1+"?fieldSelector=metadata.name%3Dg2"),
		kget(doodads+"?fieldSelector=spec.on%3Dtrue"),
		kget(doodads+"?fieldSelector=metadata.namespace%3Ddefault"),
		kget("/apis/stable.example.com/v1/namespaces/default/gizmos?watch=true&fieldSelector=spec.weight%3D1"))},
	{kubeCase: kcase("defaultSet",
		kget(gizmoCRDs+"/gizmos.stable.example.com"),
		kpatch(gizmoCRDs+"/gizmos.stable.example.com", selectCRD("round")))},
	// Once v1 defaults spec.shape, reads of what was stored before show it.
	{kubeCase: kcase("defaultedOnRead",
		kget(gizmosV1+"/g1"),
		kget(gizmosV2+"/g1"),
		kget(gizmosV1),
		gizmo("g4", `{"shape":"square"}`)),
		wait: gizmosV1 + "/g3", ready: func(code int, body []byte) bool { return bytes.Contains(body, []byte(`"shape":"round"`)) }},
	// Server-side apply reads the YAML configuration strictly once merged:
	// keys given twice are refused with Strict, warned of otherwise.
	{kubeCase: kcase("applyDuplicates",
		kpatch(gizmosV1+"/g5?fieldManager=m&fieldValidation=Strict", "apiVersion: stable.example.com/v1\nkind: Gizmo\nmetadata:\n  name: g5\nspec:\n  free:\n    unknown: uk1\n    foo: foo1\n    foo: foo2\n  color: red\n"),
		kpatch(gizmosV1+"/g5?fieldManager=m&fieldValidation=Strict", "apiVersion: stable.example.com/v1\nkind: Gizmo\nmetadata:\n  name: g5\nspec:\n  color: red\n  color: blue\n  free:\n    a: 1\n    a: 2\n"),
		kpatch(gizmosV1+"/g5?fieldManager=m", "apiVersion: stable.example.com/v1\nkind: Gizmo\nmetadata:\n  name: g5\nspec:\n  free:\n    foo: foo1\n    foo: foo2\n"),
		kpatch(gizmosV1+"/g5?fieldManager=m&fieldValidation=Ignore", "apiVersion: stable.example.com/v1\nkind: Gizmo\nmetadata:\n  name: g5\nspec:\n  free:\n    foo: foo1\n    foo: foo3\n")),
		contentType: applyYAML},
	// selectableFields kube refuses, and two it takes: what every version
	// selects alike needs a schema alike, what they select apart schemas apart.
	{kubeCase: kcase("selectableFieldsInvalid",
		selectableCRD(`[{"jsonPath":".spec.color"},{"jsonPath":".spec.color"}]`),
		selectableCRD(`[{"jsonPath":".spec.obj"}]`),
		selectableCRD(`[{"jsonPath":".spec.missing"},{"jsonPath":"spec.color"},{"jsonPath":".spec.list[0]"},{"jsonPath":""},{"jsonPath":".metadata.name"},{"jsonPath":".spec..color"},{"jsonPath":".spec."}]`),
		selectableCRD(`[{"jsonPath":".spec.labels.app"},{"jsonPath":".spec.free.x"},{"jsonPath":".spec.list"}]`),
		selectableCRD(`[{"jsonPath":".spec.f1"},{"jsonPath":".spec.f2"},{"jsonPath":".spec.f3"},{"jsonPath":".spec.f4"},{"jsonPath":".spec.f5"},{"jsonPath":".spec.f6"},{"jsonPath":".spec.f7"},{"jsonPath":".spec.f8"},{"jsonPath":".spec.f9"},{"jsonPath":".spec.f9"}]`),
		selectableCRD(`[{"jsonPath":".spec.color"},{"jsonPath":".spec.on"},{"jsonPath":".spec.f1"}]`),
		kpost(gizmoCRDs+"?dryRun=All", thingies(strings.Replace(selectCRD(""), `"color":{"type":"string"},"shape"`, `"color":{"type":"string"},"size":{"type":"integer"},"shape"`, 1))),
		kpost(gizmoCRDs+"?dryRun=All", thingies(strings.Replace(selectCRD(""), `"selectableFields":[{"jsonPath":".spec.color"}]`, `"selectableFields":[{"jsonPath":".spec.color"},{"jsonPath":".spec.size"}]`, 1))))},
}

// thingies is a Gizmo definition renamed Thingy.
func thingies(crd string) string {
	return strings.NewReplacer("gizmos", "thingies", "Gizmo", "Thingy").Replace(crd)
}

// selectableCRD is a dry run creating a one-version definition selecting by
// fields.
func selectableCRD(fields string) kubeStep {
	props := `"color":{"type":"string"},"on":{"type":"boolean"},"obj":{"type":"object"},"list":{"type":"array","items":{"type":"string"}},` +
		`"labels":{"type":"object","additionalProperties":{"type":"string"}},"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true}`
	for i := 1; i <= 9; i++ {
		props += `,"f` + string(rune('0'+i)) + `":{"type":"integer"}`
	}
	return kpost(gizmoCRDs+"?dryRun=All", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"selects.stable.example.com"},`+
		`"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"selects","kind":"Select"},"versions":[{"name":"v1","served":true,"storage":true,`+
		`"selectableFields":`+fields+`,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{`+props+`}}}}}}]}}`)
}

// crdReadsWait is how long a case waits for what it needs: the definitions
// served, a changed schema in use.
const crdReadsWait = 30 * time.Second

// waitReady GETs path until ready holds for the answer.
func waitReady(t *testing.T, get func(path string) (int, []byte), path string, ready func(int, []byte) bool) {
	t.Helper()
	deadline := time.Now().Add(crdReadsWait)
	for {
		code, body := get(path)
		if ready(code, body) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s never ready: %d %.300s", path, code, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRecordCRDReadsKube writes crdReadsKubeFile from a fresh kube-apiserver:
//
//	KUBEPLAY_REFAPI=https://127.0.0.1:7543 go test -run TestRecordCRDReadsKube ./core/apiserver
func TestRecordCRDReadsKube(t *testing.T) {
	kube := refapi.Connect(t)
	get := func(path string) (int, []byte) {
		resp, body := kube.Do("GET", path, nil, nil)
		return resp.StatusCode, body
	}
	var ids []string
	var answers [][]kubeAnswer
	for i, c := range crdReadsCases {
		if i == 1 {
			waitReady(t, get, gizmosV1, served)
			waitReady(t, get, gizmosV2, served)
			waitReady(t, get, doodads, served)
		}
		if c.ready != nil {
			waitReady(t, get, c.wait, c.ready)
		}
		var got []kubeAnswer
		for _, s := range c.steps {
			var h map[string]string
			if c.contentType != "" {
				h = map[string]string{"Content-Type": c.contentType}
			}
			got = append(got, askKube(t, kube, s, h))
		}
		ids, answers = append(ids, c.id), append(answers, got)
	}
	writeKubeAnswers(t, crdReadsKubeFile, "Answers of kube-apiserver v1.32.13 (the refapi kit) to crdReadsCases in crdreads_test.go, sent in order to a fresh instance, each case once what it waits for is ready; recorded by "+t.Name()+".", ids, answers)
}

// TestK8S_URI_4_CustomResourceReadsAsKube: custom resources are selected by
// their version's selectableFields in lists (kube's words for a field a
// version does not select by, metadata.namespace of a cluster-scoped kind
// among them), are pruned and defaulted by their version's schema on every
// read (a default added later shows on objects stored before), and server-side
// apply refuses, or warns of, keys a YAML configuration gives twice, as
// kube-apiserver 1.32.13 does.
func TestK8S_URI_4_CustomResourceReadsAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	get := func(path string) (int, []byte) {
		r := s.do("GET", path, nil)
		return r.Code, r.Body
	}
	answers := loadKube(t, crdReadsKubeFile)
	for i, c := range crdReadsCases {
		if i == 1 {
			waitReady(t, get, gizmosV1, served)
			waitReady(t, get, gizmosV2, served)
			waitReady(t, get, doodads, served)
		}
		if c.ready != nil {
			waitReady(t, get, c.wait, c.ready)
		}
		t.Run(c.id, func(t *testing.T) {
			var headers []string
			if c.contentType != "" {
				headers = []string{"Content-Type", c.contentType}
			}
			replayKubeSteps(t, s, c.id, answers[c.id], c.steps, func(int) []string { return headers })
		})
	}
}

// TestK8S_URI_4_CustomResourceWatchSelected: a watch of custom resources with
// a field selector on a version's selectableFields sees an object enter the
// selection as ADDED and leave it as DELETED, in each version, as kube's
// filtered watches do.
func TestK8S_URI_4_CustomResourceWatchSelected(t *testing.T) {
	s := newTestServer(t, testConfig{})
	get := func(path string) (int, []byte) {
		r := s.do("GET", path, nil)
		return r.Code, r.Body
	}
	s.do("POST", gizmoCRDs, selectCRD("")).must(t, 201)
	waitReady(t, get, gizmosV1, served)
	waitReady(t, get, gizmosV2, served)
	v1 := s.watch(gizmosV1 + "?watch=true&fieldSelector=spec.color%3Dred")
	v2 := s.watch(gizmosV2 + "?watch=true&fieldSelector=spec.color%3Dred")
	s.do("POST", gizmosV1, gizmo("g1", `{"color":"red"}`).body).must(t, 201)
	s.do("POST", gizmosV1, gizmo("g2", `{"color":"blue"}`).body).must(t, 201)
	merge := []string{"Content-Type", "application/merge-patch+json"}
	s.do("PATCH", gizmosV1+"/g2", `{"spec":{"color":"red"}}`, merge...).must(t, 200)
	s.do("PATCH", gizmosV1+"/g1", `{"spec":{"color":"blue"}}`, merge...).must(t, 200)
	for version, w := range map[string]*watchStream{"v1": v1, "v2": v2} {
		var got []string
		for range 3 {
			e := w.next()
			got = append(got, e.Type+" "+object.MetaString(e.Object, "name")+" "+e.Object["apiVersion"].(string))
		}
		want := []string{"ADDED g1 stable.example.com/" + version, "ADDED g2 stable.example.com/" + version, "DELETED g1 stable.example.com/" + version}
		if !slices.Equal(got, want) {
			t.Errorf("%s watch: %q, want %q", version, got, want)
		}
	}
}
