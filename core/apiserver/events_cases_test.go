package apiserver

import (
	"testing"

	"kubeplay/core/encoding/protobuf"
)

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
		kpost(kubeEvents, `{"metadata":{"name":"legacy.3"},"involvedObject":{"kind":"Pod","namespace":"default","name":"p"},"reason":"Started","source":{"component":"kubelet"},"reportingComponent":"example.com/tester","type":"Normal"}`),
		kget(kubeEvents+"?fieldSelector=source%3Dexample.com%2Ftester"),
		kget(kubeEvents+"?fieldSelector=source%3Dkubelet"),
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
	replayKube(t, newTestServer(t, testConfig{}), eventsKubeFile, eventsCases)
}

// TestSIM_4_EventsV1Protobuf: one stored Event listed in protobuf through
// core/v1, events.k8s.io/v1 and core/v1 again is each time in that API's
// form (the binary list path converts a view's items too).
func TestSIM_4_EventsV1Protobuf(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.do("POST", kubeEventsV1, eventsV1("pb.1", "")).must(t, 201)
	for _, c := range []struct{ path, apiVersion, field string }{
		{kubeEvents, "v1", "message"},
		{kubeEventsV1, "events.k8s.io/v1", "note"},
		{kubeEvents, "v1", "message"},
	} {
		r := s.do("GET", c.path, nil, "Accept", "application/vnd.kubernetes.protobuf").must(t, 200)
		apiVersion, kind, raw, err := protobuf.ParseEnvelope(r.Body)
		if err != nil || apiVersion != c.apiVersion || kind != "EventList" {
			t.Fatalf("%s: %s %s %v", c.path, apiVersion, kind, err)
		}
		list, err := protobuf.Unmarshal(apiVersion, kind, raw)
		if err != nil {
			t.Fatal(err)
		}
		items, _ := list["items"].([]any)
		if len(items) != 1 || items[0].(map[string]any)[c.field] != "a note" {
			t.Errorf("%s in protobuf: %v", c.path, list)
		}
	}
}
