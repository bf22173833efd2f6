package metricsserver

import (
	"encoding/json"
	"fmt"
	"testing"

	"kubeplay/core/controllers"
)

// pod is a Pod of the usage model's tests, its containers running since
// 09:00.
func pod(t *testing.T, doc string) *controllers.Pod {
	t.Helper()
	var p controllers.Pod
	if err := json.Unmarshal([]byte(doc), &p); err != nil {
		t.Fatal(err)
	}
	p.Status.Phase, p.Spec.NodeName = "Running", "kubeplay-worker"
	for _, c := range p.Spec.Containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, controllers.ContainerStatus{Name: c.Name,
			State: controllers.ContainerState{Running: &controllers.Running{StartedAt: "2026-03-01T09:00:00Z"}}})
	}
	return &p
}

// TestCONF_1_UsageModel: what each container of each Pod uses: idle at a
// twentieth of its CPU request (1m at least), half its memory request (4Mi
// without one); a Service's load spread evenly over the running Pods it
// selects and, within a Pod, by request (evenly without requests); a Pod's
// own load; CPU held to the limit; a container that has not run a whole
// window has no numbers yet.
func TestCONF_1_UsageModel(t *testing.T) {
	const since = "2026-03-01T09:00:15Z"
	a := pod(t, `{"metadata":{"name":"a","namespace":"ns","labels":{"app":"web"}},"spec":{"containers":[
		{"name":"main","resources":{"requests":{"cpu":"300m","memory":"64Mi"}}},{"name":"side","resources":{"requests":{"cpu":"100m"},"limits":{"cpu":"150m"}}}]}}`)
	b := pod(t, `{"metadata":{"name":"b","namespace":"ns","labels":{"app":"web"},"annotations":{"kubeplay.dev/cpu-load":"1","kubeplay.dev/memory-load":"1Mi"}},"spec":{"containers":[
		{"name":"one"},{"name":"two"}]}}`)
	late := pod(t, `{"metadata":{"name":"late","namespace":"ns","labels":{"app":"web"}},"spec":{"containers":[{"name":"c"}]}}`)
	late.Status.ContainerStatuses[0].State.Running.StartedAt = "2026-03-01T09:00:20Z"
	other := pod(t, `{"metadata":{"name":"other","namespace":"other","labels":{"app":"web"}},"spec":{"containers":[{"name":"c"}]}}`)
	var svc controllers.Service
	_ = json.Unmarshal([]byte(`{"metadata":{"name":"web","namespace":"ns","annotations":{"kubeplay.dev/cpu-load":"800m","kubeplay.dev/memory-load":"20Mi"}},"spec":{"selector":{"app":"web"}}}`), &svc)

	loads := podLoads([]*controllers.Pod{a, b, late, other}, []*controllers.Service{&svc}, since)
	if _, ok := loads["ns/late"]; ok || len(loads) != 3 {
		t.Errorf("measured: %v", loads)
	}
	got := map[string]string{}
	for _, p := range []*controllers.Pod{a, b, other} {
		names, use := containerUsage(p, loads[p.Metadata.Key()], since)
		for i, n := range names {
			q := use[i].quantities()
			got[p.Metadata.Name+"/"+n] = q["cpu"] + " " + q["memory"]
		}
	}
	want := map[string]string{
		// Half the Service's load, 400m and 10Mi, shared by request.
		"a/main": "315m 42Mi", // 15m idle + 300m; 32Mi + 10Mi
		"a/side": "105m 4Mi",  // 5m idle + 100m (under its 150m limit); 4Mi
		// Half the Service's load and its own (1 core, 1Mi), halved.
		"b/one":   "701m 9728Ki", // 1m idle + 700m; 4Mi + 5.5Mi
		"b/two":   "701m 9728Ki",
		"other/c": "1m 4Mi", // another namespace's Service
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("usage:\n%v\nwant\n%v", got, want)
	}
	// The limit holds a container's CPU.
	_, use := containerUsage(a, load{cpu: 2e9}, since)
	if q := use[1].quantities(); q["cpu"] != "150m" {
		t.Errorf("side at its limit: %v", q)
	}
}
