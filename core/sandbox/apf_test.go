package sandbox

import (
	"encoding/json"
	"kubeplay/core/auth"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kubeplay/core/flowcontrol/bootstrap"
	"kubeplay/core/object"
)

const fcPath = "/apis/flowcontrol.apiserver.k8s.io/v1/"

// The seed's two FlowSchemas.
var (
	healthForStrangers = object.Object{"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
		"metadata": map[string]any{"name": "health-for-strangers"},
		"spec": map[string]any{"matchingPrecedence": 1000, "priorityLevelConfiguration": map[string]any{"name": "exempt"},
			"rules": []any{map[string]any{
				"nonResourceRules": []any{map[string]any{"nonResourceURLs": []any{"/healthz", "/livez", "/readyz"}, "verbs": []any{"*"}}},
				"subjects":         []any{map[string]any{"kind": "Group", "group": map[string]any{"name": "system:unauthenticated"}}}}}}}
	listEventsDefaultSA = object.Object{"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
		"metadata": map[string]any{"name": "list-events-default-service-account"},
		"spec": map[string]any{"distinguisherMethod": map[string]any{"type": "ByUser"}, "matchingPrecedence": 8000,
			"priorityLevelConfiguration": map[string]any{"name": "catch-all"},
			"rules": []any{map[string]any{
				"resourceRules": []any{map[string]any{"apiGroups": []any{"*"}, "namespaces": []any{"default"}, "resources": []any{"events"}, "verbs": []any{"list"}}},
				"subjects":      []any{map[string]any{"kind": "ServiceAccount", "serviceAccount": map[string]any{"name": "default", "namespace": "default"}}}}}}}
)

// TestAPF_3_ClassificationAsKube sends the same requests, as the same users,
// as were sent to kube-apiserver 1.32.13 (refapi, with its bootstrap
// configuration and the seed's health-for-strangers and
// list-events-default-service-account FlowSchemas), and expects the FlowSchema
// kube chose, read from X-Kubernetes-PF-FlowSchema-UID (APF-3, APF-4, APF-8,
// APF-9).
func TestAPF_3_ClassificationAsKube(t *testing.T) {
	e := newEnv(t, Config{})
	for _, fs := range []object.Object{healthForStrangers, listEventsDefaultSA} {
		if r := e.do("POST", fcPath+"flowschemas", fs, admin); r.Code != 201 {
			t.Fatalf("create %v: %d %s", object.MetaString(fs, "name"), r.Code, r.Body)
		}
	}
	// Recorded from kube-apiserver 1.32.13: METHOD PATH USER [GROUPS] -> FlowSchema.
	table := `GET /api/v1/namespaces/default/configmaps kubernetes-admin [kubeadm:cluster-admins] -> global-default
GET /api/v1/namespaces/default/configmaps su [system:masters] -> exempt
GET /api/v1/nodes/n1 system:node:n1 [system:nodes] -> system-node-high
PUT /api/v1/nodes/n1/status system:node:n1 [system:nodes] -> system-node-high
GET /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1 system:node:n1 [system:nodes] -> system-node-high
GET /api/v1/namespaces/default/pods system:node:n1 [system:nodes] -> system-nodes
GET /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kcm system:kube-controller-manager [] -> system-leader-election
GET /api/v1/pods system:kube-controller-manager [] -> kube-controller-manager
GET /api/v1/namespaces/default/endpoints/x system:kube-controller-manager [] -> endpoint-controller
GET /api/v1/pods system:kube-scheduler [] -> kube-scheduler
GET /api/v1/namespaces/kube-system/configmaps/x system:serviceaccount:kube-system:foo [] -> workload-leader-election
GET /api/v1/namespaces/kube-system/endpoints/x system:serviceaccount:kube-system:endpoint-controller [] -> endpoint-controller
GET /api/v1/pods system:serviceaccount:kube-system:foo [] -> kube-system-service-accounts
GET /api/v1/namespaces/default/events system:serviceaccount:default:default [] -> list-events-default-service-account
GET /api/v1/namespaces/default/events/e1 system:serviceaccount:default:default [] -> service-accounts
GET /api/v1/namespaces/other/events system:serviceaccount:default:default [] -> service-accounts
GET /api/v1/namespaces/default/events system:serviceaccount:default:builder [] -> service-accounts
GET /healthz alice [] -> probes
GET /livez/ping alice [] -> probes
HEAD /readyz alice [] -> global-default
POST /healthz alice [] -> global-default
GET /healthz system:anonymous [] -> probes
HEAD /healthz system:anonymous [] -> health-for-strangers
GET /version system:anonymous [] -> global-default
GET /api/v1/namespaces system:anonymous [] -> global-default`
	for _, line := range strings.Split(table, "\n") {
		req, want, _ := strings.Cut(line, " -> ")
		f := strings.Fields(req)
		method, path, user := f[0], f[1], f[2]
		var groups []string
		if g := strings.Trim(strings.Join(f[3:], " "), "[]"); g != "" {
			groups = strings.Fields(g)
		}
		r := e.doH(method, path, nil, impersonating(user, groups...))
		if fs, _ := e.classifiedAs(r); fs != want {
			t.Errorf("%s: classified as %s, kube %s", req, fs, want)
		}
	}
	// The level follows the FlowSchema, and a FlowSchema names the flow.
	r := e.do("GET", "/healthz", nil, superAdmin)
	if fs, pl := e.classifiedAs(r); fs != "exempt" || pl != "exempt" {
		t.Errorf("super-admin: %s %s", fs, pl)
	}
}

