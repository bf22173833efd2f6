package apiserver

import "testing"

// The requests to HorizontalPodAutoscalers whose answers kube-apiserver
// 1.32.13 gave are recorded in testdata/horizontalpodautoscalers-kube-1.32.13.json
// (TestRecordHorizontalPodAutoscalersKube writes it): autoscaling/v2's
// defaults, the status subresource, validation, and autoscaling/v1's view
// of the same objects, what only v2 says kept in annotations both ways.

const (
	hpaKubeFile        = "testdata/horizontalpodautoscalers-kube-1.32.13.json"
	hpaTableKubeFile   = "testdata/horizontalpodautoscalers-table-kube-1.32.13.json"
	hpaV1TableKubeFile = "testdata/horizontalpodautoscalers-v1-table-kube-1.32.13.json"
	kubeHPAs           = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
	kubeHPAsV1         = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
	hpaTable           = kubeHPAs + "?includeObject=None"
	hpaV1Table         = kubeHPAsV1 + "?includeObject=None"
	// hpaRef is a scaleTargetRef naming Deployment web.
	hpaRef = `"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}`
)

// khpa is an autoscaler named name with spec members spec (after its
// scaleTargetRef).
func khpa(name, spec string) string {
	return `{"metadata":{"name":"` + name + `"},"spec":{` + hpaRef + spec + `}}`
}

// hpaEveryMetric are spec members naming a metric of every type, and
// hpaEveryMetricStatus a status patch observing some of them.
var (
	hpaEveryMetric = `,"maxReplicas":8,"metrics":[` +
		`{"type":"Object","object":{"describedObject":{"apiVersion":"v1","kind":"Service","name":"front"},"metric":{"name":"hits","selector":{"matchExpressions":[{"key":"a","operator":"In","values":["x"]}]}},"target":{"type":"AverageValue","averageValue":"2"}}},` +
		`{"type":"External","external":{"metric":{"name":"queue"},"target":{"type":"AverageValue","averageValue":"100m"}}},` +
		`{"type":"ContainerResource","containerResource":{"name":"cpu","container":"app","target":{"type":"Utilization","averageUtilization":60}}},` +
		`{"type":"ContainerResource","containerResource":{"name":"memory","container":"app","target":{"type":"AverageValue","averageValue":"1Gi"}}},` +
		`{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":90}}}]`
	hpaEveryMetricStatus = `{"status":{"observedGeneration":1,"currentReplicas":3,"desiredReplicas":3,"currentMetrics":[` +
		`{"type":"Object","object":{"metric":{"name":"hits"},"current":{"value":"5"},"describedObject":{"kind":"Service","name":"front"}}},` +
		`{"type":"External","external":{"metric":{"name":"queue"},"current":{"averageValue":"50m"}}},` +
		`{"type":"ContainerResource","containerResource":{"name":"cpu","container":"app","current":{"averageUtilization":30}}},` +
		`{"type":"Resource","resource":{"name":"memory","current":{"averageValue":"100Mi"}}},` +
		`{"type":"Pods","pods":{"metric":{"name":"rps"},"current":{}}}],` +
		`"conditions":[{"type":"ScalingActive","status":"False","reason":"FailedGetResourceMetric"}]}}`
)

