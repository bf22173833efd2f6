package apiserver

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"kubeplay/internal/refapi"
)

// kube-apiserver's answers to CustomResourceDefinitions with
// x-kubernetes-validations rules, and to custom resources those rules judge,
// are recorded in testdata/cel-kube-1.32.13.json (TestRecordCELKube writes
// it) and replayed by TestK8S_CEL_CustomResourceRules.

const celKubeFile = "testdata/cel-kube-1.32.13.json"

// A "WAIT" step waits until its path (a custom resource's list) is served;
// a "SLEEP" step lets a server take up an updated definition. Apply steps
// are sent as apply patches.
func kwait(list string) kubeStep { return kubeStep{"WAIT", list, ""} }

var ksleep = kubeStep{"SLEEP", "", ""}

func kapply(path, body string) kubeStep { return kubeStep{"APPLY", path, body} }

// celCRD is a definition of kind plural.example.com whose only version's
// spec has the given properties and rules (JSON fragments).
func celCRD(plural, kind, properties, rules string) string {
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"` + plural + `.example.com"},"spec":{"group":"example.com","scope":"Namespaced",` +
		`"names":{"plural":"` + plural + `","singular":"` + strings.ToLower(kind) + `","kind":"` + kind + `"},"versions":[{"name":"v1","served":true,"storage":true,` +
		`"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{` + properties + `},"x-kubernetes-validations":[` + rules + `]}}}}}]}}`
}

const celWidgetProps = `"replicas":{"type":"integer"},"maxReplicas":{"type":"integer"},"name":{"type":"string","maxLength":63},` +
	`"mode":{"type":"string"},"memory":{"type":"string","maxLength":32},"url":{"type":"string","maxLength":256},` +
	`"ports":{"type":"array","maxItems":16,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],` +
	`"properties":{"name":{"type":"string","maxLength":15},"port":{"type":"integer"}},"x-kubernetes-validations":[{"rule":"self.port > 0 && self.port < 65536","message":"port out of range"},` +
	`{"rule":"self.port == oldSelf.port","message":"a port may not change"}]}},` +
	`"pairs":{"type":"array","maxItems":500,"items":{"type":"integer"}}`

// celCostlyRule's messageExpression is estimated to cost too much (it
// writes integers of unbounded size).
const celCostlyRule = `{"rule":"self.replicas <= self.maxReplicas","messageExpression":"'replicas (' + string(self.replicas) + ') must not exceed maxReplicas (' + string(self.maxReplicas) + ')'","fieldPath":".replicas"}`

const celWidgetRules = `{"rule":"self.replicas <= self.maxReplicas","messageExpression":"'replicas must not exceed maxReplicas for ' + self.name","fieldPath":".replicas"},` +
	`{"rule":"self.mode == oldSelf.mode","message":"mode is immutable","reason":"FieldValueForbidden"},` +
	`{"rule":"!has(self.name) || self.name.matches('^[a-z]+$')","message":"name must be lowercase letters","reason":"FieldValueInvalid","fieldPath":".name"},` +
	`{"rule":"!has(self.memory) || quantity(self.memory).isLessThan(quantity('1Gi'))","message":"memory must be under 1Gi"},` +
	`{"rule":"!has(self.url) || isURL(self.url) && url(self.url).getScheme() == 'https'","message":"url must be https"},` +
	`{"rule":"oldSelf.hasValue() || self.replicas > 0","optionalOldSelf":true,"message":"a new widget needs replicas"},` +
	`{"rule":"!has(self.pairs) || self.pairs.all(a, self.pairs.all(b, a != b || a == b))"}`

const celWidgets = "/apis/example.com/v1/namespaces/default/widgets"

func celWidget(name, spec string) string {
	return `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

var celCases = []kubeCase{
	kcase("rule-fields",
		kpost(crdPath, celCRD("badfields", "BadField", `"a":{"type":"string"}`,
			`{"rule":""},{"rule":"self.a == 'x'","message":"  "},{"rule":"self.a == 'x'","message":"two\nlines"},`+
				`{"rule":"self.a ==\n'x'"},{"rule":"self.a == 'x'","messageExpression":"  "},{"rule":"self.a == 'x'","reason":"FieldValueBogus"},`+
				`{"rule":"self.a == 'x'","fieldPath":".nope"},{"rule":"self.a == 'x'","fieldPath":" "}`))),
	kcase("rule-compilation",
		kpost(crdPath, celCRD("badrules", "BadRule", `"a":{"type":"string"},"n":{"type":"integer"},"m":{"type":"object","additionalProperties":{"type":"integer"}}`,
			`{"rule":"self.a == "},{"rule":"self.n + 1"},{"rule":"self.nope == 1"},{"rule":"self.a == 1"},`+
				`{"rule":"self.n > 0","messageExpression":"self.n"},{"rule":"self.n > 0","messageExpression":"self.nope"},`+
				`{"rule":"self.n > 0","optionalOldSelf":true},{"rule":"self.m.all(k, v, v > 0)"},{"rule":"self.a.matches('[')"}`))),
	kcase("rule-cost",
		kpost(crdPath, celCRD("costly", "Costly", `"items":{"type":"array","items":{"type":"string"}}`,
			`{"rule":"self.items.all(x, self.items.all(y, x == y))"},{"rule":"self.items.all(x, x.matches('^[a-z]+$'))"}`))),
	kcase("rule-cost-message",
		kpost(crdPath, celCRD("costlywidgets", "CostlyWidget", strings.Replace(celWidgetProps, `"maxItems":500`, `"maxItems":2000`, 1), celCostlyRule+","+celWidgetRules))),
	kcase("rule-oldself-uncorrelatable",
		kpost(crdPath, celCRD("lists", "List", `"items":{"type":"array","maxItems":5,"items":{"type":"object","properties":{"a":{"type":"string","maxLength":5}},`+
			`"x-kubernetes-validations":[{"rule":"self.a == oldSelf.a"}]}}`, `{"rule":"true"}`))),
	kcase("custom-resources",
		kpost(crdPath, celCRD("widgets", "Widget", celWidgetProps, celWidgetRules)),
		kwait(celWidgets),
		kpost(celWidgets, celWidget("w1", `{"replicas":5,"maxReplicas":3,"name":"Web","memory":"2Gi","url":"http://example.com"}`)),
		kpost(celWidgets, celWidget("w1", `{"replicas":0,"maxReplicas":3}`)),
		kpost(celWidgets, celWidget("w1", `{"replicas":2,"maxReplicas":3,"mode":"fast","name":"web","memory":"512Mi","url":"https://example.com","ports":[{"name":"http","port":80}]}`)),
		kpatch(celWidgets+"/w1", `{"spec":{"mode":"slow"}}`),
		kpatch(celWidgets+"/w1", `{"spec":{"replicas":9}}`),
		kpatch(celWidgets+"/w1", `{"spec":{"ports":[{"name":"http","port":8080},{"name":"https","port":70000}]}}`),
		kput(celWidgets+"/w1", celWidget("w1", `{"replicas":2,"maxReplicas":3,"mode":"fast","ports":[{"name":"http","port":80}]}`)),
		kapply(celWidgets+"/w1", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"replicas":4,"maxReplicas":3}}`),
		kpost(celWidgets, celWidget("w2", `{"replicas":"two","maxReplicas":3}`)),
		kpost(celWidgets, celWidget("w3", `{"replicas":1,"maxReplicas":3,"pairs":[`+strings.TrimSuffix(strings.Repeat("1,", 500), ",")+`]}`)),
	),
	kcase("ratcheting",
		kpost(crdPath, celCRD("gadgets", "Gadget", `"size":{"type":"integer"},"colour":{"type":"string"}`, `{"rule":"true"}`)),
		kwait("/apis/example.com/v1/namespaces/default/gadgets"),
		kpost("/apis/example.com/v1/namespaces/default/gadgets", `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g1"},"spec":{"size":50,"colour":"red"}}`),
		kpatch(crdPath+"/gadgets.example.com", `{"spec":{"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object",`+
			`"properties":{"size":{"type":"integer","x-kubernetes-validations":[{"rule":"self <= 10","message":"size at most 10"}]},"colour":{"type":"string"}}}}}}}]}}`),
		ksleep,
		kpatch("/apis/example.com/v1/namespaces/default/gadgets/g1", `{"spec":{"colour":"blue"}}`),
		kpatch("/apis/example.com/v1/namespaces/default/gadgets/g1", `{"spec":{"size":60}}`),
	),
}

