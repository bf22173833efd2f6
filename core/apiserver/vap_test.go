package apiserver

import (
	"encoding/json"
	"testing"
	"time"

	"kubeplay/core/cel/celmodule"
	"kubeplay/core/cel/celremote"
	"kubeplay/internal/refapi"
)

// kube-apiserver's answers to writes judged by ValidatingAdmissionPolicies
// are recorded in testdata/vap-kube-1.32.13.json (TestRecordVAPKube writes
// it) and replayed by TestK8S_VAP_PoliciesJudgeWrites.

const vapKubeFile = "testdata/vap-kube-1.32.13.json"

const (
	vapPolicies = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	vapBindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
)

// vapPolicy is a policy for the Deployments of namespace ns (its
// constraints select the namespace by its name label), with the given
// spec fields (JSON fragments after matchConstraints).
func vapPolicy(name, ns, rest string) string {
	return `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"` + name + `"},"spec":{` +
		`"matchConstraints":{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"` + ns + `"}},` +
		`"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["deployments"]}]},` + rest + `}}`
}

func vapBinding(name, policy, rest string) string {
	return `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"` + name + `"},"spec":{"policyName":"` + policy + `",` + rest + `}}`
}

func vapNamespace(ns string) kubeStep {
	return kpost("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+ns+`"}}`)
}

func vapDeployment(ns, name string, replicas int) kubeStep {
	b, _ := json.Marshal(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}}})
	return kpost("/apis/apps/v1/namespaces/"+ns+"/deployments", string(b))
}

var vapCases = []kubeCase{
	kcase("compile",
		kpost(vapPolicies, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"bad.example.com"},"spec":{`+
			`"matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["deployments"]}]},`+
			`"variables":[{"name":"r","expression":"object.spec.replicas"},{"name":"s","expression":"'text'"}],`+
			`"matchConditions":[{"name":"c","expression":"object.metadata.name"}],`+
			`"validations":[{"expression":"object.spec.replicas >"},{"expression":"variables.r + 1"},{"expression":"variables.nope > 1"},{"expression":"true","messageExpression":"1"},`+
			`{"expression":"request.nope == 1"},{"expression":"variables.s > 1"},{"expression":"params.x == 1"},{"expression":"namespaceObject.metadata.UID != '' && request.userInfo.username != ''"},`+
			`{"expression":"true","messageExpression":"string(authorizer.path('/').check('get').allowed())"}],`+
			`"auditAnnotations":[{"key":"k","valueExpression":"1 +"},{"key":"v","valueExpression":"1"}]}}`),
	),
	kcase("deny",
		vapNamespace("vap-deny"),
		kpost(vapPolicies, vapPolicy("replicas.example.com", "vap-deny", `"validations":[`+
			`{"expression":"object.spec.replicas > 1","messageExpression":"'wants replicas > 1, got ' + string(object.spec.replicas)"},`+
			`{"expression":"namespaceObject.metadata.name == 'vap-deny'","message":"other namespace"},`+
			`{"expression":"object.metadata.name != 'forbidden'","reason":"Forbidden"}]`)),
		kpost(vapBindings, vapBinding("replicas-binding.example.com", "replicas.example.com", `"validationActions":["Deny"]`)),
		ksleep,
		vapDeployment("vap-deny", "single", 1),
		vapDeployment("vap-deny", "replicated", 2),
		vapDeployment("vap-deny", "forbidden", 2),
		kpost("/apis/apps/v1/namespaces/vap-deny/replicasets", `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"rs"}},"template":{"metadata":{"labels":{"app":"rs"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`),
	),
	kcase("variables",
		vapNamespace("vap-vars"),
		kpost(vapPolicies, vapPolicy("odd.example.com", "vap-vars", `"variables":[{"name":"replicas","expression":"object.spec.replicas"},{"name":"odd","expression":"variables.replicas % 2 == 1"}],`+
			`"validations":[{"expression":"variables.replicas > 1"},{"expression":"variables.odd","message":"replicas must be odd"}]`)),
		kpost(vapBindings, vapBinding("odd-binding.example.com", "odd.example.com", `"validationActions":["Deny"],"matchResources":{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"vap-vars"}}}`)),
		ksleep,
		vapDeployment("vap-vars", "one", 1),
		vapDeployment("vap-vars", "two", 2),
		vapDeployment("vap-vars", "three", 3),
	),
	kcase("failure-and-conditions",
		vapNamespace("vap-fail"),
		kpost(vapPolicies, vapPolicy("broken.example.com", "vap-fail", `"failurePolicy":"Fail","matchConditions":[{"name":"not-skipped","expression":"object.metadata.name != 'skipped'"}],`+
			`"validations":[{"expression":"object.spec.nope > 1"}]`)),
		kpost(vapBindings, vapBinding("broken-binding.example.com", "broken.example.com", `"validationActions":["Deny"]`)),
		kpost(vapPolicies, vapPolicy("lenient.example.com", "vap-fail", `"failurePolicy":"Ignore","validations":[{"expression":"object.spec.nope > 1"}]`)),
		kpost(vapBindings, vapBinding("lenient-binding.example.com", "lenient.example.com", `"validationActions":["Deny"]`)),
		ksleep,
		vapDeployment("vap-fail", "checked", 2),
		vapDeployment("vap-fail", "skipped", 2),
	),
	kcase("authorizer",
		vapNamespace("vap-authz"),
		kpost(vapPolicies, vapPolicy("authz.example.com", "vap-authz", `"validations":[`+
			`{"expression":"authorizer.group('').resource('pods').namespace('vap-authz').check('get').allowed() && authorizer.path('/healthz').check('get').allowed()"},`+
			`{"expression":"!authorizer.serviceAccount('vap-authz', 'builder').group('apps').resource('deployments').check('delete').allowed()",`+
			`"message":"the builder service account may delete deployments"},`+
			`{"expression":"authorizer.requestResource.check('create').reason() == '' && !authorizer.requestResource.check('create').errored() && authorizer.requestResource.check('create').error() == ''"}]`)),
		kpost(vapBindings, vapBinding("authz-binding.example.com", "authz.example.com", `"validationActions":["Deny"]`)),
		ksleep,
		vapDeployment("vap-authz", "checked", 1),
	),
	kcase("warn-and-params",
		vapNamespace("vap-warn"),
		kpost(vapPolicies, vapPolicy("warned.example.com", "vap-warn", `"validations":[{"expression":"object.spec.replicas < 3","message":"many replicas"}]`)),
		kpost(vapBindings, vapBinding("warned-binding.example.com", "warned.example.com", `"validationActions":["Warn","Audit"]`)),
		kpost(vapPolicies, vapPolicy("limit.example.com", "vap-warn", `"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},"validations":[{"expression":"object.spec.replicas <= int(params.data.max)","messageExpression":"'at most ' + params.data.max + ' replicas'"}]`)),
		kpost(vapBindings, vapBinding("limit-binding.example.com", "limit.example.com", `"paramRef":{"name":"limits","namespace":"vap-warn","parameterNotFoundAction":"Deny"},"validationActions":["Deny"]`)),
		ksleep,
		vapDeployment("vap-warn", "before-params", 2),
		kpost("/api/v1/namespaces/vap-warn/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"limits"},"data":{"max":"4"}}`),
		ksleep,
		vapDeployment("vap-warn", "five", 5),
		vapDeployment("vap-warn", "four", 4),
	),
}

