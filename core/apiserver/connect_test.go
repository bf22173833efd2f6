package apiserver

import "testing"

// The connect subresources (pods/exec, attach, portforward, proxy;
// services/proxy; nodes/proxy): what kube-apiserver 1.32.13 answers before
// it dials a kubelet or a Pod is recorded in connectKubeFile
// (TestRecordConnectKube writes it); what it answers once it has dialled,
// kubeplay answers with kube's codes and words, the address it would have
// dialled and why nothing answers there.

const (
	connectKubeFile = "testdata/connect-kube-1.32.13.json"
	kubeNodes       = "/api/v1/nodes"
	kubeEndpoints   = "/api/v1/namespaces/default/endpoints"
)

// connectNode is a node whose kubelet is at a documentation address:
// nothing answers there, and kube dials it only when a case asks.
const connectNode = `{"metadata":{"name":"conn-node"},"status":{"addresses":[{"type":"InternalIP","address":"192.0.2.10"}],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}}}}`

var connectCases = []kubeCase{
	kcase("connect to a pod's streams",
		kpost(kubeNodes, connectNode),
		kpost(kubeNodes, `{"metadata":{"name":"conn-no-address"}}`),
		kpost(kubePods, kpod("conn-two", `"nodeName":"conn-node","containers":[{"name":"a","image":"nginx","ports":[{"containerPort":8080}]},{"name":"b","image":"nginx"}]`)),
		kpost(kubePods, kpod("conn-unbound", kubeOneContainer)),
		kpost(kubePods, kpod("conn-lost", `"nodeName":"conn-no-address",`+kubeOneContainer)),
		kpost(kubePods, kpod("conn-nowhere", `"nodeName":"conn-gone",`+kubeOneContainer)),
		kpost(kubePods+"/conn-none/exec?command=ls", ""),
		kpost(kubePods+"/conn-unbound/exec?command=ls", ""),
		kpost(kubePods+"/conn-two/exec?command=ls", ""),
		kpost(kubePods+"/conn-two/exec?command=ls&container=nope", ""),
		kpost(kubePods+"/conn-unbound/exec?command=ls&container=nope", ""),
		kpost(kubePods+"/conn-two/exec?command=ls&container=a", ""),
		kubeStep{"GET", kubePods + "/conn-two/exec?command=ls&container=b&stdout=true", ""},
		kubeStep{"GET", kubePods + "/conn-two/attach?container=a&stdout=true", ""},
		kpost(kubePods+"/conn-two/portforward?ports=8080", ""),
		kpost(kubePods+"/conn-unbound/portforward?ports=8080", ""),
		kpost(kubePods+"/conn-lost/exec?command=ls", ""),
		kpost(kubePods+"/conn-nowhere/exec?command=ls", ""),
		kubeStep{"PUT", kubePods + "/conn-two/exec?command=ls", ""},
	),
	kcase("proxy to pods, services and nodes",
		kpost(kubeNodes, `{"metadata":{"name":"conn-node-2"}}`),
		kpost(kubePods, kpod("conn-pod", kubeOneContainer)),
		kubeStep{"GET", kubePods + "/conn-pod/proxy/", ""},
		kubeStep{"GET", kubePods + "/conn-pod:80/proxy/some/path", ""},
		kubeStep{"GET", kubePods + "/conn-missing/proxy/", ""},
		kubeStep{"GET", kubePods + "/ftp:conn-pod:80/proxy/", ""},
		kubeStep{"GET", kubePods + "/a:b:c:d/proxy/", ""},
		kpost(kubeServices, `{"metadata":{"name":"conn-svc"},"spec":{"ports":[{"name":"web","port":80}]}}`),
		kubeStep{"GET", kubeServices + "/conn-svc/proxy/", ""},
		kubeStep{"GET", kubeServices + "/conn-svc:81/proxy/", ""},
		kubeStep{"GET", kubeServices + "/conn-missing/proxy/", ""},
		kpost(kubeEndpoints, `{"metadata":{"name":"conn-svc"}}`),
		kubeStep{"GET", kubeServices + "/conn-svc/proxy/", ""},
		kubeStep{"GET", kubeServices + "/conn-svc:80/proxy/", ""},
		kubeStep{"DELETE", kubeServices + "/http:conn-svc:web/proxy/x", ""},
		kput(kubeEndpoints+"/conn-svc", `{"metadata":{"name":"conn-svc"},"subsets":[{"addresses":[{"ip":"192.0.2.20"}],"ports":[{"name":"web","port":8080}]}]}`),
		kubeStep{"GET", kubeServices + "/conn-svc:web/proxy/", ""},
		kubeStep{"GET", kubeNodes + "/conn-missing/proxy/healthz", ""},
		kubeStep{"GET", kubeNodes + "/conn-node-2/proxy/healthz", ""},
		kubeStep{"GET", kubeNodes + "/https:conn-node-2:10250/proxy/healthz", ""},
	),
}

