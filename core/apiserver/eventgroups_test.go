package apiserver

import (
	"testing"

	"kubeplay/internal/refapi"
)

// An Event of one group sent to the other's endpoint: kube decodes either
// into its one internal Event, so the body is read as its own type (its
// own unknown fields warned of) and refused by the handler's check of its
// version, not as an unknown conversion. Recorded in
// testdata/eventgroups-kube-1.32.13.json by TestRecordEventGroupsKube.

const eventGroupsKubeFile = "testdata/eventgroups-kube-1.32.13.json"

var eventGroupsCases = []kubeCase{
	kcase("core Event to events.k8s.io",
		kpost(kubeEventsV1, `{"apiVersion":"v1","kind":"Event","metadata":{"name":"ev1"},"involvedObject":{"kind":"ConfigMap","name":"a"},"reason":"R","message":"m","bogus":1}`),
		kput(kubeEventsV1+"/ev1", `{"apiVersion":"v1","kind":"Event","metadata":{"name":"ev1"},"involvedObject":{"kind":"ConfigMap","name":"a"},"reason":"R","message":"m"}`),
	),
	kcase("events.k8s.io Event to core",
		kpost(kubeEvents, `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"ev2"},"reason":"R","note":"m","action":"A","reportingController":"x","reportingInstance":"y","eventTime":"2026-01-01T00:00:00.000000Z","regarding":{"kind":"ConfigMap","name":"a"}}`),
	),
}

// TestRecordEventGroupsKube writes eventGroupsKubeFile from a real
// kube-apiserver.
func TestRecordEventGroupsKube(t *testing.T) {
	kube := refapi.Connect(t)
	var ids []string
	var answers [][]kubeAnswer
	for _, c := range eventGroupsCases {
		var got []kubeAnswer
		for _, s := range c.steps {
			got = append(got, askKube(t, kube, s, nil))
		}
		ids, answers = append(ids, c.id), append(answers, got)
	}
	writeKubeAnswers(t, eventGroupsKubeFile, "Answers of kube-apiserver v1.32.13 (the refapi kit) to the requests of eventGroupsCases in eventgroups_test.go; recorded by "+t.Name()+".", ids, answers)
}

// TestK8S_WRITE_5_EventOfTheOtherGroupAsKube: an Event body of one group
// written to the other's endpoint is refused in kube's words.
func TestK8S_WRITE_5_EventOfTheOtherGroupAsKube(t *testing.T) {
	replayKube(t, newTestServer(t, testConfig{}), eventGroupsKubeFile, eventGroupsCases)
}