// TestRecordVAPKube writes vapKubeFile from a real kube-apiserver (the
// refapi kit, as TestRecordCELKube says), on a fresh instance.
func TestRecordVAPKube(t *testing.T) {
	kube := refapi.Connect(t)
	var ids []string
	var answers [][]kubeAnswer
	for _, c := range vapCases {
		var got []kubeAnswer
		for _, s := range c.steps {
			if s.method == "SLEEP" {
				time.Sleep(3 * time.Second) // kube's admission reads policies from its informers
				got = append(got, kubeAnswer{})
				continue
			}
			got = append(got, askKube(t, kube, s, nil))
		}
		ids, answers = append(ids, c.id), append(answers, got)
	}
	writeKubeAnswers(t, vapKubeFile, "Answers of kube-apiserver v1.32.13 (the refapi kit) to the requests of vapCases in vap_test.go, each case's steps sent in order (SLEEP steps have no answer) to a fresh instance; recorded by "+t.Name()+".", ids, answers)
}

// TestK8S_VAP_PoliciesJudgeWrites replays vapCases: a policy whose
// expressions do not compile or are of the wrong type is refused; a
// policy's validations
// deny a matched write in kube's words (messageExpression, message, the
// failed expression, reason Forbidden's 403), variables, namespaceObject,
// match conditions, failurePolicy Fail and Ignore, Warn, parameters and a
// missing one's Deny, the authorizer library.
func TestK8S_VAP_PoliciesJudgeWrites(t *testing.T) {
	replayVAP(t, testConfig{})
}

