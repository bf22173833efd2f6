package sandbox

import (
	"encoding/json"
	"os"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"kubeplay/core/cel/celmodule"
	"kubeplay/core/cel/celremote"
	"kubeplay/core/object"
	"kubeplay/internal/refapi"
)

// The status kube-controller-manager's ValidatingAdmissionPolicy status
// controller writes (its type checking of the validations) is recorded in
// testdata/vap-status-kube-1.32.13.json by TestRecordVAPStatusKube, from a
// kube-apiserver (the refapi kit) with that controller running beside it
// (upstream's validatingadmissionpolicystatus.Controller, wired as
// cmd/kube-controller-manager wires it: internal/refapi/vapstatus), and
// replayed by TestK8S_VAP_TypeCheckingStatus.

const vapStatusKubeFile = "testdata/vap-status-kube-1.32.13.json"

const (
	vapPolicies = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	vapCRDs     = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
)

// vapGadgets is a definition of gadgets.example.com (kind Gadget), whose
// spec has an integer size.
const vapGadgets = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gadgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced",` +
	`"names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",` +
	`"properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}}]}}`

// vapTyped is a policy named name whose constraints' resource rule is rule
// and whose spec has rest (JSON members) besides.
func vapTyped(name, rule, rest string) string {
	return `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"` + name + `"},"spec":{` +
		`"matchConstraints":{"resourceRules":[` + rule + `]},` + rest + `}}`
}

const vapDeploymentsRule = `{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["deployments"]}`

// vapTypedPolicies are the policies whose status is recorded, by name.
var vapTypedPolicies = []struct{ name, body string }{
	{"correct.example.com", vapTyped("correct.example.com", vapDeploymentsRule, `"validations":[{"expression":"object.spec.replicas < 5","messageExpression":"'too many: ' + string(object.spec.replicas)"}]`)},
	{"typo.example.com", vapTyped("typo.example.com", vapDeploymentsRule, `"variables":[{"name":"v","expression":"object.spec.vvv"}],`+
		`"matchConditions":[{"name":"m","expression":"object.spec.qqq == 1"}],"auditAnnotations":[{"key":"a","valueExpression":"string(object.spec.zzz)"}],`+
		`"validations":[{"expression":"object.spec.replicass < 5","messageExpression":"'x' + object.spec.nope"},{"expression":"object.spec.replicas > 'a'"},`+
		`{"expression":"variables.v == 1"},{"expression":"object.metadata.labelz['a'] == 'b'"},{"expression":"oldObject.spec.template.spec.containerss.size() > 0"}]`)},
	{"several.example.com", vapTyped("several.example.com", `{"apiGroups":["","apps"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["deployments","replicasets","pods","configmaps","deployments/scale"]}`,
		`"validations":[{"expression":"object.spec.replicas > 0"},{"expression":"object.metadata.name != ''"}]`)},
	{"params.example.com", vapTyped("params.example.com", vapDeploymentsRule, `"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},`+
		`"validations":[{"expression":"object.spec.replicas <= int(params.dataa.max)"},{"expression":"params.data.max == '1'"}]`)},
	{"unknownparams.example.com", vapTyped("unknownparams.example.com", vapDeploymentsRule, `"paramKind":{"apiVersion":"example.com/v1","kind":"Nope"},`+
		`"validations":[{"expression":"params.x == 1"},{"expression":"object.spec.replicas > 1"}]`)},
	{"custom.example.com", vapTyped("custom.example.com", `{"apiGroups":["example.com"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["gadgets"]}`,
		`"validations":[{"expression":"object.spec.size > 1"},{"expression":"object.spec.sizee > 1"}]`)},
	{"unknown.example.com", vapTyped("unknown.example.com", `{"apiGroups":["example.com"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["widgets"]}`,
		`"validations":[{"expression":"object.spec.replicass < 5"}]`)},
	{"singular.example.com", vapTyped("singular.example.com", `{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["deployment"]}`,
		`"validations":[{"expression":"object.spec.replicass < 5"}]`)},
	{"wildcard.example.com", vapTyped("wildcard.example.com", `{"apiGroups":["*"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["deployments"]}`,
		`"validations":[{"expression":"object.spec.replicass < 5"}]`)},
}

// vapTypedUpdate is policy (correct.example.com as read) with its
// validations replaced (its generation becomes 2) by one with a typo.
func vapTypedUpdate(policy object.Object) object.Object {
	policy["spec"].(map[string]any)["validations"] = []any{map[string]any{"expression": "object.spec.replicaz < 5"}}
	return policy
}

// typedStatus is what is recorded of a policy: its generation, its status
// and who wrote the status (its managed fields' entry).
type typedStatus struct {
	Generation    int64          `json:"generation"`
	Status        map[string]any `json:"status"`
	StatusManager map[string]any `json:"statusManager"`
}

// typedStatusOf reads the recorded part of a policy.
func typedStatusOf(policy object.Object) typedStatus {
	s := typedStatus{Generation: object.Int(object.Meta(policy)["generation"])}
	s.Status, _ = policy["status"].(map[string]any)
	for _, m := range object.Objects(object.Meta(policy), "managedFields") {
		if m["subresource"] == "status" {
			s.StatusManager = map[string]any{"manager": m["manager"], "operation": m["operation"], "subresource": m["subresource"], "fieldsV1": m["fieldsV1"]}
		}
	}
	return s
}

// vapStatusRecord is the recorded file: each policy after its creation,
// and correct.example.com after vapTypedUpdate.
type vapStatusRecord struct {
	About   string                 `json:"about"`
	Created map[string]typedStatus `json:"created"`
	Updated typedStatus            `json:"updated"`
}