// TestRecordConnectKube writes connectKubeFile from a running kube-apiserver
// (see internal/refapi).
func TestRecordConnectKube(t *testing.T) {
	recordKube(t, connectKubeFile, "the requests of connectCases in connect_test.go", connectCases)
}

// TestK8S_URI_3_ConnectAsKube: the connect subresources find their Pod,
// container, node, address and endpoint, and refuse, as kube does.
func TestK8S_URI_3_ConnectAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	replayKube(t, s, connectKubeFile, connectCases)
}

// TestK8S_URI_3_ConnectUnreachable: where kube would dial a kubelet or a
// Pod, kubeplay answers as kube does when nothing answers there (an
// upgraded stream: 500 "error dialing backend"; a proxied request: 503
// "error trying to reach service"), with the address kube would have
// dialled and why nothing answers in kubeplay.
func TestK8S_URI_3_ConnectUnreachable(t *testing.T) {
	s := newTestServer(t, testConfig{})
	for _, step := range connectCases[0].steps[:3] {
		s.do(step.method, step.path, step.body).must(t, 201)
	}
	running := `{"status":{"phase":"Running","podIP":"10.244.0.7","podIPs":[{"ip":"10.244.0.7"}]}}`
	s.do("PATCH", kubePods+"/conn-two/status", running, "Content-Type", "application/merge-patch+json").must(t, 200)
	s.do("POST", kubeServices, `{"metadata":{"name":"conn-svc"},"spec":{"ports":[{"name":"web","port":80}]}}`).must(t, 201)
	s.do("POST", kubeEndpoints, `{"metadata":{"name":"conn-svc"},"subsets":[{"addresses":[{"ip":"10.244.0.7","targetRef":{"kind":"Pod","namespace":"default","name":"conn-two"}}],"ports":[{"name":"web","port":8080}]}]}`).must(t, 201)
	upgrade := []string{"Connection", "Upgrade", "Upgrade", "SPDY/3.1", "X-Stream-Protocol-Version", "v4.channel.k8s.io"}
	for _, c := range []struct {
		method, path string
		headers      []string
		code         int
		reason       string
		message      string
	}{
		{"POST", kubePods + "/conn-two/exec?command=ls&container=a", upgrade, 500, "",
			`error dialing backend: dial tcp 192.0.2.10:10250: kubeplay simulates node "conn-node": a kubeplay sandbox runs no containers, so there is nothing to exec into; read the simulated output with kubectl logs and the Pod's state in its status (kubectl describe pod)`},
		{"GET", kubePods + "/conn-two/attach?container=b", []string{"Connection", "keep-alive, Upgrade", "Upgrade", "websocket"}, 500, "",
			`error dialing backend: dial tcp 192.0.2.10:10250: kubeplay simulates node "conn-node": a kubeplay sandbox runs no containers, so there is nothing to attach to; read the simulated output with kubectl logs and the Pod's state in its status (kubectl describe pod)`},
		{"POST", kubePods + "/conn-two/portforward?ports=8080", upgrade, 500, "",
			`error dialing backend: dial tcp 192.0.2.10:10250: kubeplay simulates node "conn-node": a kubeplay sandbox runs no containers, so there is nothing to forward a port to; read the simulated output with kubectl logs and the Pod's state in its status (kubectl describe pod)`},
		{"GET", kubePods + "/conn-two/proxy/index.html", nil, 503, "ServiceUnavailable",
			`error trying to reach service: dial tcp 10.244.0.7:8080: kubeplay simulates Pod "default/conn-two": nothing listens in it`},
		{"GET", kubePods + "/conn-two:9000/proxy/", nil, 503, "ServiceUnavailable",
			`error trying to reach service: dial tcp 10.244.0.7:9000: kubeplay simulates Pod "default/conn-two": nothing listens in it`},
		{"POST", kubeServices + "/conn-svc:80/proxy/api", nil, 503, "ServiceUnavailable",
			`error trying to reach service: dial tcp 10.244.0.7:8080: kubeplay simulates Pod "default/conn-two": nothing listens in it`},
		{"OPTIONS", kubeNodes + "/conn-node/proxy/healthz", nil, 503, "ServiceUnavailable",
			`error trying to reach service: dial tcp 192.0.2.10:10250: kubeplay simulates node "conn-node": no kubelet listens there`},
		{"GET", kubeNodes + "/conn-node:9100/proxy/metrics", nil, 503, "ServiceUnavailable",
			`error trying to reach service: dial tcp 192.0.2.10:9100: kubeplay simulates this node: nothing listens there`},
	} {
		s.do(c.method, c.path, nil, c.headers...).wantStatus(t, c.code, c.reason, c.message)
	}
}
