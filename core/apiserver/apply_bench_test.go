package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// deploymentFields is a Deployment with about 200 fields (leaves), its first
// container's image img.
func deploymentFields(img string) map[string]any {
	labels := map[string]any{}
	annotations := map[string]any{}
	for i := 0; i < 10; i++ {
		labels[fmt.Sprintf("label-%d", i)] = "v"
		annotations[fmt.Sprintf("example.com/note-%d", i)] = "some text"
	}
	var containers []any
	for c := 0; c < 3; c++ {
		var env []any
		for e := 0; e < 20; e++ {
			env = append(env, map[string]any{"name": fmt.Sprintf("VAR_%d", e), "value": fmt.Sprintf("value-%d", e)})
		}
		image := "registry.example.com/app:1"
		if c == 0 {
			image = img
		}
		containers = append(containers, map[string]any{
			"name": fmt.Sprintf("c%d", c), "image": image, "imagePullPolicy": "IfNotPresent",
			"args": []any{"--port=8080", "--verbose"},
			"env":  env,
			"ports": []any{
				map[string]any{"name": "http", "containerPort": 8080 + c, "protocol": "TCP"},
				map[string]any{"name": "metrics", "containerPort": 9090 + c, "protocol": "TCP"},
			},
			"resources": map[string]any{
				"limits":   map[string]any{"cpu": "500m", "memory": "256Mi"},
				"requests": map[string]any{"cpu": "100m", "memory": "128Mi"},
			},
			"readinessProbe": map[string]any{
				"httpGet":       map[string]any{"path": "/ready", "port": 8080 + c},
				"periodSeconds": 5, "timeoutSeconds": 1, "failureThreshold": 3,
			},
		})
	}
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "labels": labels, "annotations": annotations},
		"spec": map[string]any{
			"replicas": 3, "revisionHistoryLimit": 5, "progressDeadlineSeconds": 600, "minReadySeconds": 5,
			"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"strategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": "25%", "maxUnavailable": 0}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web", "tier": "frontend"}},
				"spec": map[string]any{
					"containers": containers, "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
					"dnsPolicy": "ClusterFirst", "serviceAccountName": "web", "nodeSelector": map[string]any{"disk": "ssd"},
				},
			},
		},
	}
}

// countLeaves counts the scalar fields of a JSON value.
func countLeaves(v any) int {
	switch v := v.(type) {
	case map[string]any:
		n := 0
		for _, e := range v {
			n += countLeaves(e)
		}
		return n
	case []any:
		n := 0
		for _, e := range v {
			n += countLeaves(e)
		}
		return n
	}
	return 1
}

// BenchmarkApplyDeployment times a server-side apply of a Deployment of about
// 200 fields (one changed each time: an image) through the handler, against
// the floor: a PUT of the same object, which records its managedFields too.
// It reports the ratio (target ≤ 10×).
func BenchmarkApplyDeployment(b *testing.B) {
	srv := newBenchServer(b)
	w := &bufferWriter{h: http.Header{}}
	const path = "/apis/apps/v1/namespaces/default/deployments/web"
	bodies := make([][]byte, 2)
	for i := range bodies {
		doc := deploymentFields(fmt.Sprintf("registry.example.com/web:%d", i))
		if i == 0 && b.N == 1 {
			b.Logf("%d fields", countLeaves(doc))
		}
		var err error
		if bodies[i], err = json.Marshal(doc); err != nil {
			b.Fatal(err)
		}
	}
	apply := func(i int) {
		w.reset()
		r := httptestRequest(b, "PATCH", path+"?fieldManager=bench", bodies[i%2], "application/apply-patch+yaml")
		srv.ServeHTTP(w, r)
		if w.code >= 300 {
			b.Fatalf("apply: %d %s", w.code, w.buf.Bytes())
		}
	}
	put := func(i int) {
		w.reset()
		r := httptestRequest(b, "PUT", path, bodies[i%2], "application/json")
		srv.ServeHTTP(w, r)
		if w.code >= 300 {
			b.Fatalf("put: %d %s", w.code, w.buf.Bytes())
		}
	}
	apply(0)
	runtime.GC()
	for i := 0; i < 4; i++ {
		apply(i)
		put(i)
	}
	b.ResetTimer()
	var applyTime, putTime time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		apply(i + 1)
		applyTime += time.Since(start)
		start = time.Now()
		put(i)
		putTime += time.Since(start)
	}
	b.ReportMetric(float64(applyTime)/float64(putTime), "x-put")
	b.ReportMetric(float64(putTime.Nanoseconds())/float64(b.N), "put-ns/op")
}

func httptestRequest(b *testing.B, method, path string, body []byte, contentType string) *http.Request {
	r, err := http.NewRequest(method, path, strings.NewReader(string(body)))
	if err != nil {
		b.Fatal(err)
	}
	r.Header.Set("Content-Type", contentType)
	return r
}
