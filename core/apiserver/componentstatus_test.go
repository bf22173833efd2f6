package apiserver

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"

	"kubeplay/core/object"
)

// v1 ComponentStatus as kube-apiserver 1.32.13 answered it with no
// scheduler or controller manager running (the refapi kit; recorded in
// csKubeFile by TestRecordComponentStatusesKube): etcd-0 Healthy, the
// other two Unhealthy with the probe's refusal; get by name, list with
// selectors, kube's 500 for a component it does not know, its 405s, and
// its deprecation warning on every answer.

const (
	csKubeFile      = "testdata/componentstatuses-kube-1.32.13.json"
	csTableKubeFile = "testdata/componentstatuses-table-kube-1.32.13.json"
	kubeCS          = "/api/v1/componentstatuses"
	csWarning       = `299 - "v1 ComponentStatus is deprecated in v1.19+"`
)

var csCases = []kubeCase{
	kcase("componentstatuses read",
		kubeStep{"GET", kubeCS + "/etcd-0", ""},
		kubeStep{"GET", kubeCS + "/scheduler", ""},
		kubeStep{"GET", kubeCS + "/controller-manager", ""},
		kubeStep{"GET", kubeCS + "?fieldSelector=metadata.name%3Dscheduler", ""},
		kubeStep{"GET", kubeCS + "?labelSelector=a%3Db", ""},
		kubeStep{"GET", kubeCS + "?fieldSelector=metadata.name%21%3Detcd-0%2Cmetadata.name%21%3Dscheduler", ""},
	),
	kcase("componentstatuses refused",
		kubeStep{"GET", kubeCS + "/nope", ""},
		kubeStep{"GET", kubeCS + "?fieldSelector=status%3Db", ""},
		kubeStep{"GET", kubeCS + "?watch=1", ""},
		kubeStep{"GET", kubeCS + "/etcd-0?watch=1", ""},
		kpost(kubeCS, `{"metadata":{"name":"x"}}`),
		kubeStep{"DELETE", kubeCS + "/etcd-0", ""},
		kpatch(kubeCS+"/etcd-0", `{}`),
		kubeStep{"GET", "/api/v1/namespaces/default/componentstatuses", ""},
	),
}

// TestRecordComponentStatusesKube writes csKubeFile, csTableKubeFile and
// the whole list (its items in their names' order: kube's is the order of
// its probes) from a real kube-apiserver.
func TestRecordComponentStatusesKube(t *testing.T) {
	recordKube(t, csKubeFile, "the requests of csCases in componentstatus_test.go, then the list (items in their names' order)",
		append(csCases, kcase("list", kubeStep{"GET", kubeCS, ""})))
	answers := loadKube(t, csKubeFile)
	list := answers["list"][0]
	var l map[string]any
	if err := json.Unmarshal(list.Body, &l); err != nil {
		t.Fatal(err)
	}
	items := l["items"].([]any)
	sort.Slice(items, func(i, j int) bool {
		return object.MetaString(items[i].(map[string]any), "name") < object.MetaString(items[j].(map[string]any), "name")
	})
	answers["list"][0].Body = mustJSON(l)
	ids, all := []string{}, [][]kubeAnswer{}
	for _, c := range append(csCases, kcase("list")) {
		ids, all = append(ids, c.id), append(all, answers[c.id])
	}
	writeKubeAnswers(t, csKubeFile, "Answers of kube-apiserver v1.32.13 (the refapi kit, no scheduler or controller manager) to the requests of csCases in componentstatus_test.go, then to the list (items in their names' order), recorded by TestRecordComponentStatusesKube.", ids, all)
	recordKubeTable(t, csTableKubeFile, kubeCS+"?fieldSelector=metadata.name%3Dscheduler")
}

// TestCONF_1_ComponentStatusesAsKube: an API server alone answers for its
// components as kube's does, warned as deprecated; in a sandbox whose
// simulated cluster runs a scheduler and a controller manager, every
// component is Healthy.
func TestCONF_1_ComponentStatusesAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	replayKube(t, s, csKubeFile, append(csCases, kcase("list", kubeStep{"GET", kubeCS, ""})))
	compareKubeTable(t, s, csTableKubeFile, kubeCS+"?fieldSelector=metadata.name%3Dscheduler", -1)
	for _, p := range []string{kubeCS, kubeCS + "/etcd-0", kubeCS + "/nope", kubeCS + "?watch=1"} {
		if got := s.do("GET", p, nil).Header.Values("Warning"); !reflect.DeepEqual(got, []string{csWarning}) {
			t.Errorf("GET %s warned %q, kube %q", p, got, csWarning)
		}
	}

	running := newTestServer(t, testConfig{ControlPlane: func() bool { return true }})
	for _, it := range running.do("GET", kubeCS, nil).must(t, 200).Obj["items"].([]any) {
		if c := object.Path(it, "conditions").([]any)[0]; object.Path(c, "status") != "True" || object.Path(c, "message") != "ok" {
			t.Errorf("%s with a control plane: %v", object.MetaString(it.(map[string]any), "name"), c)
		}
	}
}
