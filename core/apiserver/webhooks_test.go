package apiserver

import (
	"strings"
	"testing"
	"time"

	"kubeplay/internal/refapi"
)

// Admission webhooks as a cluster without their servers answers: kube's
// answers to writes that match webhooks nothing serves (a missing Service,
// a headless one, one without the port, a url nothing listens on), by
// their rules (operations, resources and subresources, scope, equivalent
// resources), namespaceSelector and objectSelector, with failurePolicy
// Fail (refused) and Ignore (written), recorded from kube-apiserver
// 1.32.13 in testdata/webhooks-kube-1.32.13.json by TestRecordWebhooksKube.
// (A Service with a cluster IP is left out: the refapi kit runs no
// kube-proxy, so where its calls go is the recording machine's network's
// to say; TestWebhookServiceNobodyAnswers states kubeplay's answer.)

const (
	webhooksKubeFile = "testdata/webhooks-kube-1.32.13.json"
	kubeCMs          = "/api/v1/namespaces/default/configmaps"
	kubeSvcs         = "/api/v1/namespaces/default/services"
)

// hookOn is a webhook named name on rules, served by clientConfig, with
// more fields.
func hookOn(name, rules, clientConfig, more string) string {
	return `{"name":"` + name + `","rules":[` + rules + `],"clientConfig":` + clientConfig + `,"sideEffects":"None","admissionReviewVersions":["v1"]` + more + `}`
}

const (
	cmRule      = `{"operations":["CREATE","UPDATE","DELETE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}`
	missingSvc  = `{"service":{"namespace":"default","name":"nohook","path":"/validate"}}`
	nobodyURL   = `{"url":"https://127.0.0.1:1/check"}`
	labelled    = `,"objectSelector":{"matchLabels":{"hook":"on"}}`
	cmLabelled  = `"labels":{"hook":"on"}`
	eventsRule  = `{"operations":["CREATE"],"apiGroups":["events.k8s.io"],"apiVersions":["v1"],"resources":["events"]}`
	statusRule  = `{"operations":["UPDATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["services/status"]}`
	namespaceOp = `{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["namespaces","configmaps"],"scope":"Cluster"}`
)