// TestAPF_2_BootstrapAsKube: the sandbox creates kube's mandatory and suggested
// configuration (kube's stored objects, recorded), with Dangling conditions on
// every FlowSchema; it brings back a deleted suggested object, corrects the spec
// of one it owns, leaves one whose annotation says users own it, refuses to
// change a mandatory spec, and deletes an auto-managed object that is not part
// of the configuration (APF-1, APF-2).
func TestAPF_2_BootstrapAsKube(t *testing.T) {
	e := newEnv(t, Config{})
	for _, kind := range []string{bootstrap.FlowSchema, bootstrap.PriorityLevelConfiguration} {
		plural := strings.ToLower(kind) + "s"
		list := e.do("GET", fcPath+plural, nil, admin)
		items, _ := list.Obj["items"].([]any)
		boots := append(bootstrap.Mandatory(kind), bootstrap.Suggested(kind)...)
		if len(items) != len(boots) {
			t.Fatalf("%s: %d objects, kube has %d", plural, len(items), len(boots))
		}
		for _, b := range boots {
			name := object.MetaString(b, "name")
			got := e.do("GET", fcPath+plural+"/"+name, nil, admin).Obj
			if !object.Equal(got["spec"], b["spec"]) || object.StringMap(object.Meta(got), "annotations")[bootstrap.AutoUpdateAnnotation] != "true" {
				t.Errorf("%s %s: %v", kind, name, got)
			}
			if kind == bootstrap.FlowSchema {
				cond, _ := object.Path(got, "status", "conditions").([]any)
				if len(cond) != 1 || object.Path(cond[0], "reason") != "Found" || object.Path(cond[0], "status") != "False" ||
					object.Path(cond[0], "message") != `This FlowSchema references the PriorityLevelConfiguration object named "`+
						object.Path(got, "spec", "priorityLevelConfiguration", "name").(string)+`" and it exists` {
					t.Errorf("%s status %v", name, got["status"])
				}
			}
		}
	}
	// A FlowSchema whose level does not exist is Dangling.
	dangling := object.DeepCopy(listEventsDefaultSA)
	object.Meta(dangling)["name"] = "dangling"
	dangling["spec"].(map[string]any)["priorityLevelConfiguration"] = map[string]any{"name": "nowhere"}
	e.do("POST", fcPath+"flowschemas", dangling, admin)
	e.eventually("Dangling=True", func() bool {
		c, _ := object.Path(e.do("GET", fcPath+"flowschemas/dangling", nil, admin).Obj, "status", "conditions").([]any)
		return len(c) == 1 && object.Path(c[0], "status") == "True" && object.Path(c[0], "reason") == "NotFound" &&
			object.Path(c[0], "message") == `This FlowSchema references the PriorityLevelConfiguration object named "nowhere" but there is no such object`
	})

	// Deleted suggested objects come back (the ensurer runs every minute; a new
	// sandbox runs it at start, which is what this restart stands for).
	e.do("DELETE", fcPath+"flowschemas/service-accounts", nil, admin)
	// Owned by kube (annotated so): its spec is put back.
	setShares := func(name string, shares int, annotations map[string]any) {
		pl := e.do("GET", fcPath+"prioritylevelconfigurations/"+name, nil, admin).Obj
		object.Meta(pl)["annotations"] = annotations
		pl["spec"].(map[string]any)["limited"].(map[string]any)["nominalConcurrencyShares"] = shares
		if r := e.do("PUT", fcPath+"prioritylevelconfigurations/"+name, pl, admin); r.Code != 200 {
			t.Fatalf("update %s: %d %s", name, r.Code, r.Body)
		}
	}
	setShares("workload-low", 7, map[string]any{bootstrap.AutoUpdateAnnotation: "true"})
	// Owned by users (annotated so): kept as they made it.
	setShares("global-default", 77, map[string]any{bootstrap.AutoUpdateAnnotation: "false"})
	// Not annotated: metadata.generation decides; a changed spec made it 2, so
	// users own it, and the annotation says so from now on.
	setShares("workload-high", 44, nil)
	// A stray object kube manages.
	stray := object.DeepCopy(listEventsDefaultSA)
	object.Meta(stray)["name"] = "stray"
	object.Meta(stray)["annotations"] = map[string]any{bootstrap.AutoUpdateAnnotation: "true"}
	e.do("POST", fcPath+"flowschemas", stray, admin)
	e.sb.APF.Stop()
	e.sb.APF.Start(e.sb.Server)
	level := func(name string) (any, string) {
		pl := e.do("GET", fcPath+"prioritylevelconfigurations/"+name, nil, admin).Obj
		return object.Path(pl, "spec", "limited", "nominalConcurrencyShares"), object.StringMap(object.Meta(pl), "annotations")[bootstrap.AutoUpdateAnnotation]
	}
	e.eventually("the configuration maintained", func() bool {
		wlShares, wlAuto := level("workload-low")
		gdShares, gdAuto := level("global-default")
		whShares, whAuto := level("workload-high")
		return e.do("GET", fcPath+"flowschemas/service-accounts", nil, admin).Code == 200 &&
			wlShares == json.Number("100") && wlAuto == "true" && gdShares == json.Number("77") && gdAuto == "false" &&
			whShares == json.Number("44") && whAuto == "false" && e.do("GET", fcPath+"flowschemas/stray", nil, admin).Code == 404
	})
	// Mandatory specs are fixed: kube's 422.
	ca := e.do("GET", fcPath+"flowschemas/catch-all", nil, admin).Obj
	ca["spec"].(map[string]any)["matchingPrecedence"] = 9999
	r := e.do("PUT", fcPath+"flowschemas/catch-all", ca, admin)
	want := `FlowSchema.flowcontrol.apiserver.k8s.io "catch-all" is invalid: spec: Invalid value: flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:flowcontrol.PriorityLevelConfigurationReference{Name:"catch-all"}, MatchingPrecedence:9999, DistinguisherMethod:(*flowcontrol.FlowDistinguisherMethod)(0xADDR), Rules:[]flowcontrol.PolicyRulesWithSubjects{flowcontrol.PolicyRulesWithSubjects{Subjects:[]flowcontrol.Subject{flowcontrol.Subject{Kind:"Group", User:(*flowcontrol.UserSubject)(nil), Group:(*flowcontrol.GroupSubject)(0xADDR), ServiceAccount:(*flowcontrol.ServiceAccountSubject)(nil)}, flowcontrol.Subject{Kind:"Group", User:(*flowcontrol.UserSubject)(nil), Group:(*flowcontrol.GroupSubject)(0xADDR), ServiceAccount:(*flowcontrol.ServiceAccountSubject)(nil)}}, ResourceRules:[]flowcontrol.ResourcePolicyRule{flowcontrol.ResourcePolicyRule{Verbs:[]string{"*"}, APIGroups:[]string{"*"}, Resources:[]string{"*"}, ClusterScope:true, Namespaces:[]string{"*"}}}, NonResourceRules:[]flowcontrol.NonResourcePolicyRule{flowcontrol.NonResourcePolicyRule{Verbs:[]string{"*"}, NonResourceURLs:[]string{"*"}}}}}}: spec of 'catch-all' must equal the fixed value`
	if r.Code != 422 || withoutAddresses(object.Path(r.Obj, "message")) != want {
		t.Errorf("mandatory change: %d %s", r.Code, r.Obj["message"])
	}
}

