package apiserver

import "strings"

// The requests whose answers kube-apiserver 1.32.13 gave are recorded in
// testdata/builtins-kube-1.32.13.json (TestRecordBuiltinsKube writes it): what
// the built-in kinds' defaults make of minimal and fuller objects, and how their
// own validation words what it refuses. Each case writes objects of its own
// names, so that the cases share one server.

// kubeStep is one request of a case: a POST to a collection, or a PUT or a
// JSON merge PATCH to an object created before.
type kubeStep struct {
	method, path, body string
}

// kubeCase is a sequence of requests; every answer is compared.
type kubeCase struct {
	id    string
	steps []kubeStep
}

const (
	kubePods         = "/api/v1/namespaces/default/pods"
	kubeDeployments  = "/apis/apps/v1/namespaces/default/deployments"
	kubeReplicaSets  = "/apis/apps/v1/namespaces/default/replicasets"
	kubeStatefulSets = "/apis/apps/v1/namespaces/default/statefulsets"
	kubeServices     = "/api/v1/namespaces/default/services"
	kubeSecrets      = "/api/v1/namespaces/default/secrets"
	kubeConfigMaps   = "/api/v1/namespaces/default/configmaps"
)

func kpost(path, body string) kubeStep            { return kubeStep{"POST", path, body} }
func kput(path, body string) kubeStep             { return kubeStep{"PUT", path, body} }
func kpatch(path, body string) kubeStep           { return kubeStep{"PATCH", path, body} }
func kcase(id string, steps ...kubeStep) kubeCase { return kubeCase{id, steps} }

// sha is a digest for image references.
const kdigest = "sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// podWith is a pod named name whose spec is spec (JSON members).
func kpod(name, spec string) string {
	return `{"metadata":{"name":"` + name + `"},"spec":{` + spec + `}}`
}

// workload is a Deployment's or ReplicaSet's body: name, spec members before
// the template, the template's labels and its pod spec members.
func kworkload(name, spec, labels, podSpec string) string {
	if spec != "" {
		spec += ","
	}
	return `{"metadata":{"name":"` + name + `"},"spec":{` + spec +
		`"template":{"metadata":{"labels":` + labels + `},"spec":{` + podSpec + `}}}}`
}

const (
	kubeOneContainer = `"containers":[{"name":"c","image":"nginx"}]`
	kubeAppA         = `{"app":"a"}`
	kubeSelectA      = `"selector":{"matchLabels":{"app":"a"}}`
)