var webhookCases = []kubeCase{
	kcase("validating webhook of a missing service",
		kpost(kubeCMs, `{"metadata":{"name":"wh-old",`+cmLabelled+`}}`),
		kpost(kubeVWCs, `{"metadata":{"name":"wh-missing"},"webhooks":[`+hookOn("missing.example.com", cmRule, missingSvc, labelled)+`]}`),
		kpost(kubeCMs, `{"metadata":{"name":"wh-a",`+cmLabelled+`}}`),
		kpost(kubeCMs, `{"metadata":{"name":"wh-b"}}`),
		kpatch(kubeCMs+"/wh-b", `{"metadata":{"labels":{"hook":"on"}}}`),
		kpatch(kubeCMs+"/wh-old", `{"metadata":{"labels":{"hook":"off"}}}`),
		kubeStep{"DELETE", kubeCMs + "/wh-old", ""},
		kubeStep{"DELETE", kubeCMs + "/wh-b", ""},
		kubeStep{"DELETE", kubeVWCs + "/wh-missing", ""},
		kpost(kubeCMs, `{"metadata":{"name":"wh-a",`+cmLabelled+`}}`),
		kubeStep{"DELETE", kubeCMs + "/wh-old", ""},
		kubeStep{"DELETE", kubeCMs + "/wh-a", ""},
	),
	kcase("webhook of a url nobody listens on",
		kpost(kubeVWCs, `{"metadata":{"name":"wh-url"},"webhooks":[`+hookOn("url.example.com", cmRule, nobodyURL, labelled+`,"timeoutSeconds":3`)+`]}`),
		kpost(kubeCMs, `{"metadata":{"name":"wh-url",`+cmLabelled+`}}`),
		kubeStep{"DELETE", kubeVWCs + "/wh-url", ""},
	),
	kcase("failurePolicy Ignore",
		kpost(kubeVWCs, `{"metadata":{"name":"wh-ignore"},"webhooks":[`+hookOn("ignore.example.com", cmRule, missingSvc, labelled+`,"failurePolicy":"Ignore"`)+`,`+hookOn("ignore-url.example.com", cmRule, nobodyURL, labelled+`,"failurePolicy":"Ignore"`)+`]}`),
		kpost(kubeMWCs, `{"metadata":{"name":"wh-ignore"},"webhooks":[`+hookOn("ignore.example.com", cmRule, missingSvc, labelled+`,"failurePolicy":"Ignore"`)+`]}`),
		kpost(kubeCMs, `{"metadata":{"name":"wh-ignored",`+cmLabelled+`},"data":{"a":"b"}}`),
		kubeStep{"DELETE", kubeCMs + "/wh-ignored", ""},
		kubeStep{"DELETE", kubeVWCs + "/wh-ignore", ""},
		kubeStep{"DELETE", kubeMWCs + "/wh-ignore", ""},
	),
	kcase("mutating webhooks of services kube cannot route to",
		kpost(kubeSvcs, `{"metadata":{"name":"wh-ports"},"spec":{"ports":[{"port":8443}]}}`),
		kpost(kubeSvcs, `{"metadata":{"name":"wh-headless"},"spec":{"clusterIP":"None","ports":[{"port":443}]}}`),
		kpost(kubeMWCs, `{"metadata":{"name":"wh-services"},"webhooks":[`+
			hookOn("port.example.com", cmRule, `{"service":{"namespace":"default","name":"wh-ports"}}`, `,"objectSelector":{"matchLabels":{"hook":"port"}}`)+`,`+
			hookOn("headless.example.com", cmRule, `{"service":{"namespace":"default","name":"wh-headless","port":443}}`, `,"objectSelector":{"matchLabels":{"hook":"headless"}}`)+`]}`),
		kpost(kubeCMs, `{"metadata":{"name":"wh-port","labels":{"hook":"port"}}}`),
		kpost(kubeCMs, `{"metadata":{"name":"wh-headless","labels":{"hook":"headless"}}}`),
		kubeStep{"DELETE", kubeMWCs + "/wh-services", ""},
		kubeStep{"DELETE", kubeSvcs + "/wh-ports", ""},
		kubeStep{"DELETE", kubeSvcs + "/wh-headless", ""},
	),
	kcase("namespaceSelector and scope",
		kpost("/api/v1/namespaces", `{"metadata":{"name":"wh-team","labels":{"team":"a"}}}`),
		kpost(kubeVWCs, `{"metadata":{"name":"wh-ns"},"webhooks":[`+hookOn("team.example.com", cmRule, missingSvc, `,"namespaceSelector":{"matchLabels":{"team":"a"}}`)+`,`+
			hookOn("cluster.example.com", namespaceOp, missingSvc, `,"namespaceSelector":{"matchExpressions":[{"key":"team","operator":"In","values":["b"]}]}`)+`]}`),
		kpost("/api/v1/namespaces/wh-team/configmaps", `{"metadata":{"name":"wh-in-team"}}`),
		kpost(kubeCMs, `{"metadata":{"name":"wh-not-team"}}`),
		kpost("/api/v1/namespaces", `{"metadata":{"name":"wh-team-b","labels":{"team":"b"}}}`),
		kpost("/api/v1/namespaces", `{"metadata":{"name":"wh-team-c","labels":{"team":"c"}}}`),
		kubeStep{"DELETE", kubeVWCs + "/wh-ns", ""},
		kubeStep{"DELETE", kubeCMs + "/wh-not-team", ""},
		kubeStep{"DELETE", "/api/v1/namespaces/wh-team", ""},
		kubeStep{"DELETE", "/api/v1/namespaces/wh-team-c", ""},
	),
	kcase("matchPolicy and subresources",
		kpost(kubeVWCs, `{"metadata":{"name":"wh-match"},"webhooks":[`+hookOn("equivalent.example.com", eventsRule, missingSvc, labelled)+`,`+
			hookOn("exact.example.com", eventsRule, missingSvc, `,"matchPolicy":"Exact","objectSelector":{"matchLabels":{"hook":"exact"}}`)+`,`+
			hookOn("status.example.com", statusRule, missingSvc, labelled)+`]}`),
		kpost("/api/v1/namespaces/default/events", `{"metadata":{"name":"wh-ev1",`+cmLabelled+`},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","message":"m"}`),
		kpost("/api/v1/namespaces/default/events", `{"metadata":{"name":"wh-ev2","labels":{"hook":"exact"}},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","message":"m"}`),
		kpost("/apis/events.k8s.io/v1/namespaces/default/events", `{"metadata":{"name":"wh-ev3","labels":{"hook":"exact"}},"eventTime":"2026-01-02T03:04:05.000000Z","reportingController":"example.com/c","reportingInstance":"i","action":"A","reason":"R","regarding":{"kind":"Pod","name":"p","namespace":"default"},"type":"Normal"}`),
		kpost(kubeSvcs, `{"metadata":{"name":"wh-svc",`+cmLabelled+`},"spec":{"ports":[{"port":80}]}}`),
		kpatch(kubeSvcs+"/wh-svc", `{"metadata":{"annotations":{"a":"b"}}}`),
		kpatch(kubeSvcs+"/wh-svc/status", `{"status":{"loadBalancer":{}}}`),
		kubeStep{"DELETE", kubeVWCs + "/wh-match", ""},
		kubeStep{"DELETE", kubeSvcs + "/wh-svc", ""},
		kubeStep{"DELETE", "/api/v1/namespaces/default/events/wh-ev2", ""},
		kubeStep{"DELETE", "/api/v1/namespaces/default/events/wh-ev3", ""},
	),
}