// withoutAddresses replaces the pointers of a %#v message, which are wherever
// kube's heap put them.
func withoutAddresses(v any) string {
	s, _ := v.(string)
	var b strings.Builder
	for {
		i := strings.Index(s, "(0x")
		if i < 0 {
			return b.String() + s
		}
		j := strings.IndexByte(s[i:], ')')
		b.WriteString(s[:i] + "(0xADDR)")
		s = s[i+j+1:]
	}
}

// TestAPF_1_ValidationAsKube creates invalid FlowSchemas and
// PriorityLevelConfigurations and expects kube-apiserver 1.32.13's answers,
// recorded in testdata/kube-validation.json (bad input).
func TestAPF_1_ValidationAsKube(t *testing.T) {
	e := newEnv(t, Config{})
	data, err := os.ReadFile("testdata/kube-validation.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Method, Path string
		Body         map[string]any
		Code         int
		Message      string
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		body := c.Body
		if c.Method == "PUT" { // kube's answer to a changed mandatory object: start from ours
			cur := e.do("GET", c.Path, nil, admin).Obj
			for k, v := range body["spec"].(map[string]any) {
				cur["spec"].(map[string]any)[k] = v
			}
			body = cur
		}
		r := e.do(c.Method, c.Path, body, admin)
		if r.Code != c.Code || withoutAddresses(r.Obj["message"]) != withoutAddresses(c.Message) {
			t.Errorf("%s %s:\n got %d %s\nkube %d %s", c.Method, c.Path, r.Code, r.Obj["message"], c.Code, c.Message)
		}
	}
}

