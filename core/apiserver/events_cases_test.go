package apiserver

import "testing"

// eventsKubeFile holds kube-apiserver's answers to eventsCases.
const eventsKubeFile = "testdata/events-kube-1.32.13.json"

const (
	kubeEvents   = "/api/v1/namespaces/default/events"
	kubeEventsV1 = "/apis/events.k8s.io/v1/namespaces/default/events"
)

// eventsV1 is an events.k8s.io/v1 Event named name, with more members.
func eventsV1(name, more string) string {
	if more != "" {
		more = "," + more
	}
	return `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"` + name + `"},` +
		`"eventTime":"2026-01-02T03:04:05.678901Z","reportingController":"example.com/tester","reportingInstance":"tester-1",` +
		`"action":"Testing","reason":"Tested","regarding":{"kind":"Pod","namespace":"default","name":"p","apiVersion":"v1"},` +
		`"note":"a note","type":"Normal"` + more + `}`
}

// eventsCases: events.k8s.io/v1 serves the core/v1 Events converted, both
// ways, with its own validation of writes and its own field selectors.
var eventsCases = []kubeCase{
	kcase("SIM-4 a core/v1 Event read as events.k8s.io/v1",
		kpost(kubeEvents, `{"metadata":{"name":"legacy.1"},"involvedObject":{"kind":"Pod","namespace":"default","name":"p"},"reason":"Started","message":"Started container c","source":{"component":"kubelet","host":"node-1"},"firstTimestamp":"2026-01-02T03:04:05Z","lastTimestamp":"2026-01-02T03:04:06Z","count":2,"type":"Normal"}`),
		kget(kubeEventsV1+"/legacy.1"),
		kget(kubeEventsV1+"?fieldSelector=regarding.name%3Dp,reason%3DStarted"),
		kpatch(kubeEventsV1+"/legacy.1", `{"note":"changed"}`),
		kpatch(kubeEvents+"/legacy.1", `{"message":"changed","count":3}`),
		kget(kubeEventsV1+"/legacy.1"),
		kdelete(kubeEventsV1+"/legacy.1", ""),
		kget(kubeEvents+"/legacy.1"),
	),
	kcase("SIM-4 an events.k8s.io/v1 Event read as core/v1",
		kpost(kubeEventsV1, eventsV1("new.1", "")),
		kget(kubeEvents+"/new.1"),
		kget(kubeEventsV1+"/new.1"),
		kpatch(kubeEventsV1+"/new.1", `{"series":{"count":2,"lastObservedTime":"2026-01-02T03:05:00.000000Z"}}`),
		kpatch(kubeEventsV1+"/new.1", `{"series":{"count":1}}`),
		kput(kubeEventsV1+"/new.1", eventsV1("new.1", `"note":"other"`)),
		kget(kubeEvents+"?fieldSelector=reportingComponent%3Dexample.com%2Ftester"),
		kget(kubeEventsV1+"?fieldSelector=reportingController%3Dexample.com%2Ftester"),
		kget(kubeEventsV1+"?fieldSelector=involvedObject.name%3Dp"),
	),
	kcase("SIM-4 events.k8s.io/v1 validates what it creates",
		kpost(kubeEventsV1, `{"metadata":{"name":"bad.1"},"reason":"x","type":"Odd","deprecatedCount":3,"deprecatedSource":{"component":"c"},"deprecatedFirstTimestamp":"2026-01-02T03:04:05Z","series":{"count":1}}`),
		kpost(kubeEventsV1, eventsV1("Bad_Name", "")),
		kpost(kubeEventsV1, `{"metadata":{"name":"bad.2"},"eventTime":"2026-01-02T03:04:05.000000Z","type":"Warning","regarding":{"kind":"Node","name":"n"}}`),
		kpost(kubeEvents, `{"metadata":{"name":"legacy.2"},"eventTime":"2026-01-02T03:04:05.000000Z","involvedObject":{"kind":"Node","name":"n"}}`),
		kput(kubeEventsV1+"/created.on.update", eventsV1("created.on.update", "")),
	),
}

// TestRecordEventsKube writes eventsKubeFile from a real kube-apiserver (a
// fresh instance, as for TestRecordBuiltinsKube).
func TestRecordEventsKube(t *testing.T) {
	recordKube(t, eventsKubeFile, "the requests of eventsCases in events_cases_test.go", eventsCases)
}

// TestSIM_4_EventsV1AsKube: events.k8s.io/v1 answers as kube's: the same
// stored Events in its form, its validation (by request version) and field
// selectors.
func TestSIM_4_EventsV1AsKube(t *testing.T) {
	replayKube(t, newTestServer(t, Config{}), eventsKubeFile, eventsCases)
}
