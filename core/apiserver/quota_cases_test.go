package apiserver

import "testing"

// quotaKubeFile holds kube-apiserver's answers to quotaCases.
const quotaKubeFile = "testdata/quota-kube-1.32.13.json"

// The collections of the namespace quotaCases work in.
const (
	kubeQuotas       = "/api/v1/namespaces/quota/resourcequotas"
	kubeLimitRanges  = "/api/v1/namespaces/quota/limitranges"
	kubeQuotaPods    = "/api/v1/namespaces/quota/pods"
	kubeQuotaCMs     = "/api/v1/namespaces/quota/configmaps"
	kubeQuotaSvcs    = "/api/v1/namespaces/quota/services"
	kubeQuotaClaims  = "/api/v1/namespaces/quota/persistentvolumeclaims"
	kubeQuotaSecrets = "/api/v1/namespaces/quota/secrets"
)

// kquota is a ResourceQuota named name with spec members spec.
func kquota(name, spec string) string {
	return `{"metadata":{"name":"` + name + `"},"spec":{` + spec + `}}`
}

// kquotaStatus is a merge patch of a quota's status to hard and used.
func kquotaStatus(hard, used string) string {
	return `{"status":{"hard":` + hard + `,"used":` + used + `}}`
}

// kpodResources is a Pod named name with a container c of resources res
// (JSON members) and more spec members.
func kpodResources(name, res, spec string) string {
	if spec != "" {
		spec = "," + spec
	}
	return kpod(name, `"containers":[{"name":"c","image":"nginx","resources":{`+res+`}}]`+spec)
}

// kservice is a Service named name of type typ with ports ports.
func kservice(name, typ string, ports int) string {
	list := ""
	for i := range ports {
		if i > 0 {
			list += ","
		}
		list += `{"name":"p` + string(rune('0'+i)) + `","port":` + string(rune('1'+i)) + `0}`
	}
	return `{"metadata":{"name":"` + name + `"},"spec":{"type":"` + typ + `","selector":{"app":"a"},"ports":[` + list + `]}}`
}