// TestAPF_6_RejectAndQueue: a Reject level answers at once with kube's 429
// (plain text, Retry-After; kube-apiserver 1.32.13 answered exactly so, headers
// and body, to a request of a Reject level whose seats non-reading lists held)
// when its seats are taken; a queuing level queues,
// then rejects what its queues cannot hold (queue-full), and what waits past
// its limit (time-out); the rejections show in the metrics (APF-6, APF-10).
func TestAPF_6_RejectAndQueue(t *testing.T) {
	// Its users are bound to nothing: what is measured is APF's, which
	// classifies and queues a request before it is authorized.
	e := newEnv(t, Config{Authorization: auth.ModeAlwaysAllow})
	// A Reject level of one seat, and a queuing level of one queue of one.
	levels := []object.Object{
		{"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration", "metadata": map[string]any{"name": "tight"},
			"spec": map[string]any{"type": "Limited", "limited": map[string]any{"nominalConcurrencyShares": 1, "lendablePercent": 0, "borrowingLimitPercent": 0,
				"limitResponse": map[string]any{"type": "Reject"}}}},
		{"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration", "metadata": map[string]any{"name": "queued"},
			"spec": map[string]any{"type": "Limited", "limited": map[string]any{"nominalConcurrencyShares": 1, "lendablePercent": 0, "borrowingLimitPercent": 0,
				"limitResponse": map[string]any{"type": "Queue", "queuing": map[string]any{"queues": 1, "handSize": 1, "queueLengthLimit": 1}}}}},
	}
	for _, l := range levels {
		if r := e.do("POST", fcPath+"prioritylevelconfigurations", l, admin); r.Code != 201 {
			t.Fatalf("%d %s", r.Code, r.Body)
		}
		fs := object.DeepCopy(listEventsDefaultSA)
		name := object.MetaString(l, "name")
		object.Meta(fs)["name"] = name
		spec := fs["spec"].(map[string]any)
		spec["priorityLevelConfiguration"] = map[string]any{"name": name}
		spec["rules"] = []any{map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{"*"}, "namespaces": []any{"*"}, "resources": []any{"*"}, "verbs": []any{"*"}, "clusterScope": true}},
			"subjects": []any{map[string]any{"kind": "User", "user": map[string]any{"name": name + "-user"}}}}}
		spec["matchingPrecedence"] = 500
		if r := e.do("POST", fcPath+"flowschemas", fs, admin); r.Code != 201 {
			t.Fatalf("%d %s", r.Code, r.Body)
		}
	}
	e.eventually("the levels in use", func() bool {
		fs, _ := e.classifiedAs(e.doH("GET", "/api/v1/namespaces", nil, impersonating("queued-user")))
		return fs == "queued"
	})
	slow := func(user string, work string) http.Header {
		h := impersonating(user)
		h.Set("X-Kubeplay-Simulated-Work", work)
		return h
	}
	// Reject: one request holds the seat; the next is turned away at once.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); e.doH("GET", "/api/v1/namespaces", nil, slow("tight-user", "1s")) }()
	e.eventually("the seat taken", func() bool {
		return strings.Contains(e.state(), `"name":"tight"`) && e.levelState("tight")["executing"] == json.Number("1")
	})
	r := e.doH("GET", "/api/v1/namespaces", nil, impersonating("tight-user"))
	if r.Code != 429 || string(r.Body) != "Too many requests, please try again later.\n" || r.Header.Get("Retry-After") != "1" ||
		r.Header.Get("Content-Type") != "text/plain; charset=utf-8" || r.Header.Get("X-Kubernetes-PF-PriorityLevel-UID") != e.uid("prioritylevelconfigurations", "tight") {
		t.Errorf("reject: %d %v %q", r.Code, r.Header, r.Body)
	}
	// Queue: one executes, one waits, the third finds the queue full.
	wg.Add(2)
	go func() { defer wg.Done(); e.doH("GET", "/api/v1/namespaces", nil, slow("queued-user", "1s")) }()
	e.eventually("executing", func() bool { return e.levelState("queued")["executing"] == json.Number("1") })
	waited := make(chan resp, 1)
	go func() {
		defer wg.Done()
		waited <- e.doH("GET", "/api/v1/namespaces", nil, impersonating("queued-user"))
	}()
	e.eventually("waiting", func() bool { return e.levelState("queued")["waiting"] == json.Number("1") })
	if r := e.doH("GET", "/api/v1/namespaces", nil, impersonating("queued-user")); r.Code != 429 {
		t.Errorf("queue full: %d", r.Code)
	}
	if r := <-waited; r.Code != 200 {
		t.Errorf("the queued request: %d %s", r.Code, r.Body)
	}
	wg.Wait()
	m := string(e.do("GET", "/metrics", nil, admin).Body)
	for _, want := range []string{
		`apiserver_flowcontrol_rejected_requests_total{flow_schema="tight",priority_level="tight",reason="concurrency-limit"} 1`,
		`apiserver_flowcontrol_rejected_requests_total{flow_schema="queued",priority_level="queued",reason="queue-full"} 1`,
		`apiserver_flowcontrol_dispatched_requests_total{flow_schema="queued",priority_level="queued"} 3`,
		`apiserver_flowcontrol_request_wait_duration_seconds_count{execute="true",flow_schema="queued",priority_level="queued"} 3`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func (e *env) state() string { return string(e.do("GET", "/debug/kubeplay/apf", nil, admin).Body) }

func (e *env) levelState(name string) map[string]any {
	st, _ := object.Decode(e.do("GET", "/debug/kubeplay/apf", nil, admin).Body)
	levels, _ := st["levels"].([]any)
	for _, l := range levels {
		if m, _ := l.(map[string]any); m["name"] == name {
			return m
		}
	}
	return nil
}

// TestAPF_10_MetricsAsKube: /metrics names every APF family kube-apiserver
// 1.32.13 showed (testdata/kube-metrics.txt), with its help text, type and
// labels, and the seats kube computes for its own default of 600 seats.
func TestAPF_10_MetricsAsKube(t *testing.T) {
	e := newEnv(t, Config{Seats: 600})
	data, err := os.ReadFile("../flowcontrol/testdata/kube-metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	e.do("POST", "/api/v1/namespaces/default/configmaps", object.Object{"metadata": map[string]any{"name": "w"}}, admin) // a write: watch_count_samples
	ours := string(e.do("GET", "/metrics", nil, admin).Body)
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "# HELP"), strings.HasPrefix(line, "# TYPE"):
			if !strings.Contains(ours, line+"\n") {
				t.Errorf("missing %s", line)
			}
		case strings.Contains(line, "_limit_seats{"):
			// Configured seats are kube's exactly.
			if !strings.Contains(ours, line+"\n") && !strings.Contains(line, "current_limit") {
				t.Errorf("kube has %s", line)
			}
		}
	}
	if got := strings.Count(ours, "# TYPE apiserver_flowcontrol_"); got < 21 {
		t.Errorf("%d families", got)
	}
	if !slices.Contains(strings.Split(ours, "\n"), `apiserver_flowcontrol_nominal_limit_seats{priority_level="workload-low"} 245`) {
		t.Error("workload-low's nominal seats differ from kube's")
	}
	_ = time.Second
}