var hpaCases = []kubeCase{
	kcase("hpa v2 defaults, update and status, read as v1",
		kpost(kubeHPAs, khpa("h1", `,"maxReplicas":5`)),
		kget(kubeHPAs+"/h1"),
		kget(kubeHPAsV1+"/h1"),
		kput(kubeHPAs+"/h1", khpa("h1", `,"minReplicas":2,"maxReplicas":10,"metrics":[`+
			`{"type":"Pods","pods":{"metric":{"name":"rps"},"target":{"type":"AverageValue","averageValue":"1k"}}},`+
			`{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":70}}},`+
			`{"type":"External","external":{"metric":{"name":"queue","selector":{"matchLabels":{"q":"jobs"}}},"target":{"type":"Value","value":"30"}}},`+
			`{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"512Mi"}}}],`+
			`"behavior":{"scaleDown":{"stabilizationWindowSeconds":300}}`)),
		kget(kubeHPAsV1+"/h1"),
		kpatch(kubeHPAs+"/h1/status", `{"status":{"currentReplicas":2,"desiredReplicas":3,"lastScaleTime":"2024-01-01T00:00:00Z","currentMetrics":[`+
			`{"type":"Pods","pods":{"metric":{"name":"rps"},"current":{"averageValue":"1500m"}}},`+
			`{"type":"Resource","resource":{"name":"cpu","current":{"averageUtilization":50,"averageValue":"100m"}}}],`+
			`"conditions":[{"type":"AbleToScale","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z","reason":"ReadyForNewScale","message":"ready"}]}}`),
		kget(kubeHPAsV1+"/h1"),
		kpatch(kubeHPAs+"/h1", `{"metadata":{"labels":{"tier":"web"}},"status":{"currentReplicas":7}}`),
		// A v1 write keeps the v2 writers' managedFields, converted.
		kpatch(kubeHPAsV1+"/h1", `{"spec":{"maxReplicas":11}}`),
		kget(kubeHPAs),
		kget(kubeHPAsV1),
	),
	kcase("hpa v1 writes read as v2",
		kpost(kubeHPAsV1, khpa("h2", `,"minReplicas":2,"maxReplicas":5,"targetCPUUtilizationPercentage":70`)),
		kget(kubeHPAs+"/h2"),
		kpost(kubeHPAsV1, `{"metadata":{"name":"h3-partial","annotations":{"autoscaling.alpha.kubernetes.io/behavior":"{\"ScaleUp\":{\"SelectPolicy\":\"Min\",\"Policies\":null},\"ScaleDown\":null}"}},"spec":{`+hpaRef+`,"maxReplicas":4}}`),
		kpost(kubeHPAsV1, `{"metadata":{"name":"h3","annotations":{"keep":"me",`+
			`"autoscaling.alpha.kubernetes.io/metrics":"[{\"type\":\"Pods\",\"pods\":{\"metricName\":\"rps\",\"targetAverageValue\":\"2\"}},{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Service\",\"name\":\"front\"},\"metricName\":\"hits\",\"targetValue\":10}},{\"type\":\"External\",\"external\":{\"metricName\":\"queue\",\"targetAverageValue\":\"500m\"}}]",`+
			`"autoscaling.alpha.kubernetes.io/behavior":"{\"ScaleUp\":{\"StabilizationWindowSeconds\":0,\"SelectPolicy\":\"Min\",\"Policies\":[{\"Type\":\"Pods\",\"Value\":2,\"PeriodSeconds\":60}]},\"ScaleDown\":{\"StabilizationWindowSeconds\":60,\"SelectPolicy\":\"Max\",\"Policies\":[{\"Type\":\"Percent\",\"Value\":50,\"PeriodSeconds\":30}]}}",`+
			`"autoscaling.alpha.kubernetes.io/conditions":"[{\"type\":\"ScalingActive\",\"status\":\"False\",\"lastTransitionTime\":null}]"}},`+
			`"spec":{`+hpaRef+`,"maxReplicas":4,"targetCPUUtilizationPercentage":60}}`),
		kget(kubeHPAs+"/h3"),
		kget(kubeHPAsV1+"/h3"),
		kput(kubeHPAsV1+"/h3", khpa("h3", `,"maxReplicas":6`)),
		kget(kubeHPAs+"/h3"),
		kpatch(kubeHPAsV1+"/h2/status", `{"status":{"currentReplicas":1,"desiredReplicas":2,"currentCPUUtilizationPercentage":30}}`),
		kget(kubeHPAs+"/h2"),
		kpatch(kubeHPAsV1+"/h2", `{"spec":{"targetCPUUtilizationPercentage":null}}`),
		// A v1 write's behavior is checked as written, and read with v2's
		// defaults; written again as it was, it changes nothing.
		kpost(kubeHPAsV1, `{"metadata":{"name":"h6","annotations":{"autoscaling.alpha.kubernetes.io/behavior":"{\"ScaleUp\":null,\"ScaleDown\":{\"Policies\":[{\"Type\":\"Pods\",\"Value\":1,\"PeriodSeconds\":60}]}}"}},"spec":{`+hpaRef+`,"maxReplicas":4}}`),
		kget(kubeHPAs+"/h6"),
		kput(kubeHPAsV1+"/h6", `{"metadata":{"name":"h6","annotations":{"autoscaling.alpha.kubernetes.io/behavior":"{\"ScaleUp\":null,\"ScaleDown\":{\"Policies\":[{\"Type\":\"Pods\",\"Value\":1,\"PeriodSeconds\":60}]}}"}},"spec":{`+hpaRef+`,"maxReplicas":4}}`),
		kdelete(kubeHPAs+"/h6", ""),
		kpost(kubeHPAs, `{"metadata":{"name":"h5","annotations":{"autoscaling.alpha.kubernetes.io/metrics":"[]","other":"x"}},"spec":{`+hpaRef+`,"maxReplicas":3,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"AverageValue","averageValue":"200m"}}}]}}`),
		kget(kubeHPAsV1+"/h5"),
		kget(kubeHPAsV1+"?fieldSelector=metadata.name%3Dh5"),
	),
	kcase("hpa every metric type, in both versions",
		kpost(kubeHPAs, khpa("h7", hpaEveryMetric)),
		kpatch(kubeHPAs+"/h7/status", hpaEveryMetricStatus),
		kget(kubeHPAsV1+"/h7"),
		kpatch(kubeHPAsV1+"/h7/status", `{"status":{"currentReplicas":4,"currentCPUUtilizationPercentage":40}}`),
		kget(kubeHPAs+"/h7"),
		kpatch(kubeHPAsV1+"/h7", `{"metadata":{"annotations":{"autoscaling.alpha.kubernetes.io/metrics":"not json"}},"spec":{"targetCPUUtilizationPercentage":55}}`),
		kget(kubeHPAs+"/h7"),
		// h8 stays, for the Tables: TARGETS of every kind of metric.
		kpost(kubeHPAs, khpa("h8", hpaEveryMetric)),
		kpatch(kubeHPAs+"/h8/status", hpaEveryMetricStatus),
		kpost(kubeHPAs, khpa("h9", `,"maxReplicas":2,"metrics":[`+
			`{"type":"Pods","pods":{"metric":{"name":"rps"},"target":{"type":"AverageValue","averageValue":"1k"}}},`+
			`{"type":"ContainerResource","containerResource":{"name":"memory","container":"app","target":{"type":"AverageValue","averageValue":"1Gi"}}}]`)),
		kpatch(kubeHPAs+"/h9/status", `{"status":{"desiredReplicas":1,"currentMetrics":[`+
			`{"type":"Pods","pods":{"metric":{"name":"rps"},"current":{}}},`+
			`{"type":"ContainerResource","containerResource":{"name":"memory","container":"app","current":{}}}]}}`),
	),
	kcase("hpa invalid",
		kpost(kubeHPAs, `{"metadata":{"name":"bad1"},"spec":{}}`),
		kpost(kubeHPAs, `{"metadata":{"name":"bad2"},"spec":{"scaleTargetRef":{"kind":"a/b","name":".."},"minReplicas":3,"maxReplicas":2}}`),
		kpost(kubeHPAs, khpa("bad3", `,"minReplicas":0,"maxReplicas":2`)),
		kpost(kubeHPAs, khpa("bad4", `,"maxReplicas":2,"metrics":[{"type":""},{"type":"Foo"},{"type":"Resource"},`+
			`{"type":"Pods","pods":{"metric":{"name":""},"target":{"type":"Bar"}},"resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}},`+ // one more source: kube lists several in a map's order
			`{"type":"Resource","resource":{"name":"","target":{"type":"Utilization","averageUtilization":0,"averageValue":"-1"}}},`+
			`{"type":"Object","object":{"describedObject":{"kind":"","name":"x"},"metric":{"name":"a/b"},"target":{"type":"Value"}}},`+
			`{"type":"External","external":{"metric":{"name":"q"},"target":{"type":"Value","value":"1","averageValue":"0"}}},`+
			`{"type":"ContainerResource","containerResource":{"name":"gpu","container":"Bad_C","target":{"type":"AverageValue"}}}]`)),
		kpost(kubeHPAs, khpa("bad5", `,"maxReplicas":2,"behavior":{"scaleUp":{"selectPolicy":"Foo","stabilizationWindowSeconds":-1,"policies":[]},"scaleDown":{"stabilizationWindowSeconds":3601,"policies":[{"type":"X","value":0,"periodSeconds":1801},{"type":"Pods","value":1,"periodSeconds":0}]}}`)),
		kpost(kubeHPAsV1, khpa("bad6", `,"maxReplicas":0,"targetCPUUtilizationPercentage":0`)),
		kpost(kubeHPAs, khpa("h1", `,"maxReplicas":2`)),
	),
	kcase("hpa invalid update, status and delete",
		kpost(kubeHPAs, khpa("h4", `,"maxReplicas":3`)),
		kpatch(kubeHPAs+"/h4", `{"spec":{"minReplicas":0}}`),
		kpatch(kubeHPAs+"/h4/status", `{"status":{"currentReplicas":-1,"desiredReplicas":-2}}`),
		kpatch(kubeHPAsV1+"/h4/status", `{"status":{"currentReplicas":-1}}`),
		kpatch(kubeHPAs+"/h4", `{"metadata":{"labels":{"bad key!":"x"}}}`),
		kdelete(kubeHPAs+"/h4", ""),
		kget(kubeHPAs+"/h4"),
		kdelete(kubeHPAsV1+"/h4", ""),
	),
}

