package apiserver

import "testing"

// The requests to networking.k8s.io/v1's NetworkPolicies, Ingresses and
// IngressClasses whose answers kube-apiserver 1.32.13 gave are recorded in
// testdata/networking-kube-1.32.13.json (TestRecordNetworkingKube writes
// it): their defaults, generation, status, field selectors, delete,
// validation and the default IngressClass an Ingress gets.

const (
	netKubeFile   = "testdata/networking-kube-1.32.13.json"
	kubeNetpols   = "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies"
	kubeIngresses = "/apis/networking.k8s.io/v1/namespaces/default/ingresses"
	kubeIngClass  = "/apis/networking.k8s.io/v1/ingressclasses"
	netpolTable   = kubeNetpols + "?includeObject=None"
	ingTable      = kubeIngresses + "?includeObject=None"
	ingClassTable = kubeIngClass + "?includeObject=None"
)

// Where TestRecordNetworkingKube records the Tables of what netCases leave.
var netTables = []struct{ file, path string }{
	{"testdata/networkpolicies-table-kube-1.32.13.json", netpolTable},
	{"testdata/ingresses-table-kube-1.32.13.json", ingTable},
	{"testdata/ingressclasses-table-kube-1.32.13.json", ingClassTable},
}

// kbackend is an Ingress backend of Service svc's port number.
func kbackend(svc string) string { return `{"service":{"name":"` + svc + `","port":{"number":80}}}` }

