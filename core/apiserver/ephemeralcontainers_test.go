package apiserver

import "testing"

// A Pod's ephemeralcontainers subresource (kubectl debug's), as
// kube-apiserver 1.32.13 answered it (recorded in ecKubeFile by
// TestRecordEphemeralContainersKube): it reads the Pod; a write adds
// ephemeral containers and changes nothing else of the Pod (its metadata
// and managedFields included); kube's 422s for a name taken by another
// container, a target that is no container, the fields an ephemeral
// container may not have, a removal, a change, a static Pod's mirror; its
// 404 and 405s. (Merge patches: kubectl debug's strategic merge patch is
// e2e's.)

const (
	ecKubeFile = "testdata/ephemeralcontainers-kube-1.32.13.json"
	kubeEC     = kubePods + "/ec1/ephemeralcontainers"
	ecDebugger = `{"name":"debugger","image":"busybox","targetContainerName":"app","stdin":true,"tty":true}`
)

// ecPatch is a merge patch setting the Pod's ephemeral containers.
func ecPatch(containers string) kubeStep {
	return kpatch(kubeEC, `{"spec":{"ephemeralContainers":[`+containers+`]}}`)
}

var ecCases = []kubeCase{
	kcase("ephemeral containers added and read",
		kpost(kubePods, kpod("ec1", `"initContainers":[{"name":"init","image":"busybox"}],"containers":[{"name":"app","image":"nginx"}]`)),
		kubeStep{"GET", kubeEC, ""},
		ecPatch(ecDebugger),
		kubeStep{"GET", kubePods + "/ec1", ""},
		kpatch(kubeEC, `{"metadata":{"labels":{"x":"y"}},"spec":{"activeDeadlineSeconds":5,"containers":[{"name":"app","image":"nginx:2"}]}}`),
		kput(kubeEC, `{"metadata":{"name":"ec1"},"spec":{"containers":[{"name":"other","image":"redis"}],"ephemeralContainers":[`+ecDebugger+`,{"name":"d2","image":"busybox","command":["sleep","1d"]}]}}`),
		kubeStep{"GET", kubePods + "/ec1", ""},
	),
	kcase("ephemeral containers refused",
		ecPatch(ecDebugger+`,{"name":"app","image":"busybox"}`),
		ecPatch(ecDebugger+`,{"name":"init","image":"busybox"},{"name":"x","image":"busybox"},{"name":"x","image":"busybox"}`),
		ecPatch(ecDebugger+`,{"name":"d3","image":"busybox","targetContainerName":"nope"},{"name":"d4","image":"busybox","targetContainerName":"debugger"}`),
		ecPatch(ecDebugger+`,{"name":"d5","image":" busybox","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"1"}},"readinessProbe":{"exec":{"command":["true"]}},"livenessProbe":{"exec":{"command":["true"]}},"startupProbe":{"exec":{"command":["true"]}},"lifecycle":{"preStop":{"exec":{"command":["x"]}}},"restartPolicy":"Always","volumeMounts":[{"name":"v","mountPath":"/x","subPath":"a","subPathExpr":"b"}]}`),
		ecPatch(`{"name":"D_6"}`),
		kpatch(kubeEC, `{"spec":{"ephemeralContainers":null}}`),
		ecPatch(`{"name":"debugger","image":"busybox:2","targetContainerName":"app","stdin":true,"tty":true}`),
		kpatch(kubePods+"/ec1", `{"spec":{"ephemeralContainers":null}}`),
		kpost(kubePods, kpod("ec-create", `"containers":[{"name":"app","image":"nginx"}],"ephemeralContainers":[{"name":"d","image":"busybox","targetContainerName":"nope"}]`)),
		kubeStep{"GET", kubePods + "/nope/ephemeralcontainers", ""},
		kpatch(kubePods+"/nope/ephemeralcontainers", `{"spec":{"ephemeralContainers":[`+ecDebugger+`]}}`),
		kpost(kubeEC, `{"metadata":{"name":"ec1"}}`),
		kubeStep{"DELETE", kubeEC, ""},
	),
	kcase("a static pod's mirror takes none",
		kpost(kubePods, `{"metadata":{"name":"ec-mirror","annotations":{"kubernetes.io/config.mirror":"abc"}},"spec":{"nodeName":"n1","containers":[{"name":"app","image":"nginx"}]}}`),
		kpatch(kubePods+"/ec-mirror/ephemeralcontainers", `{"spec":{"ephemeralContainers":[{"name":"d","image":"busybox"}]}}`),
	),
}

// TestRecordEphemeralContainersKube writes ecKubeFile from a real
// kube-apiserver (a fresh instance, NO_SA_ADMISSION=1).
func TestRecordEphemeralContainersKube(t *testing.T) {
	recordKube(t, ecKubeFile, "the requests of ecCases in ephemeralcontainers_test.go", ecCases)
}

// TestCONF_1_EphemeralContainersAsKube: the ephemeralcontainers subresource
// answers as kube's does.
func TestCONF_1_EphemeralContainersAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	replayKube(t, s, ecKubeFile, ecCases)
}