// celStepHeader is the content type of an apply step.
func celStepHeader(s kubeStep) map[string]string {
	if s.method == "APPLY" {
		return map[string]string{"Content-Type": "application/apply-patch+yaml"}
	}
	return nil
}

// celRequest is the request a step sends.
func celRequest(s kubeStep) kubeStep {
	if s.method == "APPLY" {
		return kubeStep{"PATCH", s.path + "?fieldManager=test&force=true", s.body}
	}
	return s
}

// TestRecordCELKube writes celKubeFile from a real kube-apiserver: start
// the refapi kit (REFAPI_HOME=/tmp/cel-refapi ./start.sh 8143) and run
//
//	KUBEPLAY_REFAPI=https://127.0.0.1:8143 go test -run TestRecordCELKube ./core/apiserver
//
// on a fresh instance.
func TestRecordCELKube(t *testing.T) {
	kube := refapi.Connect(t)
	var ids []string
	var answers [][]kubeAnswer
	for _, c := range celCases {
		var got []kubeAnswer
		for _, s := range c.steps {
			switch s.method {
			case "WAIT":
				deadline := time.Now().Add(30 * time.Second)
				for resp, _ := kube.Do("GET", s.path, nil, nil); resp.StatusCode != 200; resp, _ = kube.Do("GET", s.path, nil, nil) {
					if time.Now().After(deadline) {
						t.Fatalf("%s never served: %s", s.path, got[len(got)-1].Body)
					}
					time.Sleep(100 * time.Millisecond)
				}
				got = append(got, kubeAnswer{})
			case "SLEEP":
				time.Sleep(3 * time.Second)
				got = append(got, kubeAnswer{})
			default:
				got = append(got, askKube(t, kube, celRequest(s), celStepHeader(s)))
			}
		}
		ids, answers = append(ids, c.id), append(answers, got)
	}
	writeKubeAnswers(t, celKubeFile, "Answers of kube-apiserver v1.32.13 (the refapi kit) to the requests of celCases in cel_test.go, each case's steps sent in order (bodies as JSON, PATCH as a JSON merge patch, APPLY as an apply patch; WAIT and SLEEP steps have no answer) to a fresh instance; recorded by "+t.Name()+".", ids, answers)
}

