package apiserver

import "testing"

// lifecycleKubeFile holds kube-apiserver's answers to the deletion cases
// below (TestRecordLifecycleKube writes it). kube's recorded instance runs
// no controllers: what it answers is the API server's part of a deletion
// (finalizers, grace periods, preconditions, the garbage collector's
// finalizers), and the cases read nothing that kubeplay's garbage collector
// changes afterwards.
const lifecycleKubeFile = "testdata/lifecycle-kube-1.32.13.json"

const (
	kubeLifecycleNS = "/api/v1/namespaces/lifecycle"
	lcConfigMaps    = kubeLifecycleNS + "/configmaps"
	lcPods          = kubeLifecycleNS + "/pods"
	lcDeployments   = "/apis/apps/v1/namespaces/lifecycle/deployments"
)

func kdelete(path, body string) kubeStep { return kubeStep{"DELETE", path, body} }
func kget(path string) kubeStep          { return kubeStep{"GET", path, ""} }

// kcm is a ConfigMap named name with metadata members meta.
func kcm(name, meta string) string {
	if meta != "" {
		meta = "," + meta
	}
	return `{"metadata":{"name":"` + name + `"` + meta + `},"data":{"k":"v"}}`
}

// deletionCases: finalizers, preconditions, grace periods, propagation
// policies, options in the body or the query, deletecollection.
var deletionCases = []kubeCase{
	kcase("namespace", kpost("/api/v1/namespaces", `{"metadata":{"name":"lifecycle"}}`)),
	kcase("K8S-DEL-1 finalizers hold an object",
		kpost(lcConfigMaps, kcm("held", `"finalizers":["example.com/a","example.com/b"]`)),
		kdelete(lcConfigMaps+"/held", ""),
		kdelete(lcConfigMaps+"/held", ""),
		kget(lcConfigMaps+"/held"),
		kpatch(lcConfigMaps+"/held", `{"metadata":{"finalizers":["example.com/a","example.com/b","example.com/c"]}}`),
		kpatch(lcConfigMaps+"/held", `{"metadata":{"finalizers":["example.com/b"]}}`),
		kget(lcConfigMaps+"/held"),
		kpatch(lcConfigMaps+"/held", `{"metadata":{"finalizers":null}}`),
		kget(lcConfigMaps+"/held"),
		kpost(lcConfigMaps, kcm("held", "")),
	),
	kcase("K8S-DEL-1 finalizer names",
		kpost(lcConfigMaps, kcm("badfinalizer", `"finalizers":["not a name","example.com/ok"]`)),
		kpost(lcConfigMaps, kcm("bothgc", `"finalizers":["orphan","foregroundDeletion"]`)),
		kpost(lcConfigMaps, kcm("gcfinalizer", `"finalizers":["orphan"]`)),
		kdelete(lcConfigMaps+"/gcfinalizer", `{"propagationPolicy":"Background"}`),
	),
	kcase("K8S-DEL-2 preconditions",
		kpost(lcConfigMaps, kcm("pre", "")),
		kdelete(lcConfigMaps+"/pre", `{"preconditions":{"uid":"not-the-uid"}}`),
		kdelete(lcConfigMaps+"/pre", `{"preconditions":{"resourceVersion":"1"}}`),
		kdelete(lcConfigMaps+"/pre", `{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}`),
		kget(lcConfigMaps+"/pre"),
		kdelete(lcConfigMaps+"/pre?gracePeriodSeconds=30", ""),
		kget(lcConfigMaps+"/pre"),
	),
	kcase("K8S-DEL-2 options",
		kpost(lcConfigMaps, kcm("opts", "")),
		kdelete(lcConfigMaps+"/opts", `{"propagationPolicy":"Sideways"}`),
		kdelete(lcConfigMaps+"/opts", `{"propagationPolicy":"Orphan","orphanDependents":true}`),
		kdelete(lcConfigMaps+"/opts?dryRun=Some", ""),
		kdelete(lcConfigMaps+"/opts", `{"dryRun":["All","Some"]}`),
		kdelete(lcConfigMaps+"/opts?gracePeriodSeconds=soon", ""),
		// (kube answers a body it cannot decode, {"gracePeriodSeconds":"soon"},
		// with a 500; kubeplay with a 400.)
		kdelete(lcConfigMaps+"/opts", `{"gracePeriodSeconds":-5}`),
	),
	kcase("K8S-DEL-2 propagation policies",
		kpost(lcConfigMaps, kcm("orphaned", "")),
		kdelete(lcConfigMaps+"/orphaned", `{"propagationPolicy":"Orphan"}`),
		kpost(lcConfigMaps, kcm("foreground", `"finalizers":["example.com/keep"]`)),
		kdelete(lcConfigMaps+"/foreground", `{"propagationPolicy":"Foreground"}`),
		kdelete(lcConfigMaps+"/foreground", `{"propagationPolicy":"Orphan"}`),
		kpost(lcConfigMaps, kcm("cascade", "")),
		kdelete(lcConfigMaps+"/cascade?orphanDependents=false", ""),
		kpost(lcConfigMaps, kcm("background", "")),
		kdelete(lcConfigMaps+"/background", `{"propagationPolicy":"Background"}`),
		kpost(lcConfigMaps, kcm("orphanquery", "")),
		kdelete(lcConfigMaps+"/orphanquery?propagationPolicy=Orphan", ""),
		kpost(lcDeployments, kworkload("gone", kubeSelectA, kubeAppA, kubeOneContainer)),
		kdelete(lcDeployments+"/gone", ""),
	),
	kcase("K8S-DEL-2 grace periods",
		kpost(lcPods, `{"metadata":{"name":"running"},"spec":{"nodeName":"node-1",`+kubeOneContainer+`}}`),
		kdelete(lcPods+"/running", ""),
		kdelete(lcPods+"/running", `{"gracePeriodSeconds":60}`),
		kdelete(lcPods+"/running", `{"gracePeriodSeconds":10}`),
		kget(lcPods+"/running"),
		kdelete(lcPods+"/running?gracePeriodSeconds=0", ""),
		kget(lcPods+"/running"),
		kpost(lcPods, `{"metadata":{"name":"unscheduled"},"spec":{`+kubeOneContainer+`}}`),
		kdelete(lcPods+"/unscheduled", ""),
		kpost(lcPods, `{"metadata":{"name":"short"},"spec":{"nodeName":"node-1","terminationGracePeriodSeconds":5,`+kubeOneContainer+`}}`),
		kdelete(lcPods+"/short", ""),
		kpost(lcPods, `{"metadata":{"name":"finalized","finalizers":["example.com/x"]},"spec":{"nodeName":"node-1",`+kubeOneContainer+`}}`),
		kdelete(lcPods+"/finalized?gracePeriodSeconds=0", ""),
		kget(lcPods+"/finalized"),
		kpatch(lcPods+"/finalized", `{"metadata":{"finalizers":null}}`),
		kget(lcPods+"/finalized"),
	),
	kcase("K8S-DEL-2 deletecollection",
		kpost(lcConfigMaps, kcm("red-1", `"labels":{"color":"red"}`)),
		kpost(lcConfigMaps, kcm("red-2", `"labels":{"color":"red"},"finalizers":["example.com/x"]`)),
		kpost(lcConfigMaps, kcm("blue-1", `"labels":{"color":"blue"}`)),
		kdelete(lcConfigMaps+"?labelSelector=color%3Dred", ""),
		kget(lcConfigMaps+"?labelSelector=color"),
		kdelete(lcConfigMaps+"?fieldSelector=metadata.name%3Dblue-1&dryRun=All", ""),
		kget(lcConfigMaps+"?labelSelector=color"),
		kpatch(lcConfigMaps+"/red-2", `{"metadata":{"finalizers":null}}`),
	),
}

// TestRecordLifecycleKube writes lifecycleKubeFile from a real
// kube-apiserver (a fresh instance, as for TestRecordBuiltinsKube).
func TestRecordLifecycleKube(t *testing.T) {
	recordKube(t, lifecycleKubeFile, "the requests of deletionCases in lifecycle_cases_test.go", deletionCases)
}

// TestK8S_DEL_1_DEL_2_AsKube: deletion answers as kube
// gives them (lifecycleKubeFile), every status, message and object.
func TestK8S_DEL_1_DEL_2_AsKube(t *testing.T) {
	replayKube(t, newTestServer(t, testConfig{}), lifecycleKubeFile, deletionCases)
}
