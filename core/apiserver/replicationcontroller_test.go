package apiserver

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
)

// The requests to ReplicationControllers whose answers kube-apiserver
// 1.32.13 gave are recorded in testdata/replicationcontrollers-kube-1.32.13.json
// (TestRecordReplicationControllersKube writes it): its defaults (the
// selector and labels taken from the template), status, generation, scale
// subresource, field selector and validation.

const (
	rcKubeFile      = "testdata/replicationcontrollers-kube-1.32.13.json"
	rcTableKubeFile = "testdata/replicationcontrollers-table-kube-1.32.13.json"
	kubeRCs         = "/api/v1/namespaces/default/replicationcontrollers"
	// rcTable asks for the Table of the ReplicationControllers rcCases leave.
	rcTable = kubeRCs + "?includeObject=None"
	asTable = "application/json;as=Table;g=meta.k8s.io;v=v1"
)

// krc is a ReplicationController's body: name, spec members before the
// template, the template's labels and its pod spec members.
func krc(name, spec, labels, podSpec string) string { return kworkload(name, spec, labels, podSpec) }

var rcCases = []kubeCase{
	kcase("rc defaults, update, status and scale",
		kpost(kubeRCs, krc("rc1", "", kubeAppA, kubeOneContainer)),
		kubeStep{"GET", kubeRCs + "/rc1", ""},
		kput(kubeRCs+"/rc1", krc("rc1", `"replicas":3,"selector":{"app":"a"}`, kubeAppA, kubeOneContainer)),
		kpatch(kubeRCs+"/rc1/status", `{"status":{"replicas":2,"readyReplicas":1}}`),
		kubeStep{"GET", kubeRCs + "/rc1/scale", ""},
		kput(kubeRCs+"/rc1/scale", `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"rc1","namespace":"default"},"spec":{"replicas":5}}`),
		kput(kubeRCs+"/rc1/scale", `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"rc1","namespace":"default"},"spec":{"replicas":-1}}`),
		kpatch(kubeRCs+"/rc1", `{"metadata":{"labels":{"tier":"web"}}}`),
		kubeStep{"GET", kubeRCs + "?fieldSelector=status.replicas%3D2", ""},
		kubeStep{"GET", kubeRCs + "?fieldSelector=status.replicas%3D0", ""},
	),
	kcase("rc own selector and labels kept",
		kpost(kubeRCs, `{"metadata":{"name":"rc2","labels":{"own":"x"}},"spec":{"replicas":0,"selector":{"app":"b"},"template":{"metadata":{"labels":{"app":"b","v":"1"}},"spec":{`+kubeOneContainer+`}}}}`),
		kpatch(kubeRCs+"/rc2", `{"spec":{"selector":{"app":"b","v":"1"}}}`),
	),
	kcase("rc invalid",
		kpost(kubeRCs, `{"metadata":{"name":"rc-none"},"spec":{}}`),
		kpost(kubeRCs, `{"metadata":{"name":"rc-nolabels"},"spec":{"template":{"spec":{`+kubeOneContainer+`}}}}`),
		kpost(kubeRCs, krc("rc-mismatch", `"selector":{"app":"b"}`, kubeAppA, kubeOneContainer)),
		kpost(kubeRCs, krc("rc-counts", `"replicas":-1,"minReadySeconds":-2`, kubeAppA, kubeOneContainer)),
		kpost(kubeRCs, krc("rc-restart", "", kubeAppA, `"restartPolicy":"Never","activeDeadlineSeconds":5,`+kubeOneContainer)),
		kpost(kubeRCs, krc("rc-pod", "", `{"app":"a","bad key!":"x"}`, `"containers":[{"name":"c"}]`)),
		kpost(kubeRCs, krc("rc1", "", kubeAppA, kubeOneContainer)),
	),
	kcase("rc invalid update",
		kpost(kubeRCs, krc("rc3", "", kubeAppA, kubeOneContainer)),
		kpatch(kubeRCs+"/rc3", `{"spec":{"selector":{"app":"c"}}}`),
		kpatch(kubeRCs+"/rc3", `{"spec":{"template":{"spec":{"restartPolicy":"OnFailure"}}}}`),
		kpatch(kubeRCs+"/rc3", `{"metadata":{"labels":{"bad key!":"x"}}}`),
	),
}