// TestK8S_CEL_CustomResourceRules replays celCases: definitions whose rules
// kube refuses (their fields, compilation, cost, oldSelf where it cannot
// correlate) with its 422s, and custom resources judged by rules (messages,
// messageExpression, reason, fieldPath, transition rules, optionalOldSelf,
// list items of a map list, the per-call cost limit, the rules kube skips
// for an invalid object, ratcheting) as kube answers them.
func TestK8S_CEL_CustomResourceRules(t *testing.T) {
	answers := loadKube(t, celKubeFile)
	s := newTestServer(t, testConfig{})
	for _, c := range celCases {
		t.Run(c.id, func(t *testing.T) {
			want := answers[c.id]
			if len(want) != len(c.steps) {
				t.Fatalf("%d answers recorded for %d steps: record again", len(want), len(c.steps))
			}
			for i, step := range c.steps {
				switch step.method {
				case "WAIT":
					deadline := time.Now().Add(5 * time.Second)
					for s.do("GET", step.path, nil).Code != 200 {
						if time.Now().After(deadline) {
							t.Fatalf("%s never served", step.path)
						}
						time.Sleep(2 * time.Millisecond)
					}
					continue
				case "SLEEP":
					time.Sleep(100 * time.Millisecond)
					continue
				}
				req := celRequest(step)
				headers := []string{"Content-Type", stepContentType(req)}
				for k, v := range celStepHeader(step) {
					headers = append(headers, k, v)
				}
				r := s.do(req.method, req.path, req.body, headers...)
				if want[i].Code < 300 {
					// a written object: its spec as kube's (kube's
					// typed forms know nothing of custom resources)
					var kube map[string]any
					if err := json.Unmarshal(want[i].Body, &kube); err != nil {
						t.Fatal(err)
					}
					if r.Code != want[i].Code || !reflect.DeepEqual(r.Obj["spec"], kube["spec"]) {
						t.Errorf("step %d %s %s: %d %s, kube %d %s", i, step.method, step.path, r.Code, r.Body, want[i].Code, want[i].Body)
					}
					continue
				}
				if err := compareKubeAnswer(c.id, req, r, want[i]); err != nil {
					t.Errorf("step %d %s %s: %v", i, step.method, step.path, err)
				}
			}
		})
	}
}