// tinyLevel creates a queuing level of one seat (one queue of ten) and a
// FlowSchema sending user's requests to it.
func (e *env) tinyLevel(name, user string) {
	e.t.Helper()
	pl := object.Object{"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"type": "Limited", "limited": map[string]any{"nominalConcurrencyShares": 1, "lendablePercent": 0, "borrowingLimitPercent": 0,
			"limitResponse": map[string]any{"type": "Queue", "queuing": map[string]any{"queues": 1, "handSize": 1, "queueLengthLimit": 10}}}}}
	fs := object.Object{"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"matchingPrecedence": 500, "priorityLevelConfiguration": map[string]any{"name": name},
			"rules": []any{map[string]any{
				"resourceRules":    []any{map[string]any{"apiGroups": []any{"*"}, "namespaces": []any{"*"}, "resources": []any{"*"}, "verbs": []any{"*"}, "clusterScope": true}},
				"nonResourceRules": []any{map[string]any{"nonResourceURLs": []any{"*"}, "verbs": []any{"*"}}},
				"subjects":         []any{map[string]any{"kind": "User", "user": map[string]any{"name": user}}}}}}}
	for _, o := range []struct {
		plural string
		obj    object.Object
	}{{"prioritylevelconfigurations", pl}, {"flowschemas", fs}} {
		if r := e.do("POST", fcPath+o.plural, o.obj, admin); r.Code != 201 {
			e.t.Fatalf("%d %s", r.Code, r.Body)
		}
	}
	e.eventually(name+" in use", func() bool {
		fs, _ := e.classifiedAs(e.doH("GET", "/api/v1/namespaces", nil, impersonating(user)))
		return fs == name
	})
}