// TestRecordHorizontalPodAutoscalersKube writes hpaKubeFile from a real
// kube-apiserver (a fresh instance, as for TestRecordBuiltinsKube), and
// the Tables, in both versions, of what the cases leave.
func TestRecordHorizontalPodAutoscalersKube(t *testing.T) {
	recordKube(t, hpaKubeFile, "the requests of hpaCases in horizontalpodautoscaler_test.go", hpaCases)
	recordKubeTable(t, hpaTableKubeFile, hpaTable)
	recordKubeTable(t, hpaV1TableKubeFile, hpaV1Table)
}

// TestCONF_1_HorizontalPodAutoscalerAsKube: HorizontalPodAutoscalers are
// stored, defaulted, converted between autoscaling/v2 and autoscaling/v1,
// and refused as kube does them, and printed in kube's columns in both
// versions (ages aside).
func TestCONF_1_HorizontalPodAutoscalerAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	replayKube(t, s, hpaKubeFile, hpaCases)
	compareKubeTable(t, s, hpaTableKubeFile, hpaTable, 6)
	compareKubeTable(t, s, hpaV1TableKubeFile, hpaV1Table, 6)
}

// TestCONF_1_HorizontalPodAutoscalerDiscovery: autoscaling/v2 and v1 list
// HorizontalPodAutoscalers and their status as kube does.
func TestCONF_1_HorizontalPodAutoscalerDiscovery(t *testing.T) {
	const kube = `[
{"name":"horizontalpodautoscalers","singularName":"horizontalpodautoscaler","namespaced":true,"kind":"HorizontalPodAutoscaler","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["hpa"],"categories":["all"]},
{"name":"horizontalpodautoscalers/status","singularName":"","namespaced":true,"kind":"HorizontalPodAutoscaler","verbs":["get","patch","update"]}]`
	compareKubeDiscovery(t, "/apis/autoscaling/v2", "horizontalpodautoscalers", kube)
	compareKubeDiscovery(t, "/apis/autoscaling/v1", "horizontalpodautoscalers", kube)
}
