package sim_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/quantity"
	"kubeplay/core/sim"
	"kubeplay/core/web"
)

const phpApache = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"php-apache"},"spec":{"replicas":1,
	"selector":{"matchLabels":{"run":"php-apache"}},"template":{"metadata":{"labels":{"run":"php-apache"}},
	"spec":{"containers":[{"name":"php-apache","image":"registry.k8s.io/hpa-example","resources":{"requests":{"cpu":"200m"},"limits":{"cpu":"500m"}}}]}}}}`

// condition is the status, reason and message of an object's condition.
func condition(obj object.Object, typ string) string {
	for _, c := range object.Objects(object.Child(obj, "status"), "conditions") {
		if c["type"] == typ {
			return object.String(c["status"]) + " " + object.String(c["reason"]) + ": " + object.String(c["message"])
		}
	}
	return ""
}

// TestCONF_1_MetricsServerServesTheModel: the simulated cluster registers
// metrics-server's APIService, which the aggregator finds available; the
// Pods' and nodes' metrics are the usage model's: idle at a twentieth of
// the CPU request, a Service's load spread over the Pods it selects, held
// to the CPU limit.
func TestCONF_1_MetricsServerServesTheModel(t *testing.T) {
	e := newEnv(t, sim.Config{Speed: 10})
	e.until(time.Minute, "metrics-server available", func() bool {
		s, err := e.c.Get(e.ctx, "/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io")
		return err == nil && condition(s, "Available") == "True Passed: all checks passed"
	})
	e.create(deployments, phpApache)
	e.create("/api/v1/namespaces/default/services", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"php-apache"},"spec":{"selector":{"run":"php-apache"},"ports":[{"port":80}]}}`)
	e.until(time.Minute, "rolled out", func() bool { return e.deploymentDone("default", "php-apache") })
	var pod object.Object
	e.until(5*time.Minute, "pod metrics", func() bool {
		l, err := e.c.Get(e.ctx, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=run%3Dphp-apache")
		if err != nil {
			t.Fatal(err)
		}
		if items := object.Objects(l, "items"); len(items) == 1 {
			pod = items[0]
		}
		return pod != nil
	})
	usage := func(p object.Object) string {
		return object.String(object.Path(object.Objects(p, "containers")[0], "usage", "cpu")) + " " +
			object.String(object.Path(object.Objects(p, "containers")[0], "usage", "memory"))
	}
	if got := usage(pod); got != "10m 4Mi" || object.String(pod["window"]) != "15s" || object.Labels(pod)["run"] != "php-apache" {
		t.Errorf("idle pod metrics: %s %v", got, pod)
	}
	name := object.MetaString(pod, "name")
	// metrics-server's JSON, its fields in its order.
	raw, err := e.c.Do(e.ctx, web.MethodGet, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/"+name, "", nil)
	want := `{"kind":"PodMetrics","apiVersion":"metrics.k8s.io/v1beta1","metadata":{"name":"` + name + `","namespace":"default","creationTimestamp":"2026-03-01T09:0\d:\d\dZ",` +
		`"labels":{"pod-template-hash":"[a-z0-9]+","run":"php-apache"}},"timestamp":"2026-03-01T09:0\d:\d[05]Z","window":"15s",` +
		`"containers":\[{"name":"php-apache","usage":{"cpu":"10m","memory":"4Mi"}}\]}`
	if err != nil || !regexp.MustCompile("^"+want+"\n$").Match(raw) {
		t.Errorf("pod metrics: %v %s", err, raw)
	}
	// metrics-server sees the Service's annotation once its informer does.
	e.patch("/api/v1/namespaces/default/services/php-apache", `{"metadata":{"annotations":{"kubeplay.dev/cpu-load":"300m"}}}`)
	e.until(time.Second, "loaded", func() bool {
		return usage(e.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/"+name)) == "310m 4Mi"
	})
	e.patch("/api/v1/namespaces/default/services/php-apache", `{"metadata":{"annotations":{"kubeplay.dev/cpu-load":"2"}}}`)
	e.until(time.Second, "at the CPU limit", func() bool {
		return usage(e.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/"+name)) == "500m 4Mi"
	})
	nodes := object.Objects(e.get("/apis/metrics.k8s.io/v1beta1/nodes"), "items")
	var names []string
	var total int64
	for _, n := range nodes {
		names = append(names, object.MetaString(n, "name"))
		total += quantity.MilliValue(object.String(object.Path(n, "usage", "cpu")))
	}
	// The nodes' daemons (240m on the control plane, 60m on a worker) and the Pod.
	if mustJSON(names) != `["kubeplay-control-plane","kubeplay-worker","kubeplay-worker2"]` || total != 860 {
		t.Fatalf("node metrics: %v", nodes)
	}
	if _, err := e.c.Get(e.ctx, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope"); err == nil || err.Error() != `404 NotFound: pods "nope" not found` {
		t.Errorf("missing pod: %v", err)
	}
}

// TestCONF_1_HorizontalPodAutoscalerScales: an autoscaler of a Deployment
// at 50% of its CPU request scales it up as a Service's load rises (at
// most to twice its size, 4 at least, per sync; at most to maxReplicas),
// with kube's conditions, status and events, once every sync period
// (15 s), and back down once the load is gone, only after the downscale
// stabilization window (300 s).
func TestCONF_1_HorizontalPodAutoscalerScales(t *testing.T) {
	e := newEnv(t, sim.Config{Speed: 10})
	e.create(deployments, phpApache)
	e.create("/api/v1/namespaces/default/services", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"php-apache"},"spec":{"selector":{"run":"php-apache"},"ports":[{"port":80}]}}`)
	e.until(time.Minute, "rolled out", func() bool { return e.deploymentDone("default", "php-apache") })
	const hpas = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
	e.create(hpas, `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"php-apache"},"spec":{
		"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"php-apache"},"minReplicas":1,"maxReplicas":5,
		"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}]}}`)
	var hpa object.Object
	e.until(5*time.Minute, "idle metrics seen", func() bool {
		hpa = e.get(hpas + "/php-apache")
		return condition(hpa, "ScalingActive") == "True ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)"
	})
	if got := mustJSON(object.Path(hpa, "status", "currentMetrics")); got != `[{"resource":{"current":{"averageUtilization":5,"averageValue":"10m"},"name":"cpu"},"type":"Resource"}]` {
		t.Errorf("current metrics: %s", got)
	}
	if got := condition(hpa, "AbleToScale"); got != "True ReadyForNewScale: recommended size matches current size" {
		t.Errorf("AbleToScale: %s", got)
	}
	if got := condition(hpa, "ScalingLimited"); got != "False DesiredWithinRange: the desired count is within the acceptable range" {
		t.Errorf("ScalingLimited: %s", got)
	}
	if num(hpa, "status", "desiredReplicas") != 1 || num(hpa, "status", "currentReplicas") != 1 || object.Path(hpa, "status", "lastScaleTime") != nil {
		t.Errorf("idle status: %v", hpa["status"])
	}

	// 600m of load on one Pod of 200m: 305% of its request, 7 Pods wanted;
	// 4 at first (the scale-up limit), then 5 (maxReplicas).
	e.patch("/api/v1/namespaces/default/services/php-apache", `{"metadata":{"annotations":{"kubeplay.dev/cpu-load":"600m"}}}`)
	e.until(5*time.Minute, "scaled to 4", func() bool { return num(e.get(deployments+"/php-apache"), "spec", "replicas") == 4 })
	four := e.clock.Now()
	e.until(5*time.Minute, "scaled to 5", func() bool { return num(e.get(deployments+"/php-apache"), "spec", "replicas") == 5 })
	if waited := e.clock.Now().Sub(four); waited < 15*time.Second {
		t.Errorf("scaled again %v after; want the next sync, 15 s later", waited)
	}
	e.until(5*time.Minute, "limited", func() bool {
		hpa = e.get(hpas + "/php-apache")
		return condition(hpa, "ScalingLimited") == "True TooManyReplicas: the desired replica count is more than the maximum replica count"
	})
	if object.Path(hpa, "status", "lastScaleTime") == nil || num(hpa, "status", "desiredReplicas") != 5 {
		t.Errorf("scaled status: %v", hpa["status"])
	}
	events := rescales(e.events("default", "HorizontalPodAutoscaler", "php-apache"))
	want := []string{
		"SuccessfulRescale New size: 4; reason: cpu resource utilization (percentage of request) above target",
		"SuccessfulRescale New size: 5; reason: cpu resource utilization (percentage of request) above target",
	}
	if !slices.Equal(events, want) {
		t.Errorf("events:\n%q\nwant\n%q", events, want)
	}

	// The load goes: the autoscaler keeps 5 Pods for the stabilization
	// window after its last high recommendation, then scales down to 1.
	e.patch("/api/v1/namespaces/default/services/php-apache", `{"metadata":{"annotations":{"kubeplay.dev/cpu-load":null}}}`)
	e.until(5*time.Minute, "stabilized", func() bool {
		return condition(e.get(hpas+"/php-apache"), "AbleToScale") == "True ScaleDownStabilized: recent recommendations were higher than current one, applying the highest recent recommendation"
	})
	calm := e.clock.Now()
	e.until(30*time.Minute, "scaled down", func() bool { return num(e.get(deployments+"/php-apache"), "spec", "replicas") == 1 })
	if waited := e.clock.Now().Sub(calm); waited < 4*time.Minute || waited > 5*time.Minute+30*time.Second {
		t.Errorf("scaled down %v after the load went; want the rest of the 300 s window", waited)
	}
	e.until(time.Second, "scaled down event", func() bool {
		events = rescales(e.events("default", "HorizontalPodAutoscaler", "php-apache"))
		return len(events) == 3
	})
	if last := events[2]; last != "SuccessfulRescale New size: 1; reason: All metrics below target" {
		t.Errorf("last event: %q", last)
	}
}

// rescales are the SuccessfulRescale events of events (a new Pod has no
// metrics for its first window: kube's autoscaler warns of it first).
func rescales(events []string) []string {
	var out []string
	for _, ev := range events {
		if strings.HasPrefix(ev, "SuccessfulRescale ") {
			out = append(out, ev)
		}
	}
	return out
}

// TestCONF_1_HorizontalPodAutoscalerFailures: what an autoscaler says when
// it cannot scale, in kube's reasons and messages: a target that does not
// exist; Pods that request no CPU; a target scaled to zero.
func TestCONF_1_HorizontalPodAutoscalerFailures(t *testing.T) {
	e := newEnv(t, sim.Config{Speed: 10})
	const hpas = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
	autoscaler := func(name, target string) {
		e.create(hpas, `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"`+name+`"},"spec":{
			"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"`+target+`"},"maxReplicas":3}}`)
	}
	says := func(name, typ, want string) {
		t.Helper()
		e.until(5*time.Minute, name+" "+typ, func() bool { return condition(e.get(hpas+"/"+name), typ) == want })
	}
	autoscaler("missing", "nope")
	says("missing", "AbleToScale", `False FailedGetScale: the HPA controller was unable to get the target's current scale: deployments.apps "nope" not found`)

	e.create(deployments, webDeployment(1))
	e.until(time.Minute, "web rolled out", func() bool { return e.deploymentDone("default", "web") })
	autoscaler("web", "web")
	e.until(5*time.Minute, "web's metrics", func() bool {
		return len(object.Objects(e.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods"), "items")) == 1
	})
	pod := object.MetaString(e.list("/api/v1/namespaces/default/pods")[0], "name")
	says("web", "ScalingActive", "False FailedGetResourceMetric: the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container nginx of Pod "+pod)
	if got := mustJSON(object.Path(e.get(hpas+"/web"), "status", "currentMetrics")); got != `[{"type":""}]` {
		t.Errorf("current metrics of a failed metric: %s", got)
	}

	e.patch(deployments+"/web", `{"spec":{"replicas":0}}`)
	says("web", "ScalingActive", "False ScalingDisabled: scaling is disabled since the replica count of the target is zero")
}

// TestCONF_1_MetricsServerConversions: metrics-server's answers as Tables
// (its columns: the name, each resource's usage, the window) and as
// PartialObjectMetadata, and kube's 406 for a list asked of an object.
func TestCONF_1_MetricsServerConversions(t *testing.T) {
	e := newEnv(t, sim.Config{Speed: 10})
	e.until(5*time.Minute, "node metrics", func() bool {
		l, err := e.c.Get(e.ctx, "/apis/metrics.k8s.io/v1beta1/nodes") // 404 until the aggregator serves it
		return err == nil && len(object.Objects(l, "items")) == 3
	})
	get := func(path, accept string) (string, error) {
		b, err := e.c.WithHeader("Accept", accept).Do(e.ctx, web.MethodGet, path, "", nil)
		return string(b), err
	}
	tbl, err := get("/apis/metrics.k8s.io/v1beta1/nodes?includeObject=None", "application/json;as=Table;v=v1;g=meta.k8s.io")
	want := `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[{"name":"Name","type":"string","format":"name","description":"Name of the resource","priority":0},` +
		`{"name":"cpu","type":"string","format":"quantity","description":"","priority":0},{"name":"memory","type":"string","format":"quantity","description":"","priority":0},` +
		`{"name":"Window","type":"string","format":"duration","description":"","priority":0}],` +
		`"rows":[{"cells":["kubeplay-control-plane","240m","960Mi","15s"],"object":null},{"cells":["kubeplay-worker","60m","480Mi","15s"],"object":null},` +
		`{"cells":["kubeplay-worker2","60m","480Mi","15s"],"object":null}]}` + "\n"
	if err != nil || tbl != want {
		t.Errorf("nodes table: %v\n%s\nwant\n%s", err, tbl, want)
	}
	empty, err := get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods", "application/json;as=Table;v=v1;g=meta.k8s.io")
	if err != nil || empty != `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":null,"rows":null}`+"\n" {
		t.Errorf("empty table: %v %s", err, empty)
	}
	partial, err := get("/apis/metrics.k8s.io/v1beta1/nodes/kubeplay-worker", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io")
	if err != nil || !strings.HasPrefix(partial, `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"kubeplay-worker","creationTimestamp":`) {
		t.Errorf("partial: %v %s", err, partial)
	}
	if _, err := get("/apis/metrics.k8s.io/v1beta1/nodes/kubeplay-worker", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"); err == nil ||
		err.Error() != "406 NotAcceptable: you requested PartialObjectMetadataList, but the requested object is not a list (*metrics.NodeMetrics)" {
		t.Errorf("a list of an object: %v", err)
	}
}