// TestAPF_7_WatchHoldsSeatOnlyWhileInitializing: on a level of one seat, an
// open watch does not keep the next request waiting: its seat went back once
// its initial events were sent (APF-7).
func TestAPF_7_WatchHoldsSeatOnlyWhileInitializing(t *testing.T) {
	e := newEnv(t, Config{Authorization: auth.ModeAlwaysAllow}) // the watcher is bound to nothing

	e.tinyLevel("one-seat", "watcher")
	for _, q := range []string{"?watch=1", "?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"} {
		req, _ := http.NewRequest("GET", e.hs.URL+"/api/v1/namespaces"+q, nil)
		req.Header = impersonating("watcher")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != 200 || res.Header.Get("X-Kubernetes-PF-FlowSchema-UID") != e.uid("flowschemas", "one-seat") {
			t.Fatalf("watch: %d %v", res.StatusCode, res.Header)
		}
		e.eventually("the watch's seat back", func() bool { return e.levelState("one-seat")["seatsInUse"] == json.Number("0") })
		if r := e.doH("GET", "/api/v1/namespaces", nil, impersonating("watcher")); r.Code != 200 {
			t.Errorf("a request while %s is open: %d", q, r.Code)
		}
		res.Body.Close()
	}
}

// TestAPF_8_ExemptAndLongRunning: no configuration keeps system:masters (the
// exempt level) waiting, nor lets a stray FlowSchema lock the server out: with
// every other request sent to a level that rejects, the super-admin is served
// and can undo it; long-running requests (logs) are not classified at all
// (APF-8).
func TestAPF_8_ExemptAndLongRunning(t *testing.T) {
	e := newEnv(t, Config{})
	deny := object.DeepCopy(listEventsDefaultSA)
	object.Meta(deny)["name"] = "everything-to-catch-all"
	spec := deny["spec"].(map[string]any)
	spec["matchingPrecedence"] = 2
	spec["rules"] = []any{map[string]any{
		"resourceRules":    []any{map[string]any{"apiGroups": []any{"*"}, "namespaces": []any{"*"}, "resources": []any{"*"}, "verbs": []any{"*"}, "clusterScope": true}},
		"nonResourceRules": []any{map[string]any{"nonResourceURLs": []any{"*"}, "verbs": []any{"*"}}},
		"subjects":         []any{map[string]any{"kind": "Group", "group": map[string]any{"name": "*"}}}}}
	if r := e.do("POST", fcPath+"flowschemas", deny, admin); r.Code != 201 {
		t.Fatalf("%d %s", r.Code, r.Body)
	}
	super := superAdmin
	uids := func() [2]string {
		return [2]string{object.MetaString(e.do("GET", fcPath+"flowschemas/exempt", nil, super).Obj, "uid"),
			object.MetaString(e.do("GET", fcPath+"prioritylevelconfigurations/exempt", nil, super).Obj, "uid")}
	}
	before := uids()
	e.eventually("everything else to catch-all", func() bool {
		fs, _ := e.classifiedAs(e.do("GET", "/api/v1/namespaces", nil, admin))
		return fs == "everything-to-catch-all"
	})
	r := e.do("GET", "/api/v1/namespaces", nil, super)
	if fs, pl := e.classifiedAs(r); r.Code != 200 || fs != "exempt" || pl != "exempt" {
		t.Errorf("super-admin: %d %s %s", r.Code, fs, pl)
	}
	if r := e.do("DELETE", fcPath+"flowschemas/everything-to-catch-all", nil, super); r.Code != 200 {
		t.Errorf("undo: %d %s", r.Code, r.Body)
	}
	if after := uids(); after != before || before[0] == "" || before[1] == "" {
		t.Errorf("the mandatory exempt objects were replaced: %v, then %v", before, after)
	}
	// A log request is long-running: no APF headers.
	e.do("POST", "/api/v1/namespaces/default/pods", object.Object{"metadata": map[string]any{"name": "p"}, "spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}}}, admin)
	if r := e.do("GET", "/api/v1/namespaces/default/pods/p/log", nil, admin); r.Header.Get("X-Kubernetes-PF-FlowSchema-UID") != "" {
		t.Errorf("log classified: %v", r.Header)
	}
}

// TestAPF_11_DebugViews: kube's dumps list every level (with kube's columns)
// and the JSON view shows a waiting flow's queue and hand (APF-11).
func TestAPF_11_DebugViews(t *testing.T) {
	e := newEnv(t, Config{})
	e.tinyLevel("one-seat", "mouse")
	slow := impersonating("mouse")
	slow.Set("X-Kubeplay-Simulated-Work", "500ms")
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); e.doH("GET", "/api/v1/namespaces", nil, slow) }()
	}
	e.eventually("one waiting", func() bool { return e.levelState("one-seat")["waiting"] == json.Number("1") })
	st := e.levelState("one-seat")
	flows, _ := st["flows"].([]any)
	queues, _ := st["activeQueues"].([]any)
	if len(flows) != 1 || object.Path(flows[0], "waiting") != json.Number("1") || len(queues) != 1 {
		t.Errorf("state: %v", st)
	}
	hand := e.do("GET", "/debug/kubeplay/apf?flowSchema=global-default&distinguisher=alice", nil, admin).Obj["hand"]
	if q, _ := object.Path(hand, "queues").([]any); len(q) != 6 {
		t.Errorf("hand: %v", hand)
	}
	for path, head := range map[string]string{
		"dump_priority_levels": "PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, DispatchedRequests, RejectedRequests, TimedoutRequests, CancelledRequests",
		"dump_queues":          "PriorityLevelName, Index,",
		"dump_requests":        "PriorityLevelName, FlowSchemaName, QueueIndex, RequestIndexInQueue, FlowDistingsher, ArriveTime,",
	} {
		r := e.do("GET", "/debug/api_priority_and_fairness/"+path, nil, admin)
		if r.Code != 200 || !strings.HasPrefix(strings.Join(strings.Fields(string(r.Body)), " "), head) || !strings.Contains(string(r.Body), "one-seat,") {
			t.Errorf("%s: %d %s", path, r.Code, r.Body)
		}
	}
	wg.Wait()
}

