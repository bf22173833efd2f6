package patch

import (
	"testing"
	"time"

	"kubeplay/core/object"
)

// benchDeployment is a Deployment as a cluster stores it, three containers.
const benchDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default","uid":"0d1c7e4a-2f50-4bb4-9d0c-6a1f2b3c4d5e","resourceVersion":"42","generation":3,"creationTimestamp":"2026-11-23T10:00:00Z","labels":{"app":"web","tier":"fe"},"annotations":{"team":"blue"}},
"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}},"revisionHistoryLimit":10,"progressDeadlineSeconds":600,
"template":{"metadata":{"labels":{"app":"web","tier":"fe"}},"spec":{"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","schedulerName":"default-scheduler",
"containers":[
{"name":"web","image":"nginx:1.25","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":443,"protocol":"TCP"}],"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"resources":{"limits":{"cpu":"500m","memory":"128Mi"}},"imagePullPolicy":"IfNotPresent","terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"},
{"name":"sidecar","image":"busybox:1.36","args":["sleep","infinity"],"imagePullPolicy":"IfNotPresent","terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"},
{"name":"metrics","image":"prom/exporter:1","ports":[{"containerPort":9100,"protocol":"TCP"}],"imagePullPolicy":"IfNotPresent","terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
"volumes":[{"name":"cache","emptyDir":{}}]}}}}`

// BenchmarkK8S_WRITE_2_StrategicVsMerge sets a container's image on a
// Deployment with a strategic merge patch (the container by its name, as
// kubectl set image sends it) and, as the floor, with a JSON merge patch
// making the same change (the whole containers list), alternately in one loop;
// x-merge is the strategic patch's time over the merge patch's.
func BenchmarkK8S_WRITE_2_StrategicVsMerge(b *testing.B) {
	current, err := object.Decode([]byte(benchDeployment))
	if err != nil {
		b.Fatal(err)
	}
	k := target{apiVersion: "apps/v1", kind: "Deployment"}
	strategic := k.strategicPatch([]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}`))
	merge := k.mergePatch([]byte(`{"spec":{"template":{"spec":{"containers":[
{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":443,"protocol":"TCP"}],"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"resources":{"limits":{"cpu":"500m","memory":"128Mi"}},"imagePullPolicy":"IfNotPresent","terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"},
{"name":"sidecar","image":"busybox:1.36","args":["sleep","infinity"],"imagePullPolicy":"IfNotPresent","terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"},
{"name":"metrics","image":"prom/exporter:1","ports":[{"containerPort":9100,"protocol":"TCP"}],"imagePullPolicy":"IfNotPresent","terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}]}}}}`))
	s, err := strategic(current)
	if err != nil {
		b.Fatal(err)
	}
	m, err := merge(current)
	if err != nil {
		b.Fatal(err)
	}
	delete(s, "kind")
	delete(s, "apiVersion")
	delete(m, "kind")
	delete(m, "apiVersion")
	if sj, mj := jsonOf(s), jsonOf(m); sj != mj {
		b.Fatalf("the two patches make different objects:\n%s\n%s", sj, mj)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var tStrategic, tMerge time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := strategic(current); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, err := merge(current); err != nil {
			b.Fatal(err)
		}
		tStrategic += mid.Sub(start)
		tMerge += time.Since(mid)
	}
	b.ReportMetric(float64(tStrategic)/float64(tMerge), "x-merge")
	b.ReportMetric(float64(tStrategic.Nanoseconds())/float64(b.N), "strategic-ns/op")
	b.ReportMetric(float64(tMerge.Nanoseconds())/float64(b.N), "merge-ns/op")
}
