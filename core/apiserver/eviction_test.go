package apiserver

import (
	"encoding/json"
	"regexp"
	"testing"
)

// The evictions whose answers kube-apiserver 1.32.13 gave are recorded in
// testdata/eviction-kube-1.32.13.json (TestRecordEvictionKube writes it).
// kube-apiserver alone runs no disruption controller: the cases write the
// budgets' status themselves, as the controller would.

const (
	evictionKubeFile = "testdata/eviction-kube-1.32.13.json"
	pdbTableKubeFile = "testdata/poddisruptionbudgets-table-kube-1.32.13.json"
	pdbTable         = kubePDBs + "?includeObject=None"
	kubePDBs         = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
)

// evPod is a Pod on node-1 labelled app=app.
func evPod(name, app string) kubeStep {
	return kpost(kubePods, `{"metadata":{"name":"`+name+`","labels":{"app":"`+app+`"}},"spec":{"nodeName":"node-1",`+kubeOneContainer+`}}`)
}

// evRunning makes the Pod Running, ready or not.
func evRunning(name, ready string) kubeStep {
	return kpatch(kubePods+"/"+name+"/status", `{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"`+ready+`"}]}}`)
}

// evBudget is the status a disruption controller would write: observed,
// with current and desired healthy Pods and the disruptions allowed.
func evBudget(name string, current, desired, allowed int) kubeStep {
	reason, status := "InsufficientPods", "False"
	if allowed > 0 {
		reason, status = "SufficientPods", "True"
	}
	b, _ := json.Marshal(map[string]any{"status": map[string]any{"observedGeneration": 1, "currentHealthy": current, "desiredHealthy": desired,
		"expectedPods": current, "disruptionsAllowed": allowed, "conditions": []any{map[string]any{"type": "DisruptionAllowed", "status": status,
			"reason": reason, "message": "", "observedGeneration": 1, "lastTransitionTime": "2026-01-01T00:00:00Z"}}}})
	return kpatch(kubePDBs+"/"+name+"/status", string(b))
}

func evict(name, deleteOptions string) kubeStep {
	body := `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"` + name + `"}`
	if deleteOptions != "" {
		body += `,"deleteOptions":` + deleteOptions
	}
	return kpost(kubePods+"/"+name+"/eviction", body+"}")
}

var evictionCases = []kubeCase{
	kcase("eviction within a budget",
		kpost(kubePDBs, `{"metadata":{"name":"ev"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"ev"}}}}`),
		evPod("ev-ready", "ev"), evRunning("ev-ready", "True"),
		evict("ev-ready", ""), // the budget's status is not current yet
		evBudget("ev", 1, 1, 0),
		evict("ev-ready", ""), // nothing allowed
		evBudget("ev", 2, 1, 1),
		evict("ev-ready", ""),
		kubeStep{"GET", kubePDBs + "/ev", ""},
		kubeStep{"GET", kubePods + "/ev-ready", ""},
		// Unready, while the budget is met: goes, the budget untouched.
		evPod("ev-unready", "ev"), evRunning("ev-unready", "False"),
		evBudget("ev", 1, 1, 0),
		evict("ev-unready", ""),
		kubeStep{"GET", kubePods + "/ev-unready", ""},
		kubeStep{"GET", kubePDBs + "/ev", ""},
		// Pending (not running): goes whatever the budget.
		evPod("ev-pending", "ev"),
		evict("ev-pending", ""),
		kubeStep{"GET", kubePods + "/ev-pending", ""},
	),
	kcase("eviction refused",
		kpost(kubePDBs, `{"metadata":{"name":"nm"},"spec":{"minAvailable":2,"selector":{"matchLabels":{"app":"nm"}}}}`),
		evPod("nm-1", "nm"), evRunning("nm-1", "False"),
		evBudget("nm", 0, 2, 0),
		evict("nm-1", ""), // unready, the budget not met
		evict("nm-1", `{"ignoreStoreReadErrorWithClusterBreakingPotential":true}`),
		evict("nm-missing", ""),
		kpost(kubePods+"/nm-1/eviction", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"other"}}`),
		kpost(kubePDBs, `{"metadata":{"name":"nm-2"},"spec":{"maxUnavailable":1,"selector":{"matchLabels":{"app":"nm"}}}}`),
		evRunning("nm-1", "True"),
		evict("nm-1", ""), // two budgets
		kubeStep{"GET", kubePods + "/nm-1", ""},
	),
	kcase("eviction of unhealthy pods always allowed",
		kpost(kubePDBs, `{"metadata":{"name":"aa"},"spec":{"maxUnavailable":0,"unhealthyPodEvictionPolicy":"AlwaysAllow","selector":{"matchLabels":{"app":"aa"}}}}`),
		evPod("aa-1", "aa"), evRunning("aa-1", "False"),
		evBudget("aa", 0, 1, 0),
		evict("aa-1", ""),
		kubeStep{"GET", kubePods + "/aa-1", ""},
	),
	kcase("eviction dry run",
		kpost(kubePDBs, `{"metadata":{"name":"dr"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"dr"}}}}`),
		evPod("dr-1", "dr"), evRunning("dr-1", "True"),
		evBudget("dr", 2, 1, 1),
		evict("dr-1", `{"dryRun":["All"]}`),
		kubeStep{"GET", kubePDBs + "/dr", ""},
		kubeStep{"GET", kubePods + "/dr-1", ""},
		evict("dr-1", `{"preconditions":{"uid":"0d3b6f4e-0000-4000-8000-000000000000"}}`),
		kubeStep{"GET", kubePDBs + "/dr", ""},
	),
	kcase("budget in percent",
		kpost(kubePDBs, `{"metadata":{"name":"pct"},"spec":{"maxUnavailable":"25%","selector":{}}}`),
		kubeStep{"GET", kubePDBs + "/pct", ""},
	),
}

// pdbValidationCases are budgets kube refuses.
var pdbValidationCases = []kubeCase{
	kcase("pdb invalid",
		kpost(kubePDBs, `{"metadata":{"name":"both"},"spec":{"minAvailable":1,"maxUnavailable":"10%","selector":{"matchLabels":{"app":"x"}}}}`),
		kpost(kubePDBs, `{"metadata":{"name":"neg"},"spec":{"minAvailable":-1}}`),
		kpost(kubePDBs, `{"metadata":{"name":"pct"},"spec":{"maxUnavailable":"120%"}}`),
		kpost(kubePDBs, `{"metadata":{"name":"word"},"spec":{"minAvailable":"abc"}}`),
		kpost(kubePDBs, `{"metadata":{"name":"sel"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"a b":"x"},"matchExpressions":[{"key":"k","operator":"Has"}]}}}`),
		kpost(kubePDBs, `{"metadata":{"name":"policy"},"spec":{"minAvailable":1,"unhealthyPodEvictionPolicy":"Sometimes"}}`),
		kpost(kubePDBs, `{"metadata":{"name":"ok"},"spec":{"minAvailable":"50%"}}`),
		kpatch(kubePDBs+"/ok", `{"spec":{"minAvailable":"200%"}}`),
		kpatch(kubePDBs+"/ok/status", `{"status":{"disruptionsAllowed":-1,"currentHealthy":-2,"desiredHealthy":1,"expectedPods":-3}}`),
		kpatch(kubePDBs+"/ok/status", `{"status":{"conditions":[{"type":"DisruptionAllowed","status":"Maybe","reason":"bad reason","message":"","lastTransitionTime":null}]}}`),
		kubeStep{"GET", kubePDBs + "/ok", ""},
	),
}

// TestRecordEvictionKube writes evictionKubeFile from a real kube-apiserver
// (a fresh instance, NO_SA_ADMISSION=1).
func TestRecordEvictionKube(t *testing.T) {
	recordKube(t, evictionKubeFile, "the requests of evictionCases and pdbValidationCases in eviction_test.go", append(evictionCases, pdbValidationCases...))
	recordKubeTable(t, pdbTableKubeFile, pdbTable)
}

// times are the timestamps neither server decides alike, and pointers the
// addresses kube's messages quote.
var (
	times    = regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"`)
	pointers = regexp.MustCompile(`\(0x[0-9a-f]+\)`)
)