// TestK8S_FID_1_APF_1_DanglingConditionApplied: the configuration controller
// writes a FlowSchema's Dangling condition as kube's does, by a forced
// server-side apply of the status holding only that condition: its
// managedFields entry is kube's (recorded from kube-apiserver 1.32.13).
func TestK8S_FID_1_APF_1_DanglingConditionApplied(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.do("POST", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", map[string]any{
		"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema", "metadata": map[string]any{"name": "fid"},
		"spec": map[string]any{"priorityLevelConfiguration": map[string]any{"name": "global-default"}, "matchingPrecedence": 5000,
			"rules": []any{map[string]any{"subjects": []any{map[string]any{"kind": "User", "user": map[string]any{"name": "nobody"}}},
				"nonResourceRules": []any{map[string]any{"verbs": []any{"get"}, "nonResourceURLs": []any{"/x"}}}}}},
	}, admin)
	if r.Code != 201 {
		t.Fatalf("create: %d %s", r.Code, r.Body)
	}
	var entry any
	e.eventually("the Dangling condition", func() bool {
		r = e.do("GET", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/fid", nil, admin)
		for _, m := range object.Objects(object.Meta(r.Obj), "managedFields") {
			if m["manager"] == "api-priority-and-fairness-config-consumer-v1" {
				entry = m
			}
		}
		return entry != nil
	})
	m := entry.(map[string]any)
	delete(m, "time")
	want := `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{"k:{\"type\":\"Dangling\"}":` +
		`{".":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}}}},"manager":"api-priority-and-fairness-config-consumer-v1",` +
		`"operation":"Apply","subresource":"status"}`
	if got, _ := json.Marshal(m); string(got) != want {
		t.Fatalf("managedFields entry\n got %s\nwant %s", got, want)
	}
}