// TestRecordWebhooksKube writes webhooksKubeFile from a real
// kube-apiserver. Its webhooks come from an informer: after each write of
// a configuration the recording waits a second, so that every answer is
// the one of the configurations written (kubeplay's are current at once).
func TestRecordWebhooksKube(t *testing.T) {
	kube := refapi.Connect(t)
	var ids []string
	var answers [][]kubeAnswer
	for _, c := range webhookCases {
		var got []kubeAnswer
		for _, s := range c.steps {
			got = append(got, askKube(t, kube, s, nil))
			if strings.Contains(s.path, "webhookconfigurations") {
				time.Sleep(time.Second)
			}
		}
		ids, answers = append(ids, c.id), append(answers, got)
	}
	writeKubeAnswers(t, webhooksKubeFile, "Answers of kube-apiserver v1.32.13 (the refapi kit: etcd 3.5.16, --service-cluster-ip-range=10.0.0.0/24, the ServiceAccount admission plugin off) to the requests of webhookCases in webhooks_test.go, each case's steps sent in order (bodies as JSON, PATCH as a JSON merge patch), a second's wait after each write of a webhook configuration; recorded by "+t.Name()+".", ids, answers)
}

// TestK8S_WRITE_5_WebhooksUnreachableAsKube: writes that match webhooks
// nobody serves are refused (failurePolicy Fail) or written (Ignore) as
// kube refuses and writes them, the webhooks matched as kube matches them.
func TestK8S_WRITE_5_WebhooksUnreachableAsKube(t *testing.T) {
	replayKube(t, newTestServer(t, testConfig{ServiceIPRange: "10.0.0.0/24"}), webhooksKubeFile, webhookCases)
}

// TestWebhookServiceNobodyAnswers: a webhook served by a Service that
// resolves (its cluster IP and port) is refused as a real cluster's network
// refuses a connection nothing accepts, in kube's words.
func TestWebhookServiceNobodyAnswers(t *testing.T) {
	s := newTestServer(t, testConfig{ServiceIPRange: "10.0.0.0/24"})
	s.do("POST", kubeSvcs, `{"metadata":{"name":"hook"},"spec":{"clusterIP":"10.0.0.42","ports":[{"port":443,"targetPort":8443}]}}`).must(t, 201)
	s.do("POST", kubeVWCs, `{"metadata":{"name":"hook"},"webhooks":[`+hookOn("hook.example.com", cmRule, `{"service":{"namespace":"default","name":"hook","path":"/v"}}`, `,"timeoutSeconds":5`)+`]}`).must(t, 201)
	s.do("POST", kubeCMs, `{"metadata":{"name":"c"}}`).wantStatus(t, 500, "InternalError",
		`Internal error occurred: failed calling webhook "hook.example.com": failed to call webhook: Post "https://hook.default.svc:443/v?timeout=5s": dial tcp 10.0.0.42:443: connect: connection refused`)
}