var netCases = []kubeCase{
	kcase("networkpolicy defaults, update, select and delete",
		kpost(kubeNetpols, `{"metadata":{"name":"np1"},"spec":{"podSelector":{"matchLabels":{"app":"a"}},"ingress":[{"from":[{"podSelector":{}}],"ports":[{"port":80},{"port":"http","protocol":"UDP"}]}]}}`),
		kpost(kubeNetpols, `{"metadata":{"name":"np2"},"spec":{"podSelector":{},"egress":[{"to":[{"ipBlock":{"cidr":"10.0.0.0/8","except":["10.1.0.0/16"]}}],"ports":[{"port":1000,"endPort":2000}]}]}}`),
		kpost(kubeNetpols, `{"metadata":{"name":"np3"},"spec":{"podSelector":{"matchExpressions":[{"key":"tier","operator":"In","values":["web","api"]}]},"policyTypes":["Egress"]}}`),
		kubeStep{"GET", kubeNetpols + "/np1", ""},
		kpatch(kubeNetpols+"/np1", `{"metadata":{"labels":{"x":"y"}}}`),
		kpatch(kubeNetpols+"/np1", `{"spec":{"podSelector":{"matchLabels":{"app":"b"}}}}`),
		kput(kubeNetpols+"/np3", `{"metadata":{"name":"np3"},"spec":{"podSelector":{}}}`),
		kubeStep{"GET", kubeNetpols + "?fieldSelector=metadata.name%3Dnp2", ""},
		kubeStep{"GET", kubeNetpols + "?fieldSelector=spec.podSelector%3Dx", ""},
		kpost(kubeNetpols, `{"metadata":{"name":"np-gone"},"spec":{"podSelector":{}}}`),
		kubeStep{"DELETE", kubeNetpols + "/np-gone", ""},
	),
	kcase("networkpolicy invalid",
		kpost(kubeNetpols, `{"metadata":{"name":"np-ports"},"spec":{"podSelector":{},"ingress":[{"ports":[{"port":0,"protocol":"ICMP"},{"port":"too-long-port-name-x","endPort":9},{"endPort":5},{"port":200,"endPort":100},{"port":70000}]}]}}`),
		kpost(kubeNetpols, `{"metadata":{"name":"np-peers"},"spec":{"podSelector":{"matchLabels":{"bad key!":"v"}},"egress":[{"to":[{},{"podSelector":{},"ipBlock":{"cidr":"10.0.0.0/8"}},{"ipBlock":{"cidr":"nonsense"}},{"ipBlock":{"cidr":"10.0.0.0/8","except":["11.0.0.0/16","10.0.0.0/8","bad"]}},{"ipBlock":{}}]}]}}`),
		kpost(kubeNetpols, `{"metadata":{"name":"np-types"},"spec":{"podSelector":{},"policyTypes":["Ingress","Sideways"]}}`),
		kpost(kubeNetpols, `{"metadata":{"name":"np-many"},"spec":{"podSelector":{},"policyTypes":["Ingress","Egress","Ingress"]}}`),
		kpost(kubeNetpols, `{"metadata":{"name":"np-ops"},"spec":{"podSelector":{"matchExpressions":[{"key":"a","operator":"In"},{"key":"b","operator":"Exists","values":["x"]},{"key":"c","operator":"Near"}]}}}`),
		kpost(kubeNetpols, `{"metadata":{"name":"np-upd"},"spec":{"podSelector":{}}}`),
		kpatch(kubeNetpols+"/np-upd", `{"spec":{"policyTypes":["Up"]}}`),
	),
	kcase("ingress create, status, update and delete",
		kpost(kubeIngresses, `{"metadata":{"name":"ing1"},"spec":{"ingressClassName":"nginx","rules":[{"host":"a.example.com","http":{"paths":[{"path":"/","pathType":"Prefix","backend":`+kbackend("web")+`}]}},{"host":"*.b.example.com","http":{"paths":[{"path":"/api","pathType":"Exact","backend":{"service":{"name":"api","port":{"name":"http"}}}}]}}],"tls":[{"hosts":["a.example.com"],"secretName":"tls"}]},"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4"}]}}}`),
		kpost(kubeIngresses, `{"metadata":{"name":"ing2","annotations":{"kubernetes.io/ingress.class":"nginx"}},"spec":{"defaultBackend":`+kbackend("web")+`}}`),
		kpost(kubeIngresses, `{"metadata":{"name":"ing3"},"spec":{"rules":[{"host":"a.com"},{"host":"b.com"},{"host":"c.com"},{"host":"d.com"},{}],"defaultBackend":{"resource":{"apiGroup":"example.com","kind":"Bucket","name":"b"}}}}`),
		kpatch(kubeIngresses+"/ing1/status", `{"status":{"loadBalancer":{"ingress":[{"ip":"10.0.0.9"},{"hostname":"lb.example.com"},{"ip":"10.0.0.1"}]}}}`),
		kpatch(kubeIngresses+"/ing1/status", `{"status":{"loadBalancer":{"ingress":[{"ip":"nope"},{"hostname":"1.2.3.4"},{"hostname":"Bad_Host"}]}}}`),
		kpatch(kubeIngresses+"/ing1", `{"spec":{"rules":[{"host":"c.example.com","http":{"paths":[{"path":"/","pathType":"ImplementationSpecific","backend":`+kbackend("web")+`}]}}]},"status":{"loadBalancer":{}}}`),
		kubeStep{"GET", kubeIngresses + "/ing1", ""},
		kpost(kubeIngresses, `{"metadata":{"name":"ing-gone"},"spec":{"defaultBackend":`+kbackend("web")+`}}`),
		kubeStep{"DELETE", kubeIngresses + "/ing-gone", ""},
	),
	kcase("ingress invalid",
		kpost(kubeIngresses, `{"metadata":{"name":"ing-empty"},"spec":{}}`),
		kpost(kubeIngresses, `{"metadata":{"name":"ing-rules"},"spec":{"rules":[]}}`),
		kpost(kubeIngresses, `{"metadata":{"name":"ing-hosts"},"spec":{"ingressClassName":"Bad_Class","rules":[{"host":"1.2.3.4"},{"host":"*.*.x"},{"host":"UPPER.com","http":{"paths":[]}}],"tls":[{"hosts":["*.ok.com","bad_host"],"secretName":"Bad_Secret"}]}}`),
		kpost(kubeIngresses, `{"metadata":{"name":"ing-paths"},"spec":{"rules":[{"http":{"paths":[{"path":"/a","backend":`+kbackend("web")+`},{"path":"rel//x/..","pathType":"Prefix","backend":`+kbackend("web")+`},{"path":"x","pathType":"ImplementationSpecific","backend":`+kbackend("web")+`},{"path":"/","pathType":"Regex","backend":`+kbackend("web")+`},{"path":"/%2f/./a/.","pathType":"Exact","backend":`+kbackend("web")+`}]}}]}}`),
		kpost(kubeIngresses, `{"metadata":{"name":"ing-backends"},"spec":{"rules":[{"http":{"paths":[{"path":"/1","pathType":"Prefix","backend":{}},{"path":"/2","pathType":"Prefix","backend":{"service":{"name":"a","port":{"number":80}},"resource":{"kind":"K","name":"n"}}},{"path":"/3","pathType":"Prefix","backend":{"service":{"name":"1svc","port":{"name":"http","number":80}}}},{"path":"/4","pathType":"Prefix","backend":{"service":{"port":{}}}},{"path":"/5","pathType":"Prefix","backend":{"service":{"name":"s","port":{"number":70000}}}},{"path":"/6","pathType":"Prefix","backend":{"service":{"name":"s","port":{"name":"Bad Name"}}}},{"path":"/7","pathType":"Prefix","backend":{"resource":{"apiGroup":"Bad_Group","kind":"a/b","name":""}}}]}}]}}`),
		kpost(kubeIngresses, `{"metadata":{"name":"ing-class","annotations":{"kubernetes.io/ingress.class":"a"}},"spec":{"ingressClassName":"b","defaultBackend":`+kbackend("web")+`}}`),
	),
	kcase("ingressclass create, update and delete",
		kpost(kubeIngClass, `{"metadata":{"name":"nginx"},"spec":{"controller":"k8s.io/ingress-nginx","parameters":{"apiGroup":"k8s.example.com","kind":"IngressParameters","name":"external-lb"}}}`),
		kpost(kubeIngClass, `{"metadata":{"name":"ns-params"},"spec":{"controller":"example.com/ctl","parameters":{"kind":"ConfigMap","name":"p","scope":"Namespace","namespace":"default"}}}`),
		kpost(kubeIngClass, `{"metadata":{"name":"plain"},"spec":{"controller":"example.com/plain"}}`),
		kpatch(kubeIngClass+"/nginx", `{"metadata":{"annotations":{"ingressclass.kubernetes.io/is-default-class":"true"}}}`),
		kpatch(kubeIngClass+"/plain", `{"spec":{"parameters":{"kind":"ConfigMap","name":"q"}}}`),
		kpatch(kubeIngClass+"/plain", `{"spec":{"controller":"example.com/other"}}`),
		kpost(kubeIngClass, `{"metadata":{"name":"gone"},"spec":{"controller":"example.com/gone"}}`),
		kubeStep{"DELETE", kubeIngClass + "/gone", ""},
		kubeStep{"GET", kubeIngClass + "?fieldSelector=metadata.name%3Dnginx", ""},
	),
	kcase("ingressclass invalid",
		kpost(kubeIngClass, `{"metadata":{"name":"none"},"spec":{}}`),
		kpost(kubeIngClass, `{"metadata":{"name":"noslash"},"spec":{"controller":"nginx"}}`),
		kpost(kubeIngClass, `{"metadata":{"name":"badpath"},"spec":{"controller":"Bad_Host/a b"}}`),
		kpost(kubeIngClass, `{"metadata":{"name":"params"},"spec":{"controller":"a.io/b","parameters":{"apiGroup":"Bad_Group","kind":"","name":"x/y","scope":"Galaxy"}}}`),
		kpost(kubeIngClass, `{"metadata":{"name":"nsreq"},"spec":{"controller":"a.io/b","parameters":{"kind":"K","name":"n","scope":"Namespace"}}}`),
		kpost(kubeIngClass, `{"metadata":{"name":"nsbad"},"spec":{"controller":"a.io/b","parameters":{"kind":"K","name":"n","scope":"Namespace","namespace":"Bad_NS"}}}`),
		kpost(kubeIngClass, `{"metadata":{"name":"nsforbid"},"spec":{"controller":"a.io/b","parameters":{"kind":"K","name":"n","scope":"Cluster","namespace":"default"}}}`),
		kpost(kubeIngClass, `{"metadata":{"name":"Bad_Name"},"spec":{"controller":"a.io/b"}}`),
	),
	// nginx, marked the default class above (kube's admission reads a
	// cache, which a class created just before would not be in yet).
	kcase("ingress default class",
		kpost(kubeIngresses, `{"metadata":{"name":"ing-defaulted"},"spec":{"defaultBackend":`+kbackend("web")+`}}`),
		kpost(kubeIngresses, `{"metadata":{"name":"ing-annotated","annotations":{"kubernetes.io/ingress.class":"other"}},"spec":{"defaultBackend":`+kbackend("web")+`}}`),
		kpost(kubeIngresses, `{"metadata":{"name":"ing-named"},"spec":{"ingressClassName":"mine","defaultBackend":`+kbackend("web")+`}}`),
		kpatch(kubeIngresses+"/ing-named", `{"spec":{"ingressClassName":null}}`),
	),
}

