package apiserver

import "testing"

// The requests to node.k8s.io/v1 RuntimeClasses, and to Pods that name
// them, whose answers kube-apiserver 1.32.13 gave are recorded in
// testdata/runtimeclasses-kube-1.32.13.json (TestRecordRuntimeClassesKube
// writes it): create on update, the resourceVersion an update needs,
// validation, and the RuntimeClass admission of Pods (overhead, node
// selector, tolerations).

const (
	rtKubeFile      = "testdata/runtimeclasses-kube-1.32.13.json"
	rtTableKubeFile = "testdata/runtimeclasses-table-kube-1.32.13.json"
	kubeRTs         = "/apis/node.k8s.io/v1/runtimeclasses"
	rtTable         = kubeRTs + "?includeObject=None"
)

var rtCases = []kubeCase{
	kcase("runtimeclass create, update and delete",
		kpost(kubeRTs, `{"metadata":{"name":"gvisor"},"handler":"runsc","overhead":{"podFixed":{"cpu":"250m","memory":"120Mi"}},"scheduling":{"nodeSelector":{"sandbox":"gvisor"},"tolerations":[{"key":"sandbox","operator":"Equal","value":"gvisor","effect":"NoSchedule"}]}}`),
		kpost(kubeRTs, `{"metadata":{"name":"plain"},"handler":"runc"}`),
		kubeStep{"GET", kubeRTs + "/gvisor", ""},
		kput(kubeRTs+"/plain", `{"metadata":{"name":"plain"},"handler":"runc"}`),
		kput(kubeRTs+"/kata", `{"metadata":{"name":"kata"},"handler":"kata"}`),
		kpatch(kubeRTs+"/plain", `{"metadata":{"labels":{"a":"b"}}}`),
		kpatch(kubeRTs+"/plain", `{"handler":"crun"}`),
		kubeStep{"GET", kubeRTs + "?fieldSelector=metadata.name%3Dkata", ""},
		kubeStep{"DELETE", kubeRTs + "/kata", ""},
	),
	kcase("runtimeclass invalid",
		kpost(kubeRTs, `{"metadata":{"name":"nohandler"}}`),
		kpost(kubeRTs, `{"metadata":{"name":"badhandler"},"handler":"Run_C"}`),
		kpost(kubeRTs, `{"metadata":{"name":"badoverhead"},"handler":"h","overhead":{"podFixed":{"cpu":"-1","foo":"1"}}}`),
		kpost(kubeRTs, `{"metadata":{"name":"badsched"},"handler":"h","scheduling":{"nodeSelector":{"bad key!":"v"},"tolerations":[{"operator":"Equal","value":"x"},{"key":"k","operator":"Exists","value":"v","effect":"Sometimes"},{"key":"k","operator":"Maybe","tolerationSeconds":5},{"key":"d","operator":"Exists"},{"key":"d","operator":"Exists"}]}}`),
	),
	kcase("runtimeclass admission of pods",
		kpost(kubePods, kpod("rt-pod", `"runtimeClassName":"gvisor","nodeSelector":{"disk":"ssd"},"tolerations":[{"key":"sandbox","operator":"Exists"}],`+kubeOneContainer)),
		kpost(kubePods, kpod("rt-pod-plain", `"runtimeClassName":"plain",`+kubeOneContainer)),
		kpost(kubePods, kpod("rt-pod-missing", `"runtimeClassName":"nope",`+kubeOneContainer)),
		kpost(kubePods, kpod("rt-pod-conflict", `"runtimeClassName":"gvisor","nodeSelector":{"sandbox":"kata"},`+kubeOneContainer)),
		kpost(kubePods, kpod("rt-pod-overhead", `"runtimeClassName":"gvisor","overhead":{"cpu":"1"},`+kubeOneContainer)),
		kpost(kubePods, kpod("rt-pod-same-overhead", `"runtimeClassName":"gvisor","overhead":{"cpu":"0.25","memory":"120Mi"},`+kubeOneContainer)),
		kpost(kubePods, kpod("rt-pod-no-class", `"overhead":{"cpu":"1"},`+kubeOneContainer)),
		kpost(kubePods, kpod("rt-pod-no-class-invalid", `"overhead":{"cpu":"1"},"restartPolicy":"Sometimes",`+kubeOneContainer)),
		kpost(kubePods, kpod("rt-pod-plain-overhead", `"runtimeClassName":"plain","overhead":{"cpu":"1"},`+kubeOneContainer)),
	),
}

// TestRecordRuntimeClassesKube writes rtKubeFile and rtTableKubeFile from
// a real kube-apiserver (a fresh instance).
func TestRecordRuntimeClassesKube(t *testing.T) {
	recordKube(t, rtKubeFile, "the requests of rtCases in runtimeclass_test.go", rtCases)
	recordKubeTable(t, rtTableKubeFile, rtTable)
}

// TestK8S_URI_3_RuntimeClassAsKube: RuntimeClasses are stored, replaced
// and refused as kube does them, Pods that name them get their overhead and
// scheduling or are refused, and they are printed in kube's columns (ages
// aside).
func TestK8S_URI_3_RuntimeClassAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	replayKube(t, s, rtKubeFile, rtCases)
	compareKubeTable(t, s, rtTableKubeFile, rtTable, 2)
}

// TestK8S_URI_4_RuntimeClassDiscovery: node.k8s.io/v1 lists RuntimeClasses
// as kube does (without the storageVersionHash kubeplay gives no kind).
func TestK8S_URI_4_RuntimeClassDiscovery(t *testing.T) {
	compareKubeDiscovery(t, "/apis/node.k8s.io/v1", "", `[
{"name":"runtimeclasses","singularName":"runtimeclass","namespaced":false,"kind":"RuntimeClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}]`)
}

// TestK8S_URI_3_RuntimeClassWarnings: a RuntimeClass that selects nodes by
// a deprecated label is answered with kube's warning (kube's header, from
// the refapi kit), on create and update.
func TestK8S_URI_3_RuntimeClassWarnings(t *testing.T) {
	const kube = `299 - "scheduling.nodeSelector: deprecated since v1.14; use \"kubernetes.io/arch\" instead"`
	s := newTestServer(t, testConfig{})
	body := `{"metadata":{"name":"warn"},"handler":"h","scheduling":{"nodeSelector":{"beta.kubernetes.io/arch":"amd64"}}}`
	for _, r := range []*response{
		s.do("POST", kubeRTs, body, "Content-Type", "application/json").must(t, 201),
		s.do("PATCH", kubeRTs+"/warn", `{"metadata":{"labels":{"a":"b"}}}`, "Content-Type", "application/merge-patch+json").must(t, 200),
	} {
		if got := r.Header.Get("Warning"); got != kube {
			t.Errorf("warning %q, kube's %q", got, kube)
		}
	}
}
