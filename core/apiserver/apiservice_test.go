package apiserver

import (
	"testing"
	"time"

	"kubeplay/core/object"
)

// The requests to APIServices whose answers kube-apiserver 1.32.13 gave
// are recorded in apiservicesKubeFile (TestRecordAPIServicesKube): a local
// one available at once, one of a Service (stored, its status its
// controller's), the name that must be version.group, the priorities'
// bounds, a local one's caBundle; and their Table.
const (
	apiservicesKubeFile      = "testdata/apiservices-kube-1.32.13.json"
	apiservicesTableKubeFile = "testdata/apiservices-table-kube-1.32.13.json"
	kubeAPIServices          = "/apis/apiregistration.k8s.io/v1/apiservices"
	apiservicesTable         = kubeAPIServices + "?labelSelector=case%3Dapis&includeObject=None"
)

func kapiService(name, spec string) string {
	return `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"` + name + `","labels":{"case":"apis"}},"spec":{` + spec + `}}`
}

var apiserviceCases = []kubeCase{
	kcase("local and remote",
		kpost(kubeAPIServices, kapiService("v1alpha1.local.example.com", `"group":"local.example.com","version":"v1alpha1","groupPriorityMinimum":1000,"versionPriority":15`)),
		kpost(kubeAPIServices, kapiService("v1beta1.metrics.example.com", `"group":"metrics.example.com","version":"v1beta1","groupPriorityMinimum":100,"versionPriority":100,"service":{"namespace":"kube-system","name":"metrics-server","port":443},"insecureSkipTLSVerify":true`)),
		kubeStep{"GET", kubeAPIServices + "/v1alpha1.local.example.com", ""},
		kpatch(kubeAPIServices+"/v1alpha1.local.example.com", `{"spec":{"versionPriority":20},"status":{"conditions":[]}}`),
		kpatch(kubeAPIServices+"/v1alpha1.local.example.com/status", `{"metadata":{"labels":{"x":"y"}},"status":{"conditions":[{"type":"Available","status":"False","reason":"Testing","message":"m","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`),
	),
	kcase("apiservice invalid",
		kpost(kubeAPIServices, kapiService("wrong.example.com", `"group":"other.example.com","version":"v1","groupPriorityMinimum":1000,"versionPriority":15`)),
		kpost(kubeAPIServices, kapiService("v1.bad.example.com", `"group":"bad.example.com","version":"v1","groupPriorityMinimum":0,"versionPriority":1001`)),
		kpost(kubeAPIServices, kapiService("V1.Bad_Group", `"group":"Bad_Group","version":"V1","groupPriorityMinimum":1,"versionPriority":1`)),
		kpost(kubeAPIServices, kapiService("v2.", `"version":"v2","groupPriorityMinimum":1,"versionPriority":1`)),
		kpost(kubeAPIServices, kapiService("v1.ca.example.com", `"group":"ca.example.com","version":"v1","groupPriorityMinimum":1,"versionPriority":1,"caBundle":"Zm9v","insecureSkipTLSVerify":true`)),
		kpost(kubeAPIServices, kapiService("v1.svc.example.com", `"group":"svc.example.com","version":"v1","groupPriorityMinimum":1,"versionPriority":1,"service":{"port":70000}`)),
	),
}

// TestRecordAPIServicesKube writes apiservicesKubeFile and
// apiservicesTableKubeFile from a fresh kube-apiserver.
func TestRecordAPIServicesKube(t *testing.T) {
	recordKube(t, apiservicesKubeFile, "the requests of apiserviceCases in apiservice_test.go", apiserviceCases)
	recordKubeTable(t, apiservicesTableKubeFile, apiservicesTable)
}

// TestCONF_1_APIServicesAsKube: APIServices are stored, made available
// when local, validated and printed as kube does them.
func TestCONF_1_APIServicesAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{Aggregator: true})
	replayKube(t, s, apiservicesKubeFile, apiserviceCases)
	// The availability controllers judge them a moment later, as kube's.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r := s.do("GET", apiservicesTable, nil, "Accept", asTable)
		if rows, _ := r.Obj["rows"].([]any); len(rows) == 2 && object.Path(rows[0], "cells") != nil &&
			object.Path(rows[0], "cells").([]any)[2] == "True" && object.Path(rows[1], "cells").([]any)[2] != "Unknown" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	compareKubeTable(t, s, apiservicesTableKubeFile, apiservicesTable, 3)
}
