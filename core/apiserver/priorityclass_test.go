package apiserver

import "testing"

// The requests to scheduling.k8s.io/v1 PriorityClasses, and to Pods that
// name them, whose answers kube-apiserver 1.32.13 gave are recorded in
// testdata/priorityclasses-kube-1.32.13.json (TestRecordPriorityClassesKube
// writes it): the system classes kube creates when it starts, defaults,
// what may not change, the one global default, and the Priority admission
// of Pods.

const (
	pcKubeFile      = "testdata/priorityclasses-kube-1.32.13.json"
	pcTableKubeFile = "testdata/priorityclasses-table-kube-1.32.13.json"
	kubePCs         = "/apis/scheduling.k8s.io/v1/priorityclasses"
	pcTable         = kubePCs + "?includeObject=None"
)

var pcCases = []kubeCase{
	kcase("priorityclass system classes",
		kubeStep{"GET", kubePCs + "/system-node-critical", ""},
		kubeStep{"GET", kubePCs + "/system-cluster-critical", ""},
		kpatch(kubePCs+"/system-cluster-critical", `{"description":"changed"}`),
		kubeStep{"DELETE", kubePCs + "/system-node-critical", ""},
		kpost(kubePCs, `{"metadata":{"name":"system-node-critical"},"value":2000001000}`),
		kpost(kubePCs, `{"metadata":{"name":"system-mine"},"value":10}`),
	),
	kcase("priorityclass create, update, patch and delete",
		kpost(kubePCs, `{"metadata":{"name":"high"},"value":1000000,"description":"for important pods"}`),
		kpost(kubePCs, `{"metadata":{"name":"never"},"value":-5,"preemptionPolicy":"Never"}`),
		kubeStep{"GET", kubePCs + "/high", ""},
		kput(kubePCs+"/high", `{"metadata":{"name":"high"},"value":1000000,"description":"changed"}`),
		kpatch(kubePCs+"/high", `{"value":7}`),
		kpatch(kubePCs+"/high", `{"preemptionPolicy":"Never"}`),
		kubeStep{"GET", kubePCs + "?fieldSelector=metadata.name%3Dhigh", ""},
		kubeStep{"GET", kubePCs + "?fieldSelector=value%3D7", ""},
		kpost(kubePCs, `{"metadata":{"name":"gone"},"value":1}`),
		kubeStep{"DELETE", kubePCs + "/gone", ""},
	),
	kcase("priorityclass invalid",
		kpost(kubePCs, `{"metadata":{"name":"too-high"},"value":1000000001}`),
		kpost(kubePCs, `{"metadata":{"name":"bad-policy"},"value":1,"preemptionPolicy":"Sometimes"}`),
		kpost(kubePCs, `{"metadata":{"name":"empty-policy"},"value":1,"preemptionPolicy":""}`),
		kpost(kubePCs, `{"metadata":{"name":"Bad_Name"},"value":1}`),
	),
	kcase("priorityclass deletecollection takes the system classes too",
		kubeStep{"DELETE", kubePCs + "?fieldSelector=metadata.name%3Dsystem-cluster-critical", ""},
		kubeStep{"GET", kubePCs + "/system-cluster-critical", ""},
	),
	kcase("priorityclass global default and pods",
		kpost(kubePods, kpod("pc-pod-none", kubeOneContainer)),
		kpost(kubePods, kpod("pc-pod-critical", `"priorityClassName":"system-node-critical",`+kubeOneContainer)),
		kpost(kubePods, kpod("pc-pod-never", `"priorityClassName":"never",`+kubeOneContainer)),
		kpost(kubePods, kpod("pc-pod-never-wrong", `"priorityClassName":"never","preemptionPolicy":"PreemptLowerPriority",`+kubeOneContainer)),
		kpost(kubePods, kpod("pc-pod-missing", `"priorityClassName":"nope",`+kubeOneContainer)),
		kpost(kubePods, kpod("pc-pod-value", `"priorityClassName":"high","priority":3,`+kubeOneContainer)),
		kpost(kubePCs, `{"metadata":{"name":"default-low"},"value":100,"globalDefault":true}`),
		kpost(kubePCs, `{"metadata":{"name":"default-two"},"value":50,"globalDefault":true}`),
		kpost(kubePCs, `{"metadata":{"name":"default-bad"},"value":2000000000,"globalDefault":true}`),
		kpatch(kubePCs+"/high", `{"globalDefault":true}`),
		kpatch(kubePCs+"/default-low", `{"description":"still the default","globalDefault":true}`),
		kpost(kubePods, kpod("pc-pod-default", kubeOneContainer)),
	),
}

// TestRecordPriorityClassesKube writes pcKubeFile and pcTableKubeFile from
// a real kube-apiserver (a fresh instance).
func TestRecordPriorityClassesKube(t *testing.T) {
	recordKube(t, pcKubeFile, "the requests of pcCases in priorityclass_test.go", pcCases)
	recordKubeTable(t, pcTableKubeFile, pcTable)
}

// TestK8S_URI_3_PriorityClassAsKube: PriorityClasses are created at start,
// stored, defaulted, kept and refused as kube does them, Pods get their
// priorities from them, and they are printed in kube's columns (ages
// aside).
func TestK8S_URI_3_PriorityClassAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	replayKube(t, s, pcKubeFile, pcCases)
	compareKubeTable(t, s, pcTableKubeFile, pcTable, 3)
}

// TestK8S_URI_4_PriorityClassDiscovery: scheduling.k8s.io/v1 lists
// PriorityClasses as kube does (without the storageVersionHash kubeplay
// gives no kind).
func TestK8S_URI_4_PriorityClassDiscovery(t *testing.T) {
	compareKubeDiscovery(t, "/apis/scheduling.k8s.io/v1", "", `[
{"name":"priorityclasses","singularName":"priorityclass","namespaced":false,"kind":"PriorityClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["pc"]}]`)
}