// TestRecordVAPStatusKube writes vapStatusKubeFile; the status controller
// must run beside the kube-apiserver (kube-apiserver alone writes no
// status).
func TestRecordVAPStatusKube(t *testing.T) {
	kube := refapi.Connect(t)
	send := func(method, path, contentType, body string) object.Object {
		res, b := kube.Do(method, path, map[string]string{"Content-Type": contentType}, []byte(body))
		if res.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
		}
		var obj object.Object
		if err := json.Unmarshal(b, &obj); err != nil {
			t.Fatal(err)
		}
		return obj
	}
	send("POST", vapCRDs, "application/json", vapGadgets)
	time.Sleep(3 * time.Second) // the definition established, its OpenAPI published
	for _, p := range vapTypedPolicies {
		send("POST", vapPolicies, "application/json", p.body)
	}
	time.Sleep(3 * time.Second) // the status controller's informer and work
	rec := vapStatusRecord{About: "kube-apiserver v1.32.13 (the refapi kit) with kube-controller-manager's validatingadmissionpolicy-status controller beside it: the policies of vapTypedPolicies (after " + vapGadgets + ") read back 3 s after their creation, then correct.example.com 3 s after vapTypedUpdate; recorded by " + t.Name() + ".",
		Created: map[string]typedStatus{}}
	for _, p := range vapTypedPolicies {
		rec.Created[p.name] = typedStatusOf(send("GET", vapPolicies+"/"+p.name, "", ""))
	}
	updated, err := json.Marshal(vapTypedUpdate(send("GET", vapPolicies+"/correct.example.com", "", "")))
	if err != nil {
		t.Fatal(err)
	}
	send("PUT", vapPolicies+"/correct.example.com", "application/json", string(updated))
	time.Sleep(3 * time.Second)
	rec.Updated = typedStatusOf(send("GET", vapPolicies+"/correct.example.com", "", ""))
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vapStatusKubeFile, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestK8S_VAP_TypeCheckingStatus replays vapStatusKubeFile: once a policy
// is created or its spec changes, its status says the generation observed
// and, for each validation's expression or messageExpression that does not
// compile against a kind its constraints match (built-in or custom, params
// of its paramKind), the kinds and the errors, in kube's words, applied by
// the validatingadmissionpolicy-status manager; wildcards and unknown
// resources are not checked, a resource named by its singular is;
// nothing else (variables, match conditions, audit annotations) is.
func TestK8S_VAP_TypeCheckingStatus(t *testing.T) {
	replayVAPStatus(t, Config{APIOnly: true})
}

// TestK8S_VAP_TypeCheckingStatusThroughTheModule replays vapStatusKubeFile
// with the browser's CEL: the type checking asked across the CEL module's
// protocol (core/cel/celremote to core/cel/celmodule, JSON both ways).
func TestK8S_VAP_TypeCheckingStatusThroughTheModule(t *testing.T) {
	var typeChecks atomic.Int64
	module := celmodule.New()
	replayVAPStatus(t, Config{APIOnly: true, CEL: celremote.New(func(fn string, req []byte, authorize func([]byte) ([]byte, error)) ([]byte, error) {
		if fn == "typeCheckPolicy" {
			typeChecks.Add(1)
		}
		return module.Call(fn, req, authorize)
	})})
	if typeChecks.Load() == 0 {
		t.Error("no typeCheckPolicy call crossed")
	}
}

func replayVAPStatus(t *testing.T, cfg Config) {
	var want vapStatusRecord
	b, err := os.ReadFile(vapStatusKubeFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, cfg)
	post := func(path, body string) {
		if r := e.do("POST", path, json.RawMessage(body), admin); r.Code != 201 {
			t.Fatalf("POST %s: %d %s", path, r.Code, r.Body)
		}
	}
	post(vapCRDs, vapGadgets)
	e.eventually("gadgets served", func() bool { return e.do("GET", "/apis/example.com/v1/gadgets", nil, admin).Code == 200 })
	for _, p := range vapTypedPolicies {
		post(vapPolicies, p.body)
	}
	observed := func(name string, generation int64) typedStatus {
		var got typedStatus
		e.eventually(name+"'s status", func() bool {
			got = typedStatusOf(e.do("GET", vapPolicies+"/"+name, nil, admin).Obj)
			return object.Int(got.Status["observedGeneration"]) >= generation
		})
		return normalized(t, got)
	}
	for _, p := range vapTypedPolicies {
		if got, w := observed(p.name, 1), normalized(t, want.Created[p.name]); !reflect.DeepEqual(got, w) {
			gb, _ := json.MarshalIndent(got, "", "  ")
			wb, _ := json.MarshalIndent(w, "", "  ")
			t.Errorf("%s:\n%s\nkube:\n%s", p.name, gb, wb)
		}
	}
	if r := e.do("PUT", vapPolicies+"/correct.example.com", vapTypedUpdate(e.do("GET", vapPolicies+"/correct.example.com", nil, admin).Obj), admin); r.Code != 200 {
		t.Fatalf("update: %d %s", r.Code, r.Body)
	}
	if got, w := observed("correct.example.com", 2), normalized(t, want.Updated); !reflect.DeepEqual(got, w) {
		t.Errorf("updated: %+v\nkube: %+v", got, w)
	}
}

// normalized is s as JSON decodes it (numbers as float64).
func normalized(t *testing.T, s typedStatus) typedStatus {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var out typedStatus
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