// TestK8S_URI_3_EvictionAsKube: the eviction subresource honours
// PodDisruptionBudgets as kube's does: 429 with the DisruptionBudget cause
// while a budget's status is not current or allows nothing, one disruption
// used up and the Pod recorded as disrupted (the budget's condition
// InsufficientPods once none is left), the DisruptionTarget condition on
// the Pod before its graceful deletion, unready Pods evicted as read while
// the budget is met or its policy is AlwaysAllow, pending Pods at once,
// dry runs that change nothing, kube's answer for a Pod of two budgets,
// and the refusals of a bad eviction. The budgets print in kube's columns
// (minAvailable, maxUnavailable, the disruptions allowed), those of the
// validation cases too, as recorded.
func TestK8S_URI_3_EvictionAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	replayEviction(t, s, append(evictionCases, pdbValidationCases...))
	compareKubeTable(t, s, pdbTableKubeFile, pdbTable, 4)
}

// TestK8S_WRITE_5_PodDisruptionBudgetValidationAsKube: kube's 422s for a
// budget's spec (both minAvailable and maxUnavailable, a negative count, a
// percentage past 100% or no percentage, a bad selector, an unknown
// unhealthyPodEvictionPolicy) and its status (negative counts, bad
// conditions).
func TestK8S_WRITE_5_PodDisruptionBudgetValidationAsKube(t *testing.T) {
	replayEviction(t, newTestServer(t, testConfig{}), pdbValidationCases)
}

// replayEviction replays cases as replayKube does, with the timestamps and
// the pointers kube quotes made alike.
func replayEviction(t *testing.T, s *testServer, cases []kubeCase) {
	answers := loadKube(t, evictionKubeFile)
	alike := func(b []byte) []byte {
		return pointers.ReplaceAll(times.ReplaceAll(b, []byte(`"2000-01-01T00:00:00Z"`)), []byte("(0x0)"))
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			want := answers[c.id]
			if len(want) != len(c.steps) {
				t.Fatalf("%d answers recorded for %d steps: record again", len(want), len(c.steps))
			}
			for i, step := range c.steps {
				r := s.do(step.method, step.path, step.body, "Content-Type", stepContentType(step))
				r.Body, r.Obj = alike(r.Body), nil
				_ = json.Unmarshal(r.Body, &r.Obj)
				want[i].Body = alike(want[i].Body)
				if err := compareKubeAnswer(c.id, step, r, want[i]); err != nil {
					t.Errorf("%s %s (step %d): %v", step.method, step.path, i, err)
				}
			}
		})
	}
}
