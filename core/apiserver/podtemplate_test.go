package apiserver

import "testing"

// The requests to PodTemplates whose answers kube-apiserver 1.32.13 gave are
// recorded in testdata/podtemplates-kube-1.32.13.json
// (TestRecordPodTemplatesKube writes it): the template's defaults, its
// generation, the field selectors, delete and validation.

const (
	ptKubeFile      = "testdata/podtemplates-kube-1.32.13.json"
	ptTableKubeFile = "testdata/podtemplates-table-kube-1.32.13.json"
	kubePTs         = "/api/v1/namespaces/default/podtemplates"
	ptTable         = kubePTs + "?includeObject=None"
)

// kpt is a PodTemplate's body: name, its template's labels and pod spec
// members.
func kpt(name, labels, podSpec string) string {
	return `{"metadata":{"name":"` + name + `"},"template":{"metadata":{"labels":` + labels + `},"spec":{` + podSpec + `}}}`
}

var ptCases = []kubeCase{
	kcase("podtemplate create, update, patch, select and delete",
		kpost(kubePTs, kpt("pt1", kubeAppA, kubeOneContainer)),
		kubeStep{"GET", kubePTs + "/pt1", ""},
		kput(kubePTs+"/pt1", kpt("pt1", kubeAppA, `"serviceAccount":"sa",`+kubeOneContainer)),
		kpatch(kubePTs+"/pt1", `{"metadata":{"labels":{"tier":"web"}}}`),
		kpatch(kubePTs+"/pt1", `{"template":{"spec":{"containers":[{"name":"c","image":"nginx:2"}]}}}`),
		kpost(kubePTs, kpt("pt2", `{"app":"b","v":"1"}`, `"containers":[{"name":"a","image":"busybox"},{"name":"b","image":"nginx"}]`)),
		kpost(kubePTs, kpt("pt-gone", kubeAppA, kubeOneContainer)),
		kubeStep{"DELETE", kubePTs + "/pt-gone", ""},
		kubeStep{"GET", kubePTs + "?fieldSelector=metadata.name%3Dpt2", ""},
		kubeStep{"GET", kubePTs + "?fieldSelector=template.spec.restartPolicy%3DAlways", ""},
	),
	kcase("podtemplate invalid",
		kpost(kubePTs, `{"metadata":{"name":"pt-empty"}}`),
		kpost(kubePTs, kpt("pt-bad", `{"bad key!":"x"}`, `"restartPolicy":"Sometimes","containers":[{"name":"C"}]`)),
		kpost(kubePTs, kpt("Pt_Upper", kubeAppA, kubeOneContainer)),
		kpost(kubePTs, kpt("pt-eph", kubeAppA, kubeOneContainer+`,"ephemeralContainers":[{"name":"e","image":"busybox"}]`)),
		kpost(kubePTs, kpt("pt1", kubeAppA, kubeOneContainer)),
		kpatch(kubePTs+"/pt1", `{"template":{"spec":{"containers":null}}}`),
	),
}

// TestRecordPodTemplatesKube writes ptKubeFile and ptTableKubeFile from a
// real kube-apiserver (a fresh instance).
func TestRecordPodTemplatesKube(t *testing.T) {
	recordKube(t, ptKubeFile, "the requests of ptCases in podtemplate_test.go", ptCases)
	recordKubeTable(t, ptTableKubeFile, ptTable)
}

// TestK8S_URI_3_PodTemplateAsKube: PodTemplates are stored, defaulted,
// selected, deleted and refused as kube does them, and printed in kube's
// columns.
func TestK8S_URI_3_PodTemplateAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	replayKube(t, s, ptKubeFile, ptCases)
	compareKubeTable(t, s, ptTableKubeFile, ptTable, -1)
}

// TestK8S_URI_4_PodTemplateDiscovery: /api/v1 lists PodTemplates as kube
// does (without the storageVersionHash kubeplay gives no kind).
func TestK8S_URI_4_PodTemplateDiscovery(t *testing.T) {
	compareKubeDiscovery(t, "/api/v1", "podtemplates", `[
{"name":"podtemplates","singularName":"podtemplate","namespaced":true,"kind":"PodTemplate","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}]`)
}