// quotaCases: ResourceQuotas as kube-apiserver serves them without
// kube-controller-manager (the quota's status written by hand here, as its
// controller would): the quota and its status, what the ResourceQuota
// admission refuses and how it charges what it admits (creates, updates,
// scopes, dry runs), the quota's validation, and LimitRanges with the
// LimitRanger admission's defaults and bounds.
var quotaCases = []kubeCase{
	kcase("namespace", kpost("/api/v1/namespaces", `{"metadata":{"name":"quota"}}`)),
	kcase("ROB-2 a ResourceQuota refuses and charges Pods and ConfigMaps",
		kpost(kubeQuotas, `{"metadata":{"name":"compute"},"spec":{"hard":{"pods":"2","requests.cpu":"1","requests.memory":"1Gi","limits.memory":"2Gi","count/configmaps":"1"}},"status":{"hard":{"pods":"9"}}}`),
		kget(kubeQuotas+"/compute"),
		kpost(kubeQuotaPods, kpod("free", kubeOneContainer)),
		kpatch(kubeQuotas+"/compute/status", `{"status":{"hard":{"pods":"2","requests.cpu":"1","requests.memory":"1Gi","limits.memory":"2Gi","count/configmaps":"1"}}}`),
		kpost(kubeQuotaPods, kpodResources("unknown", `"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"memory":"64Mi"}`, "")),
		kpatch(kubeQuotas+"/compute/status", `{"status":{"used":{"pods":"1","requests.cpu":"0","requests.memory":"0","limits.memory":"0","count/configmaps":"0"}}}`),
		kpost(kubeQuotaPods, kpod("bare", kubeOneContainer)),
		kpost(kubeQuotaPods, kpod("half", `"containers":[{"name":"a","image":"nginx","resources":{"requests":{"cpu":"100m"}}},{"name":"b","image":"nginx","resources":{"limits":{"memory":"64Mi"}}}],"initContainers":[{"name":"i","image":"busybox"}]`)),
		kpost(kubeQuotaPods, kpod("two", `"containers":[{"name":"a","image":"nginx","resources":{"requests":{"cpu":"200m","memory":"128Mi"},"limits":{"memory":"256Mi"}}},`+
			`{"name":"b","image":"nginx","resources":{"requests":{"cpu":"300m","memory":"128Mi"},"limits":{"memory":"256Mi"}}}]`)),
		kget(kubeQuotas+"/compute"),
		kpost(kubeQuotaPods, kpodResources("big", `"requests":{"cpu":"600m","memory":"64Mi"},"limits":{"memory":"64Mi"}`, "")),
		kpost(kubeQuotaPods+"?dryRun=All", kpodResources("big", `"requests":{"cpu":"600m","memory":"64Mi"},"limits":{"memory":"64Mi"}`, "")),
		kpatch(kubeQuotas+"/compute/status", `{"status":{"used":{"pods":"1"}}}`),
		kpost(kubeQuotaPods+"?dryRun=All", kpodResources("small", `"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"memory":"64Mi"}`, "")),
		kpost(kubeQuotaPods, kpodResources("small", `"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"memory":"64Mi"}`, "")),
		kget(kubeQuotas+"/compute/status"),
		kdelete(kubeQuotaPods+"/small", `{"gracePeriodSeconds":0}`),
		kget(kubeQuotas+"/compute"),
		kpost(kubeQuotaCMs, kcm("one", "")),
		kpost(kubeQuotaCMs, kcm("two", "")),
		kpost(kubeQuotaCMs, kcm("one", "")),
		kpost(kubeQuotaSecrets, `{"metadata":{"name":"s"}}`),
		kget(kubeQuotas),
		kdelete(kubeQuotas+"/compute", ""),
	),
	kcase("ROB-2 Services and claims are charged on create and update",
		kpost(kubeQuotas, kquota("objects", `"hard":{"services":"2","services.nodeports":"2","services.loadbalancers":"0","persistentvolumeclaims":"2","requests.storage":"3Gi","gold.storageclass.storage.k8s.io/requests.storage":"1Gi"}`)),
		kpatch(kubeQuotas+"/objects/status", kquotaStatus(`{"services":"2","services.nodeports":"2","services.loadbalancers":"0","persistentvolumeclaims":"2","requests.storage":"3Gi","gold.storageclass.storage.k8s.io/requests.storage":"1Gi"}`,
			`{"services":"0","services.nodeports":"0","services.loadbalancers":"0","persistentvolumeclaims":"0","requests.storage":"0","gold.storageclass.storage.k8s.io/requests.storage":"0"}`)),
		kpost(kubeQuotaSvcs, kservice("plain", "ClusterIP", 1)),
		kpatch(kubeQuotaSvcs+"/plain", `{"spec":{"type":"NodePort"}}`),
		kget(kubeQuotas+"/objects"),
		kpost(kubeQuotaSvcs, kservice("ports", "NodePort", 2)),
		kpost(kubeQuotaSvcs, kservice("balanced", "LoadBalancer", 1)),
		kpatch(kubeQuotaSvcs+"/plain", `{"spec":{"type":"ClusterIP","ports":[{"name":"p0","port":10,"nodePort":null}]}}`),
		kget(kubeQuotas+"/objects"),
		kpost(kubeQuotaClaims, `{"metadata":{"name":"gold-a"},"spec":{"storageClassName":"gold","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`),
		kpost(kubeQuotaClaims, `{"metadata":{"name":"gold-b"},"spec":{"storageClassName":"gold","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1500Mi"}}}}`),
		kpost(kubeQuotaClaims, `{"metadata":{"name":"plain"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"2Gi"}}}}`),
		kpost(kubeQuotaClaims, `{"metadata":{"name":"third"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1"}}}}`),
		kget(kubeQuotas+"/objects"),
		kdelete(kubeQuotas+"/objects", ""),
	),
	kcase("ROB-2 a create through PUT, and an update up to the limit",
		kpost(kubeQuotas, kquota("edge", `"hard":{"services":"1","services.nodeports":"1"}`)),
		kpatch(kubeQuotas+"/edge/status", kquotaStatus(`{"services":"1","services.nodeports":"1"}`, `{"services":"0","services.nodeports":"0"}`)),
		kput(kubeQuotaSvcs+"/first", kservice("first", "ClusterIP", 1)),
		kput(kubeQuotaSvcs+"/second", kservice("second", "ClusterIP", 1)),
		kpatch(kubeQuotaSvcs+"/first", `{"spec":{"type":"NodePort"}}`),
		kget(kubeQuotas+"/edge"),
		kdelete(kubeQuotas+"/edge", ""),
	),
	kcase("ROB-2 scopes: BestEffort, Terminating, PriorityClass",
		kpost(kubeQuotas, kquota("best-effort", `"hard":{"pods":"1"},"scopes":["BestEffort"]`)),
		kpost(kubeQuotas, kquota("deadline", `"hard":{"pods":"1","requests.cpu":"100m"},"scopes":["Terminating"]`)),
		kpost(kubeQuotas, kquota("no-priority", `"hard":{"count/pods":"5","pods":"5"},"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"DoesNotExist"}]}`)),
		kpatch(kubeQuotas+"/best-effort/status", kquotaStatus(`{"pods":"1"}`, `{"pods":"0"}`)),
		kpatch(kubeQuotas+"/deadline/status", kquotaStatus(`{"pods":"1","requests.cpu":"100m"}`, `{"pods":"0","requests.cpu":"0"}`)),
		kpatch(kubeQuotas+"/no-priority/status", kquotaStatus(`{"count/pods":"5","pods":"5"}`, `{"count/pods":"0","pods":"0"}`)),
		kpost(kubeQuotaPods, kpod("be-1", kubeOneContainer)),
		kpost(kubeQuotaPods, kpod("be-2", kubeOneContainer)),
		kpost(kubeQuotaPods, kpodResources("job", `"requests":{"cpu":"50m"}`, `"activeDeadlineSeconds":60,"priorityClassName":"system-cluster-critical"`)),
		kpost(kubeQuotaPods, kpodResources("job-2", `"requests":{"cpu":"100m"}`, `"activeDeadlineSeconds":60,"priorityClassName":"system-cluster-critical"`)),
		kget(kubeQuotas),
		kdelete(kubeQuotas, ""),
	),
	kcase("ROB-2 a ResourceQuota's validation",
		kpost(kubeQuotas, kquota("bad-1", `"hard":{"foo":"1"}`)),
		kpost(kubeQuotas, kquota("bad-2", `"hard":{"storage":"1Gi"}`)),
		kpost(kubeQuotas, kquota("bad-3", `"hard":{"bad key":"1"}`)),
		kpost(kubeQuotas, kquota("bad-4", `"hard":{"pods":"-1"}`)),
		kpost(kubeQuotas, kquota("bad-5", `"hard":{"services":"1500m"}`)),
		kpost(kubeQuotas, kquota("bad-6", `"hard":{"example.com/gpu":"500m"}`)),
		kpost(kubeQuotas, kquota("bad-7", `"hard":{"count/pods":"2500m"}`)),
		kpost(kubeQuotas, kquota("names", `"hard":{"example.com/gpu":"1","requests.example.com/gpu":"500m","hugepages-2Mi":"1Gi","count/widgets.example.com":"3","cpu":"0.5"}`)),
		kpost(kubeQuotas, kquota("bad-scopes", `"hard":{"cpu":"1"},"scopes":["BestEffort","NotBestEffort","Weird"]`)),
		kpost(kubeQuotas, kquota("bad-selector", `"hard":{"configmaps":"1"},"scopeSelector":{"matchExpressions":[{"scopeName":"Terminating","operator":"In","values":["x"]},`+
			`{"scopeName":"NotTerminating","operator":"Exists"},{"scopeName":"PriorityClass","operator":"In"},{"scopeName":"PriorityClass","operator":"Near"},{"scopeName":"Sometimes","operator":"DoesNotExist","values":["a"]}]}`)),
		kpost(kubeQuotas, kquota("scoped", `"hard":{"pods":"1"},"scopes":["NotBestEffort"]`)),
		kpatch(kubeQuotas+"/scoped", `{"spec":{"scopes":["NotTerminating"],"hard":{"pods":"2"}}}`),
		kpatch(kubeQuotas+"/scoped", `{"spec":{"hard":{"pods":"3","cpu":"1"}}}`),
		kpatch(kubeQuotas+"/scoped/status", kquotaStatus(`{"nonsense":"1"}`, `{"pods":"1500m"}`)),
		kpatch(kubeQuotas+"/scoped", `{"metadata":{"labels":{"bad key":"x"}}}`),
		kput(kubeQuotas+"/scoped/status", `{"metadata":{"name":"scoped","labels":{"via":"status"}},"spec":{"hard":{"pods":"9"}},"status":{"hard":{"pods":"3"}}}`),
		kget(kubeQuotas+"/scoped"),
		kdelete(kubeQuotas+"/scoped", ""),
	),
	kcase("ROB-2 LimitRange defaults and bounds (LimitRanger)",
		kpost(kubeLimitRanges, `{"metadata":{"name":"containers"},"spec":{"limits":[{"type":"Container","max":{"cpu":"1","memory":"1Gi"},"min":{"cpu":"50m"},"defaultRequest":{"cpu":"200m"},"maxLimitRequestRatio":{"cpu":"5"}},`+
			`{"type":"Pod","max":{"memory":"2560Mi"}},{"type":"PersistentVolumeClaim","min":{"storage":"1Gi"},"max":{"storage":"5Gi"}}]}}`),
		kget(kubeLimitRanges+"/containers"),
		kpost(kubeQuotaPods, kpod("defaulted", `"containers":[{"name":"a","image":"nginx"},{"name":"b","image":"nginx","resources":{"limits":{"cpu":"500m"}}}],"initContainers":[{"name":"i","image":"busybox"}]`)),
		kpost(kubeQuotaPods, kpod("outside", `"containers":[{"name":"a","image":"nginx","resources":{"requests":{"cpu":"10m"},"limits":{"cpu":"2","memory":"2Gi"}}}]`)),
		kpost(kubeQuotaPods, kpod("too-much", `"containers":[{"name":"a","image":"nginx"},{"name":"b","image":"nginx"},{"name":"c","image":"nginx"}]`)),
		kpost(kubeQuotaClaims, `{"metadata":{"name":"tiny"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"100Mi"}}}}`),
		kpost(kubeQuotaClaims, `{"metadata":{"name":"huge"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"10Gi"}}}}`),
		kpost(kubeLimitRanges, `{"metadata":{"name":"bad"},"spec":{"limits":[{"type":"Container","min":{"cpu":"2"},"max":{"cpu":"1"},"maxLimitRequestRatio":{"cpu":"500m"}},`+
			`{"type":"Container"},{"type":"Pod","default":{"cpu":"1"},"defaultRequest":{"cpu":"1"}},{"type":"PersistentVolumeClaim","default":{"storage":"1Gi"}},{"type":"Weird"},`+
			`{"type":"example.com/x","max":{"storage":"1Gi","bogus":"1"}}]}}`),
		kpost(kubeLimitRanges, `{"metadata":{"name":"bad-defaults"},"spec":{"limits":[{"type":"Container","min":{"memory":"1Gi"},"max":{"memory":"2Gi"},"default":{"memory":"512Mi"},"defaultRequest":{"memory":"3Gi"}}]}}`),
		kpost(kubeLimitRanges, `{"metadata":{"name":"bad-ratio"},"spec":{"limits":[{"type":"Pod","min":{"cpu":"1"},"max":{"cpu":"2"},"maxLimitRequestRatio":{"cpu":"3"}}]}}`),
		kpatch(kubeLimitRanges+"/containers", `{"metadata":{"labels":{"bad key":"x"}}}`),
		kdelete(kubeLimitRanges+"/containers", ""),
		kput(kubeLimitRanges+"/put", `{"metadata":{"name":"put"},"spec":{"limits":[{"type":"Container","max":{"cpu":"2"}}]}}`),
	),
}

// TestRecordQuotaKube writes quotaKubeFile from a real kube-apiserver (a
// fresh instance, as for TestRecordBuiltinsKube).
func TestRecordQuotaKube(t *testing.T) {
	recordKube(t, quotaKubeFile, "the requests of quotaCases in quota_cases_test.go", quotaCases)
}

// TestROB_2_ResourceQuotaAsKube: ResourceQuotas, LimitRanges and what kube's
// ResourceQuota and LimitRanger admission plugins do with the writes of their
// namespace answer as kube-apiserver's (without kube-controller-manager):
// the quota's status, the refusals in kube's words ("exceeded quota",
// "failed quota", "status unknown for quota"), what each write is charged
// (Pods with their containers' requests and limits, Services by type and
// ports, claims by class and storage, object counts, scopes, dry runs that
// charge nothing, a create refused as AlreadyExists still charged), the
// quotas' and LimitRanges' validation, LimitRanger's defaults and bounds.
func TestROB_2_ResourceQuotaAsKube(t *testing.T) {
	replayKube(t, newTestServer(t, testConfig{ServiceIPRange: "10.0.0.0/24"}), quotaKubeFile, quotaCases)
}