// defaultsCases are valid objects: kube stores them with its defaults.
var defaultsCases = []kubeCase{
	kcase("ns-minimal", kpost("/api/v1/namespaces", `{"metadata":{"name":"dflt-ns"}}`)),
	kcase("ns-generatename", kpost("/api/v1/namespaces", `{"metadata":{"generateName":"dflt-ns-"}}`)),
	kcase("ns-put", kpost("/api/v1/namespaces", `{"metadata":{"name":"dflt-ns-put","labels":{"a":"b"}},"spec":{"finalizers":["example.com/f"]}}`),
		kput("/api/v1/namespaces/dflt-ns-put", `{"metadata":{"name":"dflt-ns-put"},"spec":{"finalizers":[]}}`)),

	kcase("pod-minimal", kpost(kubePods, kpod("dflt-pod", kubeOneContainer))),
	kcase("pod-images", kpost(kubePods, kpod("dflt-pod-images", `"containers":[`+strings.Join([]string{
		`{"name":"a","image":"nginx"}`,
		`{"name":"b","image":"nginx:latest"}`,
		`{"name":"c","image":"nginx:1.27"}`,
		`{"name":"d","image":"nginx@` + kdigest + `"}`,
		`{"name":"e","image":"nginx:1.27@` + kdigest + `"}`,
		`{"name":"f","image":"localhost:5000/app"}`,
		`{"name":"g","image":"registry.example.com:5000/team/app:v2"}`,
		`{"name":"h","image":"Nginx"}`,
		`{"name":"i","image":"nginx:latest","imagePullPolicy":"Never"}`,
		`{"name":"j","image":"nginx:LATEST"}`,
		`{"name":"k","image":"docker.io/library/nginx"}`,
		`{"name":"m","image":"a/b:c:d"}`,
		`{"name":"n","image":"nginx:"}`,
		`{"name":"o","image":"registry:5000"}`,
		`{"name":"p","image":"ghcr.io/x/y:latest@` + kdigest + `"}`,
	}, ",")+`]`))),
	kcase("pod-full", kpost(kubePods, `{"metadata":{"name":"dflt-pod-full","labels":{"app":"web"}},"spec":{
		"serviceAccountName":"builder",
		"initContainers":[{"name":"init","image":"busybox:1.36","command":["sh","-c","true"],"resources":{"limits":{"cpu":"100m"}},
			"ports":[{"containerPort":9000}]}],
		"containers":[
			{"name":"web","image":"nginx:1.27",
			 "ports":[{"containerPort":80,"name":"http"},{"containerPort":53,"protocol":"UDP"}],
			 "env":[{"name":"POD","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},{"name":"X","value":"y"}],
			 "resources":{"limits":{"cpu":"0.0005","memory":"128Mi","example.com/dev":"1"},"requests":{"cpu":"250u"}},
			 "livenessProbe":{"httpGet":{"port":"http"}},
			 "readinessProbe":{"tcpSocket":{"port":80},"periodSeconds":5},
			 "startupProbe":{"exec":{"command":["true"]},"failureThreshold":30},
			 "lifecycle":{"preStop":{"httpGet":{"port":80,"path":"/stop"}},"postStart":{"exec":{"command":["true"]}}},
			 "volumeMounts":[{"name":"cfg","mountPath":"/cfg"},{"name":"scratch","mountPath":"/scratch"}]},
			{"name":"grpc","image":"app","livenessProbe":{"grpc":{"port":9000}},"readinessProbe":{"httpGet":{"port":8080,"scheme":"HTTPS","path":"/ready"}}}],
		"volumes":[
			{"name":"cfg","configMap":{"name":"c"}},
			{"name":"sec","secret":{"secretName":"s","defaultMode":256}},
			{"name":"scratch"},
			{"name":"dapi","downwardAPI":{"items":[{"path":"n","fieldRef":{"fieldPath":"metadata.name"}}]}},
			{"name":"proj","projected":{"sources":[{"serviceAccountToken":{"path":"t"}},{"downwardAPI":{"items":[{"path":"l","fieldRef":{"fieldPath":"metadata.labels"}}]}},{"configMap":{"name":"c"}}]}},
			{"name":"host","hostPath":{"path":"/tmp"}},
			{"name":"eph","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}}},
			{"name":"tmp","emptyDir":{"sizeLimit":"1Gi"}}]}}`)),
	kcase("pod-hostnetwork", kpost(kubePods, kpod("dflt-pod-hostnet", `"hostNetwork":true,
		"initContainers":[{"name":"i","image":"busybox","ports":[{"containerPort":7000}]}],
		"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":8080},{"containerPort":8443,"hostPort":8443}]}]`))),
	kcase("pod-set", kpost(kubePods, kpod("dflt-pod-set", `"restartPolicy":"Never","dnsPolicy":"Default","terminationGracePeriodSeconds":5,
		"securityContext":{"runAsUser":1000},"schedulerName":"custom","enableServiceLinks":false,"serviceAccount":"legacy",
		"containers":[{"name":"c","image":"nginx","terminationMessagePath":"/tmp/t","terminationMessagePolicy":"FallbackToLogsOnError"}]`))),
	kcase("pod-negative-grace", kpost(kubePods, kpod("dflt-pod-grace", `"terminationGracePeriodSeconds":-1,`+kubeOneContainer))),
	kcase("pod-priority-class", kpost(kubePods, kpod("dflt-pod-prio", `"priorityClassName":"system-cluster-critical",`+kubeOneContainer))),
	kcase("pod-tolerations", kpost(kubePods, kpod("dflt-pod-tol", `"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute"},{"key":"k","value":"v"}],`+kubeOneContainer))),
	kcase("pod-update-image", kpost(kubePods, kpod("dflt-pod-upd", kubeOneContainer)),
		kpatch(kubePods+"/dflt-pod-upd", `{"spec":{"containers":[{"name":"c","image":"nginx:1.27","imagePullPolicy":"Always"}]},"metadata":{"labels":{"v":"2"}}}`)),

	kcase("pod-guaranteed", kpost(kubePods, kpod("dflt-pod-qos", `"containers":[{"name":"c","image":"nginx","resources":{"limits":{"cpu":"500m","memory":"64Mi"}}}]`))),
	kcase("pod-status-given", kpost(kubePods, `{"metadata":{"name":"dflt-pod-status"},"spec":{`+kubeOneContainer+`},"status":{"phase":"Running","podIP":"10.1.1.1"}}`)),
	kcase("deploy-minimal", kpost(kubeDeployments, kworkload("dflt-deploy", kubeSelectA, kubeAppA, kubeOneContainer))),
	kcase("deploy-recreate", kpost(kubeDeployments, kworkload("dflt-deploy-recreate",
		`"replicas":3,"revisionHistoryLimit":2,"progressDeadlineSeconds":100,"minReadySeconds":5,"strategy":{"type":"Recreate"},`+kubeSelectA, kubeAppA,
		`"containers":[{"name":"c","image":"nginx:1.27","ports":[{"containerPort":80}],"readinessProbe":{"httpGet":{"port":80}}}],"volumes":[{"name":"s","secret":{"secretName":"s"}}]`))),
	kcase("deploy-partial-rolling", kpost(kubeDeployments, kworkload("dflt-deploy-rolling", `"replicas":0,"strategy":{"rollingUpdate":{"maxSurge":1}},`+kubeSelectA, kubeAppA, kubeOneContainer))),
	kcase("deploy-put", kpost(kubeDeployments, kworkload("dflt-deploy-put", kubeSelectA, kubeAppA, kubeOneContainer)),
		kput(kubeDeployments+"/dflt-deploy-put", kworkload("dflt-deploy-put", kubeSelectA, kubeAppA, kubeOneContainer))),
	kcase("deploy-patch-null", kpost(kubeDeployments, kworkload("dflt-deploy-patch", kubeSelectA, kubeAppA, kubeOneContainer)),
		kpatch(kubeDeployments+"/dflt-deploy-patch", `{"spec":{"revisionHistoryLimit":null,"strategy":{"type":"Recreate","rollingUpdate":null}}}`)),

	kcase("deploy-volume-defaults", kpost(kubeDeployments, kworkload("dflt-deploy-vols", kubeSelectA, kubeAppA, kubeOneContainer+`,"volumes":[
		{"name":"r","rbd":{"monitors":["10.0.0.1:6789"],"image":"img"}},
		{"name":"i","iscsi":{"targetPortal":"10.0.0.2:3260","iqn":"iqn.2001-04.com.example:storage","lun":0}},
		{"name":"a","azureDisk":{"diskName":"d","diskURI":"https://example.com/d.vhd"}},
		{"name":"s","scaleIO":{"gateway":"https://gw","system":"sys","volumeName":"v","secretRef":{"name":"s"}}},
		{"name":"h","hostPath":{"path":"/var/log","type":"Directory"}},
		{"name":"c","configMap":{"name":"c","items":[{"key":"k","path":"p"}]}}]`))),
	kcase("rs-minimal", kpost(kubeReplicaSets, kworkload("dflt-rs", kubeSelectA, kubeAppA, kubeOneContainer))),
	kcase("rs-full", kpost(kubeReplicaSets, kworkload("dflt-rs-full", `"replicas":2,"minReadySeconds":3,"selector":{"matchExpressions":[{"key":"app","operator":"In","values":["a","b"]}]}`,
		`{"app":"a","tier":"web"}`, `"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80,"name":"http"}]}],"restartPolicy":"Always"`))),

	kcase("sts-minimal", kpost(kubeStatefulSets, kworkload("dflt-sts", kubeSelectA+`,"serviceName":"web"`, kubeAppA, kubeOneContainer))),
	kcase("sts-full", kpost(kubeStatefulSets, kworkload("dflt-sts-full", kubeSelectA+`,"replicas":2,"updateStrategy":{"type":"OnDelete"},"podManagementPolicy":"Parallel",`+
		`"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Delete"},"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]`,
		kubeAppA, `"containers":[{"name":"c","image":"nginx:1.27","volumeMounts":[{"name":"data","mountPath":"/data"}]}]`)),
		kpatch(kubeStatefulSets+"/dflt-sts-full", `{"spec":{"updateStrategy":{"type":"RollingUpdate"}}}`)),
	kcase("svc-minimal", kpost(kubeServices, `{"metadata":{"name":"dflt-svc"},"spec":{"ports":[{"port":80}]}}`)),
	kcase("svc-named-ports", kpost(kubeServices, `{"metadata":{"name":"dflt-svc-named"},"spec":{"selector":{"app":"a"},"ports":[{"name":"http","port":80,"targetPort":"http-port"},{"name":"dns","port":53,"protocol":"UDP"},{"name":"zero","port":8080,"targetPort":0}]}}`)),
	kcase("svc-nodeport", kpost(kubeServices, `{"metadata":{"name":"dflt-svc-np"},"spec":{"type":"NodePort","ports":[{"port":80}]}}`)),
	kcase("svc-loadbalancer", kpost(kubeServices, `{"metadata":{"name":"dflt-svc-lb"},"spec":{"type":"LoadBalancer","ports":[{"port":80}]}}`)),
	kcase("svc-clientip", kpost(kubeServices, `{"metadata":{"name":"dflt-svc-cip"},"spec":{"sessionAffinity":"ClientIP","ports":[{"port":80}]}}`)),
	kcase("svc-headless", kpost(kubeServices, `{"metadata":{"name":"dflt-svc-headless"},"spec":{"clusterIP":"None","selector":{"app":"a"},"ports":[{"port":80}]}}`)),
	kcase("svc-headless-no-selector", kpost(kubeServices, `{"metadata":{"name":"dflt-svc-headless-ns"},"spec":{"clusterIP":"None","ports":[{"port":80}]}}`)),
	kcase("svc-externalname", kpost(kubeServices, `{"metadata":{"name":"dflt-svc-ext"},"spec":{"type":"ExternalName","externalName":"example.com"}}`)),
	kcase("svc-put", kpost(kubeServices, `{"metadata":{"name":"dflt-svc-put"},"spec":{"ports":[{"port":80}]}}`),
		kput(kubeServices+"/dflt-svc-put", `{"metadata":{"name":"dflt-svc-put"},"spec":{"ports":[{"port":81}]}}`)),

	kcase("svc-type-change", kpost(kubeServices, `{"metadata":{"name":"dflt-svc-tc"},"spec":{"type":"NodePort","clusterIP":"10.0.0.12","ports":[{"port":80}]}}`),
		kpatch(kubeServices+"/dflt-svc-tc", `{"spec":{"type":"ClusterIP"}}`),
		kpatch(kubeServices+"/dflt-svc-tc", `{"spec":{"type":"ExternalName","externalName":"example.com"}}`)),
	kcase("pod-sidecar", kpost(kubePods, kpod("dflt-pod-sidecar", `"initContainers":[{"name":"log","image":"busybox","restartPolicy":"Always","readinessProbe":{"exec":{"command":["true"]}},"lifecycle":{"preStop":{"sleep":{"seconds":5}}}}],`+kubeOneContainer))),
	kcase("secret-minimal", kpost(kubeSecrets, `{"metadata":{"name":"dflt-secret"},"data":{"k":"dg=="}}`)),
	kcase("secret-typed", kpost(kubeSecrets, `{"metadata":{"name":"dflt-secret-typed"},"type":"example.com/custom","stringData":{"a":"x"}}`)),
	kcase("cm-minimal", kpost(kubeConfigMaps, `{"metadata":{"name":"dflt-cm"}}`)),
	kcase("cm-data", kpost(kubeConfigMaps, `{"metadata":{"name":"dflt-cm-data"},"data":{"a":"x"},"binaryData":{"b":"eA=="}}`)),
	kcase("ep-ports", kpost("/api/v1/namespaces/default/endpoints", `{"metadata":{"name":"dflt-ep"},"subsets":[{"addresses":[{"ip":"10.1.2.3"}],"ports":[{"port":80,"name":"http"},{"port":53,"protocol":"UDP","name":"dns"}]}]}`)),
	kcase("node-minimal", kpost("/api/v1/nodes", `{"metadata":{"name":"dflt-node"}}`)),
	kcase("node-capacity", kpost("/api/v1/nodes", `{"metadata":{"name":"dflt-node-cap"},"status":{"capacity":{"cpu":"3.5001","memory":"8Gi","pods":"110","example.com/x":"2"}}}`)),
	kcase("event-minimal", kpost("/api/v1/namespaces/default/events", `{"metadata":{"name":"dflt-ev"},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","message":"m","type":"Normal"}`)),
	kcase("sa-minimal", kpost("/api/v1/namespaces/default/serviceaccounts", `{"metadata":{"name":"dflt-sa"}}`)),
	kcase("lease-minimal", kpost("/apis/coordination.k8s.io/v1/namespaces/default/leases", `{"metadata":{"name":"dflt-lease"},"spec":{"holderIdentity":"h","leaseDurationSeconds":15}}`)),
}

