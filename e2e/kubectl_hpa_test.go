package e2e

import (
	"strings"
	"testing"
	"time"
)

// until retries cond every half second for up to limit of real time (the
// simulated cluster runs on the wall clock here).
func until(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); !cond(); time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
	}
}

// TestCONF_1_KubectlTopAndAutoscale is the HorizontalPodAutoscaler
// walkthrough with kubectl 1.32 against a simulated cluster: metrics-server's
// APIService is there and available; `kubectl top nodes` and `kubectl top
// pods` print the simulated usage; `kubectl autoscale` makes an autoscaler
// whose printer columns (`kubectl get hpa`) show the CPU it sees; a load put
// on the Service scales the Deployment up, as the SuccessfulRescale events
// `kubectl describe hpa` shows say.
func TestCONF_1_KubectlTopAndAutoscale(t *testing.T) {
	k := newClusterKubectl(t)
	wantRows(t, "get apiservice", kcTable(k.must("get", "apiservice", "v1beta1.metrics.k8s.io")), [][]string{
		{"NAME", "SERVICE", "AVAILABLE", "AGE"},
		{`v1beta1\.metrics\.k8s\.io`, "kube-system/metrics-server", "True", `\d+s`},
	})
	if out := k.must("api-versions"); !strings.Contains(out, "metrics.k8s.io/v1beta1\n") {
		t.Errorf("api-versions: %s", out)
	}
	k.must("create", "deployment", "php-apache", "--image=registry.k8s.io/hpa-example", "--port=80")
	k.must("set", "resources", "deployment/php-apache", "--requests=cpu=200m", "--limits=cpu=500m")
	k.must("expose", "deployment", "php-apache", "--port=80")
	k.must("rollout", "status", "deployment/php-apache", "--timeout=60s")

	var top string
	until(t, time.Minute, "kubectl top pods", func() bool {
		out, _, err := k.run("", "top", "pods")
		top = out
		return err == nil && strings.Contains(out, "php-apache-")
	})
	wantRows(t, "top pods", kcTable(top), [][]string{
		{"NAME", `CPU\(cores\)`, `MEMORY\(bytes\)`},
		{"php-apache-[a-z0-9]+-[a-z0-9]+", "10m", "4Mi"},
	})
	wantRows(t, "top nodes", kcTable(k.must("top", "nodes")), [][]string{
		{"NAME", `CPU\(cores\)`, `CPU\(%\)`, `MEMORY\(bytes\)`, `MEMORY\(%\)`},
		{"kubeplay-control-plane", "240m", "6%", "960Mi", "12%"},
		{"kubeplay-worker", `(60|70)m`, "1%", `48[04]Mi`, "6%"},
		{"kubeplay-worker2", `(60|70)m`, "1%", `48[04]Mi`, "6%"},
	})
	wantRows(t, "top pods -A", kcTable(k.must("top", "pods", "-A", "-l", "app=php-apache", "--containers")), [][]string{
		{"NAMESPACE", "POD", "NAME", `CPU\(cores\)`, `MEMORY\(bytes\)`},
		{"default", "php-apache-[a-z0-9]+-[a-z0-9]+", "hpa-example", "10m", "4Mi"},
	})
	wantRows(t, "get podmetrics", kcTable(k.must("get", "pods.metrics.k8s.io")), [][]string{
		{"NAME", "CPU", "MEMORY", "WINDOW"},
		{"php-apache-[a-z0-9]+-[a-z0-9]+", "10m", "4Mi", "15s"},
	})

	k.must("autoscale", "deployment", "php-apache", "--cpu-percent=50", "--min=1", "--max=5")
	var hpa [][]string
	until(t, time.Minute, "the autoscaler's first metrics", func() bool {
		hpa = kcTable(k.must("get", "hpa"))
		return len(hpa) == 2 && !strings.Contains(strings.Join(hpa[1], " "), "<unknown>")
	})
	wantRows(t, "get hpa", hpa, [][]string{
		{"NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"},
		{"php-apache", "Deployment/php-apache", "cpu:", "5%/50%", "1", "5", "1", `\d+s`},
	})

	// The load generator's part: 600m of requests spread over the Service's Pods.
	k.must("annotate", "service", "php-apache", "kubeplay.dev/cpu-load=600m")
	until(t, 2*time.Minute, "scaled up", func() bool {
		return k.must("get", "deployment", "php-apache", "-o", "jsonpath={.spec.replicas}") == "5"
	})
	describe := k.must("describe", "hpa", "php-apache")
	for _, want := range []string{
		"SuccessfulRescale  ",
		"New size: 4; reason: cpu resource utilization (percentage of request) above target",
		"AbleToScale ",
		"ScalingActive ",
		"ValidMetricFound",
	} {
		if !strings.Contains(describe, want) {
			t.Errorf("describe hpa lacks %q:\n%s", want, describe)
		}
	}
}