// TestRecordReplicationControllersKube writes rcKubeFile from a real
// kube-apiserver (a fresh instance, as for TestRecordBuiltinsKube), and
// rcTableKubeFile: its Table of what the cases leave.
func TestRecordReplicationControllersKube(t *testing.T) {
	recordKube(t, rcKubeFile, "the requests of rcCases in replicationcontroller_test.go", rcCases)
	recordKubeTable(t, rcTableKubeFile, rcTable)
}

// TestK8S_URI_3_ReplicationControllerAsKube: ReplicationControllers are
// stored, defaulted, scaled, selected and refused as kube does them, and
// printed in kube's columns (ages aside).
func TestK8S_URI_3_ReplicationControllerAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	replayKube(t, s, rcKubeFile, rcCases)
	compareKubeTable(t, s, rcTableKubeFile, rcTable, 4)
}

// recordKubeTable writes file with the Table the kube-apiserver that
// KUBEPLAY_REFAPI names answers path with.
func recordKubeTable(t *testing.T, file, path string) {
	req, err := http.NewRequest("GET", os.Getenv("KUBEPLAY_REFAPI")+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", asTable)
	req.Header.Set("Authorization", "Bearer refapi-admin-token")
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
}

// compareKubeTable compares s's Table for path with kube's, recorded in
// file, but for the cells of column age (-1: none), whose ages differ.
func compareKubeTable(t *testing.T, s *testServer, file, path string, age int, headers ...string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var kube map[string]any
	if err := json.Unmarshal(data, &kube); err != nil {
		t.Fatal(err)
	}
	got := s.do("GET", path, nil, append([]string{"Accept", asTable}, headers...)...).must(t, 200).Obj
	for _, table := range []map[string]any{got, kube} {
		delete(table, "metadata")
		for _, row := range table["rows"].([]any) {
			if age >= 0 {
				row.(map[string]any)["cells"].([]any)[age] = "AGE"
			}
		}
	}
	if !reflect.DeepEqual(got, kube) {
		t.Errorf("Table differs from kube's at %v", jsonDiff("", got, kube))
	}
}

// TestK8S_URI_4_ReplicationControllerDiscovery: /api/v1 lists
// ReplicationControllers and their subresources as kube does (kube's
// entries, from the refapi kit, without the storageVersionHash kubeplay
// gives no kind).
func TestK8S_URI_4_ReplicationControllerDiscovery(t *testing.T) {
	const kube = `[
{"name":"replicationcontrollers","singularName":"replicationcontroller","namespaced":true,"kind":"ReplicationController","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["rc"],"categories":["all"]},
{"name":"replicationcontrollers/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]},
{"name":"replicationcontrollers/status","singularName":"","namespaced":true,"kind":"ReplicationController","verbs":["get","patch","update"]}]`
	compareKubeDiscovery(t, "/api/v1", "replicationcontrollers", kube)
}

// compareKubeDiscovery compares the resources that the discovery document
// at path lists whose names start with prefix with kube's, a JSON list.
func compareKubeDiscovery(t *testing.T, path, prefix, kube string) {
	t.Helper()
	var want []any
	if err := json.Unmarshal([]byte(kube), &want); err != nil {
		t.Fatal(err)
	}
	var got []any
	for _, r := range newTestServer(t, testConfig{}).do("GET", path, nil).must(t, 200).Obj["resources"].([]any) {
		if name, _ := r.(map[string]any)["name"].(string); strings.HasPrefix(name, prefix) {
			got = append(got, r)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("discovery differs from kube's at %v", jsonDiff("", got, want))
	}
}