// TestRecordNetworkingKube writes netKubeFile and the netTables from a real
// kube-apiserver (a fresh instance).
func TestRecordNetworkingKube(t *testing.T) {
	recordKube(t, netKubeFile, "the requests of netCases in networking_test.go", netCases)
	for _, tb := range netTables {
		recordKubeTable(t, tb.file, tb.path)
	}
}

// TestK8S_URI_3_NetworkingAsKube: NetworkPolicies, Ingresses and
// IngressClasses are stored, defaulted, selected, deleted and refused as
// kube does them, and printed in kube's columns (ages aside).
func TestK8S_URI_3_NetworkingAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	replayKube(t, s, netKubeFile, netCases)
	ages := map[string]int{netpolTable: 2, ingTable: 5, ingClassTable: 3}
	for _, tb := range netTables {
		compareKubeTable(t, s, tb.file, tb.path, ages[tb.path])
	}
}

// TestK8S_URI_4_NetworkingDiscovery: networking.k8s.io/v1 lists its kinds
// as kube does (without the storageVersionHash kubeplay gives no kind).
func TestK8S_URI_4_NetworkingDiscovery(t *testing.T) {
	all := `["create","delete","deletecollection","get","list","patch","update","watch"]`
	compareKubeDiscovery(t, "/apis/networking.k8s.io/v1", "", `[
{"name":"ingressclasses","singularName":"ingressclass","namespaced":false,"kind":"IngressClass","verbs":`+all+`},
{"name":"ingresses","singularName":"ingress","namespaced":true,"kind":"Ingress","verbs":`+all+`,"shortNames":["ing"]},
{"name":"ingresses/status","singularName":"","namespaced":true,"kind":"Ingress","verbs":["get","patch","update"]},
{"name":"networkpolicies","singularName":"networkpolicy","namespaced":true,"kind":"NetworkPolicy","verbs":`+all+`,"shortNames":["netpol"]}]`)
}

// TestK8S_URI_3_IngressClassAnnotationWarning: an Ingress created with the
// class annotation and no ingressClassName is answered with kube's warning
// (kube's header, from the refapi kit).
func TestK8S_URI_3_IngressClassAnnotationWarning(t *testing.T) {
	const kube = `299 - "annotation \"kubernetes.io/ingress.class\" is deprecated, please use 'spec.ingressClassName' instead"`
	s := newTestServer(t, testConfig{})
	r := s.do("POST", kubeIngresses, `{"metadata":{"name":"warn","annotations":{"kubernetes.io/ingress.class":"x"}},"spec":{"defaultBackend":`+kbackend("web")+`}}`,
		"Content-Type", "application/json").must(t, 201)
	if got := r.Header.Get("Warning"); got != kube {
		t.Errorf("warning %q, kube's %q", got, kube)
	}
}