// TestK8S_VAP_PoliciesJudgeWritesThroughTheModule replays vapCases with the
// browser's CEL: the policies' expressions compiled and evaluated across
// the CEL module's protocol (core/cel/celremote to core/cel/celmodule, JSON
// both ways), the authorizer library's checks coming back across it.
func TestK8S_VAP_PoliciesJudgeWritesThroughTheModule(t *testing.T) {
	calls := map[string]int{}
	module := celmodule.New()
	call := func(fn string, req []byte, authorize func([]byte) ([]byte, error)) ([]byte, error) {
		calls[fn]++
		if authorize != nil {
			ask := authorize
			authorize = func(check []byte) ([]byte, error) {
				calls["authorize"]++
				return ask(check)
			}
		}
		return module.Call(fn, req, authorize)
	}
	replayVAP(t, testConfig{CEL: celremote.New(call)})
	for _, fn := range []string{"checkPolicy", "evaluatePolicy", "authorize"} {
		if calls[fn] == 0 {
			t.Errorf("no %s call crossed: %v", fn, calls)
		}
	}
}

func replayVAP(t *testing.T, cfg testConfig) {
	answers := loadKube(t, vapKubeFile)
	s := newTestServer(t, cfg)
	for _, c := range vapCases {
		t.Run(c.id, func(t *testing.T) {
			want := answers[c.id]
			if len(want) != len(c.steps) {
				t.Fatalf("%d answers recorded for %d steps: record again", len(want), len(c.steps))
			}
			for i, step := range c.steps {
				if step.method == "SLEEP" {
					continue
				}
				r := s.do(step.method, step.path, step.body, "Content-Type", stepContentType(step))
				if want[i].Code < 300 {
					if r.Code != want[i].Code {
						t.Errorf("step %d %s %s: %d %s, kube %d %s", i, step.method, step.path, r.Code, r.Body, want[i].Code, want[i].Body)
					}
					continue
				}
				if err := compareKubeAnswer(c.id, step, r, want[i]); err != nil {
					t.Errorf("step %d %s %s: %v", i, step.method, step.path, err)
				}
			}
		})
	}
}

// BenchmarkVAPDeniedWrite: a Deployment denied by a policy (variables, a
// messageExpression, the authorizer library), with core/cel linked in
// (direct) and across the browser's protocol (module: JSON both ways, the
// authorizer's checks coming back); the ratio is what the protocol costs.
func BenchmarkVAPDeniedWrite(b *testing.B) {
	for _, bc := range []struct {
		name string
		cfg  testConfig
	}{{"direct", testConfig{}}, {"module", testConfig{CEL: celremote.New(celmodule.New().Call)}}} {
		b.Run(bc.name, func(b *testing.B) {
			s := newTestServer(b, bc.cfg)
			for _, step := range []kubeStep{vapNamespace("bench"),
				kpost(vapPolicies, vapPolicy("bench.example.com", "bench", `"variables":[{"name":"replicas","expression":"object.spec.replicas"}],"validations":[`+
					`{"expression":"authorizer.group('apps').resource('deployments').namespace('bench').check('delete').allowed()"},`+
					`{"expression":"variables.replicas > 1","messageExpression":"'wants replicas > 1, got ' + string(variables.replicas)"}]`)),
				kpost(vapBindings, vapBinding("bench-binding.example.com", "bench.example.com", `"validationActions":["Deny"]`))} {
				if r := s.do(step.method, step.path, step.body, "Content-Type", "application/json"); r.Code != 201 {
					b.Fatalf("%s %s: %d %s", step.method, step.path, r.Code, r.Body)
				}
			}
			denied := vapDeployment("bench", "single", 1)
			b.ResetTimer()
			for range b.N {
				if r := s.do(denied.method, denied.path, denied.body, "Content-Type", "application/json"); r.Code != 422 {
					b.Fatalf("%d %s", r.Code, r.Body)
				}
			}
		})
	}
}