// validationCases are objects the built-ins' own validation refuses, and
// updates it allows or refuses.
var validationCases = []kubeCase{
	kcase("pod-empty-spec", kpost(kubePods, kpod("val-pod-empty", ``))),
	kcase("pod-no-spec", kpost(kubePods, `{"metadata":{"name":"val-pod-nospec"}}`)),
	kcase("pod-container-empty", kpost(kubePods, kpod("val-pod-ctr", `"containers":[{}]`))),
	kcase("pod-container-names", kpost(kubePods, kpod("val-pod-names", `"containers":[{"name":"Web_1","image":"x"},{"name":"web","image":"x"},{"name":"web","image":"x"},{"name":"`+strings.Repeat("a", 64)+`","image":"x"}]`))),
	kcase("pod-image-whitespace", kpost(kubePods, kpod("val-pod-image", `"containers":[{"name":"c","image":" nginx"},{"name":"d","image":"nginx\t"}]`))),
	kcase("pod-ports", kpost(kubePods, kpod("val-pod-ports", `"containers":[{"name":"c","image":"x","ports":[
		{"containerPort":0},{"containerPort":70000,"hostPort":-1},{"containerPort":80,"name":"HTTP_x"},{"containerPort":81,"name":"http"},
		{"containerPort":82,"name":"http"},{"containerPort":83,"protocol":"XYZ"},{"containerPort":84,"name":"1234"},
		{"containerPort":85,"name":"a-very-long-port-name"},{"containerPort":86,"name":"a--b"},{"containerPort":87,"name":"-ab"}]}]`))),
	kcase("pod-policies", kpost(kubePods, kpod("val-pod-policies", `"restartPolicy":"Sometimes","dnsPolicy":"Foo",
		"containers":[{"name":"c","image":"x","imagePullPolicy":"Sometimes","terminationMessagePolicy":"Bar"}]`))),
	kcase("pod-many", kpost(kubePods, `{"metadata":{"name":"val-pod-many","labels":{"a b":"c"}},"spec":{"restartPolicy":"x","containers":[{"name":"","image":""}]}}`)),
	kcase("pod-init-duplicate", kpost(kubePods, kpod("val-pod-init", `"initContainers":[{"name":"c","image":"x"},{"name":"","image":"x"}],`+kubeOneContainer))),
	kcase("pod-volumes", kpost(kubePods, kpod("val-pod-vols", `"volumes":[{"name":"v"},{"name":"v"},{"name":"Bad_Name"},{"name":"x","emptyDir":{},"secret":{"secretName":"s"}},{"name":""}],
		"containers":[{"name":"c","image":"x","volumeMounts":[{"name":"missing","mountPath":"/m"},{"name":"v","mountPath":""},{"name":"v","mountPath":"/m"}]}]`))),
	kcase("pod-env", kpost(kubePods, kpod("val-pod-env", `"containers":[{"name":"c","image":"x","env":[{"name":"1abc","value":"x"},{"name":""},{"name":"A=B"},{"name":"ok-name.x"}]}]`))),
	kcase("pod-resources", kpost(kubePods, kpod("val-pod-res", `"containers":[{"name":"c","image":"x","resources":{"limits":{"cpu":"1"},"requests":{"cpu":"2"}}},{"name":"d","image":"x","resources":{"limits":{"memory":"-1"}}},{"name":"e","image":"x","resources":{"requests":{"cpu":"-100m"}}}]`))),
	kcase("pod-resource-names", kpost(kubePods, kpod("val-pod-resnames", `"containers":[
		{"name":"a","image":"x","resources":{"limits":{"cpus":"1"}}},
		{"name":"b","image":"x","resources":{"requests":{"Bad Name":"1"}}},
		{"name":"c","image":"x","resources":{"limits":{"hugepages-2Mi":"2Mi"}}},
		{"name":"d","image":"x","resources":{"requests":{"example.com/gpu":"1"}}},
		{"name":"e","image":"x","resources":{"limits":{"example.com/gpu":"2"},"requests":{"example.com/gpu":"1"}}},
		{"name":"f","image":"x","resources":{"limits":{"requests.example.com/gpu":"2","cpu":"1"}}}]`))),
	kcase("pod-probes", kpost(kubePods, kpod("val-pod-probes", `"containers":[{"name":"c","image":"x","livenessProbe":{"periodSeconds":-1},"readinessProbe":{"httpGet":{"port":0},"exec":{"command":["x"]}},"startupProbe":{"tcpSocket":{"port":"Bad_Name"},"successThreshold":2}}]`))),
	kcase("pod-misc", kpost(kubePods, kpod("val-pod-misc", `"activeDeadlineSeconds":0,"hostname":"Bad_Host","nodeSelector":{"a b":"c"},"serviceAccountName":"Bad_SA",`+kubeOneContainer))),
	kcase("pod-priority-class-missing", kpost(kubePods, kpod("val-pod-prio", `"priorityClassName":"nope",`+kubeOneContainer))),
	kcase("pod-priority-given", kpost(kubePods, kpod("val-pod-prio2", `"priority":5,`+kubeOneContainer))),
	kcase("pod-missing-namespace", kpost("/api/v1/namespaces/val-missing/pods", kpod("val-pod-nons", ``))),
	kcase("pod-update-forbidden", kpost(kubePods, kpod("val-pod-upd", kubeOneContainer)),
		kpatch(kubePods+"/val-pod-upd", `{"spec":{"containers":[{"name":"c","image":"nginx","command":["sh"]}]}}`),
		kpatch(kubePods+"/val-pod-upd", `{"spec":{"containers":[{"name":"c","image":""}]}}`),
		kpatch(kubePods+"/val-pod-upd", `{"spec":{"activeDeadlineSeconds":30,"tolerations":[{"key":"x","operator":"Exists"}]}}`)),

	kcase("deploy-no-selector", kpost(kubeDeployments, kworkload("val-deploy-nosel", ``, kubeAppA, ``))),
	kcase("deploy-mismatch", kpost(kubeDeployments, kworkload("val-deploy-mismatch", kubeSelectA, `{"app":"b"}`, kubeOneContainer))),
	kcase("deploy-no-labels", kpost(kubeDeployments, `{"metadata":{"name":"val-deploy-nolabels"},"spec":{`+kubeSelectA+`,"template":{"spec":{`+kubeOneContainer+`}}}}`)),
	kcase("deploy-empty-selector", kpost(kubeDeployments, kworkload("val-deploy-emptysel", `"selector":{}`, kubeAppA, kubeOneContainer))),
	kcase("deploy-negative", kpost(kubeDeployments, kworkload("val-deploy-neg", `"replicas":-1,"minReadySeconds":-1,"revisionHistoryLimit":-1,"progressDeadlineSeconds":-1,`+kubeSelectA, kubeAppA, kubeOneContainer))),
	kcase("deploy-progress-deadline", kpost(kubeDeployments, kworkload("val-deploy-progress", `"minReadySeconds":10,"progressDeadlineSeconds":10,`+kubeSelectA, kubeAppA, kubeOneContainer))),
	kcase("deploy-restart-never", kpost(kubeDeployments, kworkload("val-deploy-never", kubeSelectA, kubeAppA, `"restartPolicy":"Never","activeDeadlineSeconds":10,`+kubeOneContainer))),
	kcase("deploy-strategy-type", kpost(kubeDeployments, kworkload("val-deploy-strategy", `"strategy":{"type":"Foo"},`+kubeSelectA, kubeAppA, kubeOneContainer))),
	kcase("deploy-recreate-rolling", kpost(kubeDeployments, kworkload("val-deploy-recreate", `"strategy":{"type":"Recreate","rollingUpdate":{"maxSurge":1}},`+kubeSelectA, kubeAppA, kubeOneContainer))),
	kcase("deploy-rolling-zero", kpost(kubeDeployments, kworkload("val-deploy-zero", `"strategy":{"rollingUpdate":{"maxSurge":0,"maxUnavailable":"0%"}},`+kubeSelectA, kubeAppA, kubeOneContainer))),
	kcase("deploy-rolling-values", kpost(kubeDeployments, kworkload("val-deploy-values", `"strategy":{"rollingUpdate":{"maxSurge":"abc","maxUnavailable":"150%"}},`+kubeSelectA, kubeAppA, kubeOneContainer))),
	kcase("deploy-rolling-negative", kpost(kubeDeployments, kworkload("val-deploy-rneg", `"strategy":{"rollingUpdate":{"maxSurge":-1,"maxUnavailable":"-5%"}},`+kubeSelectA, kubeAppA, kubeOneContainer))),
	kcase("deploy-bad-selector", kpost(kubeDeployments, kworkload("val-deploy-badsel", `"selector":{"matchLabels":{"app":"bad value!"},"matchExpressions":[{"key":"k","operator":"Foo"},{"key":"t","operator":"In"},{"key":"u","operator":"Exists","values":["x"]}]}`, kubeAppA, kubeOneContainer))),
	kcase("deploy-expressions-mismatch", kpost(kubeDeployments, kworkload("val-deploy-expr", `"selector":{"matchExpressions":[{"key":"tier","operator":"In","values":["web"]},{"key":"app","operator":"NotIn","values":["a"]}]}`, `{"app":"a","tier":"db"}`, kubeOneContainer))),
	kcase("deploy-template-invalid", kpost(kubeDeployments, kworkload("val-deploy-tmpl", kubeSelectA, `{"app":"a","b c":"d"}`, `"containers":[{"name":"c"}],"dnsPolicy":"x"`))),
	kcase("deploy-selector-immutable", kpost(kubeDeployments, kworkload("val-deploy-immut", kubeSelectA, kubeAppA, kubeOneContainer)),
		kpatch(kubeDeployments+"/val-deploy-immut", `{"spec":{"selector":{"matchLabels":{"app":"a","x":"y"}},"template":{"metadata":{"labels":{"app":"a","x":"y"}}}}}`),
		kpatch(kubeDeployments+"/val-deploy-immut", `{"spec":{"replicas":-2}}`)),

	kcase("rs-no-selector", kpost(kubeReplicaSets, kworkload("val-rs-nosel", ``, kubeAppA, kubeOneContainer))),
	kcase("rs-mismatch", kpost(kubeReplicaSets, kworkload("val-rs-mismatch", `"replicas":-1,`+kubeSelectA, `{"app":"b"}`, ``))),
	kcase("rs-selector-immutable", kpost(kubeReplicaSets, kworkload("val-rs-immut", kubeSelectA, kubeAppA, kubeOneContainer)),
		kpatch(kubeReplicaSets+"/val-rs-immut", `{"spec":{"selector":{"matchLabels":{"app":"b"}},"template":{"metadata":{"labels":{"app":"b"}}}}}`)),

	kcase("svc-no-ports", kpost(kubeServices, `{"metadata":{"name":"val-svc-noports"},"spec":{}}`)),
	kcase("svc-ports", kpost(kubeServices, `{"metadata":{"name":"val-svc-ports"},"spec":{"ports":[{"port":0},{"port":70000,"targetPort":0},{"port":80,"protocol":"XYZ"},{"port":81,"targetPort":"Bad_Name"},{"port":82,"targetPort":70000}]}}`)),
	kcase("svc-duplicates", kpost(kubeServices, `{"metadata":{"name":"val-svc-dup"},"spec":{"ports":[{"name":"a","port":80},{"name":"a","port":80},{"name":"Bad","port":81,"protocol":"UDP"}]}}`)),
	kcase("svc-type", kpost(kubeServices, `{"metadata":{"name":"val-svc-type"},"spec":{"type":"Foo","sessionAffinity":"Sticky","ports":[{"port":80}]}}`)),
	kcase("svc-nodeport-on-clusterip", kpost(kubeServices, `{"metadata":{"name":"val-svc-np"},"spec":{"ports":[{"port":80,"nodePort":30080}]}}`)),
	kcase("svc-externalname-missing", kpost(kubeServices, `{"metadata":{"name":"val-svc-ext"},"spec":{"type":"ExternalName"}}`)),
	kcase("svc-selector", kpost(kubeServices, `{"metadata":{"name":"val-svc-sel"},"spec":{"selector":{"a b":"c"},"ports":[{"port":80}]}}`)),
	kcase("svc-clusterip-immutable", kpost(kubeServices, `{"metadata":{"name":"val-svc-ip"},"spec":{"clusterIP":"10.0.0.10","selector":{"app":"a"},"ports":[{"port":80}]}}`),
		kpatch(kubeServices+"/val-svc-ip", `{"spec":{"clusterIP":"10.0.0.11"}}`),
		kpatch(kubeServices+"/val-svc-ip", `{"spec":{"clusterIP":"10.0.0.11","clusterIPs":["10.0.0.11"]}}`),
		kpatch(kubeServices+"/val-svc-ip", `{"spec":{"clusterIP":null,"clusterIPs":null,"ports":[{"port":81}]}}`),
		kput(kubeServices+"/val-svc-ip", `{"metadata":{"name":"val-svc-ip"},"spec":{"ports":[{"port":82}],"type":"NodePort"}}`)),

	kcase("svc-ipv6", kpost(kubeServices, `{"metadata":{"name":"val-svc-ipv6"},"spec":{"clusterIP":"fd00::10","ports":[{"port":80}]}}`)),
	kcase("svc-dual-stack", kpost(kubeServices, `{"metadata":{"name":"val-svc-dual"},"spec":{"ipFamilyPolicy":"RequireDualStack","ports":[{"port":80}]}}`)),
	kcase("svc-cluster-ips", kpost(kubeServices, `{"metadata":{"name":"val-svc-ips"},"spec":{"clusterIP":"10.0.0.70","clusterIPs":["10.0.0.71"],"ports":[{"port":80}]}}`)),
	kcase("cm-bad-keys", kpost(kubeConfigMaps, `{"metadata":{"name":"val-cm-keys"},"data":{"a b":"x","ok":"z"},"binaryData":{"..":"eA=="}}`)),
	kcase("cm-duplicate-key", kpost(kubeConfigMaps, `{"metadata":{"name":"val-cm-dup"},"data":{"ok":"z"},"binaryData":{"ok":"eA=="}}`)),
	kcase("cm-immutable", kpost(kubeConfigMaps, `{"metadata":{"name":"val-cm-immut"},"data":{"a":"x"},"immutable":true}`),
		kpatch(kubeConfigMaps+"/val-cm-immut", `{"data":{"a":"y"}}`),
		kpatch(kubeConfigMaps+"/val-cm-immut", `{"immutable":false}`),
		kpatch(kubeConfigMaps+"/val-cm-immut", `{"metadata":{"labels":{"l":"v"}}}`)),
	kcase("secret-bad-keys", kpost(kubeSecrets, `{"metadata":{"name":"val-secret-keys"},"data":{"a b":"eA=="}}`)),
	kcase("secret-immutable", kpost(kubeSecrets, `{"metadata":{"name":"val-secret-immut"},"data":{"a":"eA=="},"immutable":true}`),
		kpatch(kubeSecrets+"/val-secret-immut", `{"data":{"a":"eQ=="}}`),
		kpatch(kubeSecrets+"/val-secret-immut", `{"immutable":null}`)),
	kcase("secret-type-immutable", kpost(kubeSecrets, `{"metadata":{"name":"val-secret-type"},"data":{"a":"eA=="}}`),
		kpatch(kubeSecrets+"/val-secret-type", `{"type":"example.com/other"}`)),
	kcase("secret-dockerconfigjson", kpost(kubeSecrets, `{"metadata":{"name":"val-secret-docker"},"type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":"bm90IGpzb24="}}`)),
	kcase("secret-basic-auth", kpost(kubeSecrets, `{"metadata":{"name":"val-secret-basic"},"type":"kubernetes.io/basic-auth","stringData":{"user":"x"}}`)),
	kcase("secret-tls", kpost(kubeSecrets, `{"metadata":{"name":"val-secret-tls"},"type":"kubernetes.io/tls","data":{"a":"eA=="}}`)),
}
