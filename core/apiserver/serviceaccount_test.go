package apiserver

import (
	"regexp"
	"testing"

	"kubeplay/core/object"
	"kubeplay/internal/refapi"
)

// The answers kube-apiserver 1.32.13 gives with its ServiceAccount admission
// on are recorded in testdata/serviceaccount-admission-kube-1.32.13.json
// (TestRecordServiceAccountAdmissionKube writes it; the kit started without
// NO_SA_ADMISSION): each case makes the accounts it needs, as no
// controller runs on either side.

const (
	saAdmissionKubeFile = "testdata/serviceaccount-admission-kube-1.32.13.json"
	kubeServiceAccounts = "/api/v1/namespaces/default/serviceaccounts"
	kubeDefaultAccount  = `{"metadata":{"name":"default"}}`
)

var saAdmissionCases = []kubeCase{
	kcase("sa default account mounted",
		kpost(kubeServiceAccounts, kubeDefaultAccount),
		kpost(kubePods, kpod("sa-p1", kubeOneContainer)),
		kubeStep{"GET", kubePods + "/sa-p1", ""},
		kpatch(kubePods+"/sa-p1", `{"metadata":{"labels":{"a":"b"}}}`),
		kpost(kubePods, kpod("sa-p2", `"serviceAccountName":"default",`+kubeOneContainer)),
		kpost(kubePods, kpod("sa-p3", `"serviceAccount":"default",`+kubeOneContainer)),
	),
	kcase("sa missing account",
		kpost(kubePods, kpod("sa-nope", `"serviceAccountName":"nope",`+kubeOneContainer)),
		kpost(kubePods, `{"metadata":{"generateName":"sa-gen-"},"spec":{"serviceAccountName":"nope",`+kubeOneContainer+`}}`),
		kpost(kubePods, kpod("sa-nope-quiet", `"serviceAccountName":"nope","automountServiceAccountToken":false,`+kubeOneContainer)),
	),
	kcase("sa missing default account",
		kpost("/api/v1/namespaces", `{"metadata":{"name":"sa-empty"}}`),
		kpost("/api/v1/namespaces/sa-empty/pods", kpod("sa-p", kubeOneContainer)),
	),
	kcase("sa opting out",
		kpost(kubeServiceAccounts, kubeDefaultAccount),
		kpost(kubeServiceAccounts, `{"metadata":{"name":"quiet"},"automountServiceAccountToken":false}`),
		kpost(kubePods, kpod("sa-quiet", `"serviceAccountName":"quiet",`+kubeOneContainer)),
		kpost(kubePods, kpod("sa-quiet-on", `"serviceAccountName":"quiet","automountServiceAccountToken":true,`+kubeOneContainer)),
		kpost(kubePods, kpod("sa-off", `"automountServiceAccountToken":false,`+kubeOneContainer)),
	),
	kcase("sa mounts in every container",
		kpost(kubeServiceAccounts, kubeDefaultAccount),
		kpost(kubePods, kpod("sa-many", `"initContainers":[{"name":"i1","image":"busybox"},{"name":"i2","image":"busybox","volumeMounts":[{"name":"own","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}],`+
			`"containers":[{"name":"c1","image":"nginx"},{"name":"c2","image":"nginx","volumeMounts":[{"name":"own","mountPath":"/data"}]}],"volumes":[{"name":"own","emptyDir":{}}]`)),
		kpost(kubePods, kpod("sa-named", `"containers":[{"name":"c","image":"nginx"}],"volumes":[{"name":"kube-api-access-mine1","emptyDir":{}}]`)),
		kpost(kubePods, kpod("sa-mounted", `"containers":[{"name":"c","image":"nginx","volumeMounts":[{"name":"own","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}],"volumes":[{"name":"own","emptyDir":{}}]`)),
		kpost(kubePods, kpod("sa-taken", `"containers":[{"name":"c","image":"nginx","volumeMounts":[{"name":"x","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}]`)),
	),
	kcase("sa image pull secrets",
		kpost(kubeServiceAccounts, `{"metadata":{"name":"puller"},"imagePullSecrets":[{"name":"reg1"},{"name":"reg2"}]}`),
		kpost(kubePods, kpod("sa-pulls", `"serviceAccountName":"puller",`+kubeOneContainer)),
		kpost(kubePods, kpod("sa-own-pulls", `"serviceAccountName":"puller","imagePullSecrets":[{"name":"mine"}],`+kubeOneContainer)),
	),
	kcase("sa mountable secrets enforced",
		kpost(kubeServiceAccounts, `{"metadata":{"name":"strict","annotations":{"kubernetes.io/enforce-mountable-secrets":"true"}},"secrets":[{"name":"ok"}],"imagePullSecrets":[{"name":"reg"}]}`),
		kpost(kubePods, kpod("sa-ok", `"serviceAccountName":"strict","imagePullSecrets":[{"name":"reg"}],"containers":[{"name":"c","image":"nginx","env":[{"name":"E","valueFrom":{"secretKeyRef":{"name":"ok","key":"k"}}}]}],"volumes":[{"name":"s","secret":{"secretName":"ok"}}]`)),
		kpost(kubePods, kpod("sa-volume", `"serviceAccountName":"strict","containers":[{"name":"c","image":"nginx"}],"volumes":[{"name":"s","secret":{"secretName":"other"}}]`)),
		kpost(kubePods, kpod("sa-env", `"serviceAccountName":"strict","initContainers":[{"name":"i","image":"busybox","env":[{"name":"E","valueFrom":{"secretKeyRef":{"name":"other","key":"k"}}}]}],`+kubeOneContainer)),
		kpost(kubePods, kpod("sa-envfrom", `"serviceAccountName":"strict","containers":[{"name":"c","image":"nginx","envFrom":[{"secretRef":{"name":"other"}}]}]`)),
		kpost(kubePods, kpod("sa-pull", `"serviceAccountName":"strict","imagePullSecrets":[{"name":"reg"},{"name":"other"}],`+kubeOneContainer)),
	),
	kcase("admission refusals name a generated pod by its prefix",
		kpost(kubePods, `{"metadata":{"generateName":"gen-"},"spec":{"priorityClassName":"gold",`+kubeOneContainer+`}}`),
		kpost(kubePods, `{"metadata":{"generateName":"gen-"},"spec":{"runtimeClassName":"nope",`+kubeOneContainer+`}}`),
	),
	kcase("sa mirror pods",
		kpost(kubePods, `{"metadata":{"name":"mirror-ok","annotations":{"kubernetes.io/config.mirror":"x"}},"spec":{"nodeName":"n1",`+kubeOneContainer+`}}`),
		kpost(kubePods, `{"metadata":{"name":"mirror-nonode","annotations":{"kubernetes.io/config.mirror":"x"}},"spec":{`+kubeOneContainer+`}}`),
		kpost(kubePods, `{"metadata":{"name":"mirror-sa","annotations":{"kubernetes.io/config.mirror":"x"}},"spec":{"serviceAccountName":"default",`+kubeOneContainer+`}}`),
		kpost(kubePods, `{"metadata":{"name":"mirror-secret","annotations":{"kubernetes.io/config.mirror":"x"}},"spec":{"containers":[{"name":"c","image":"nginx"}],"volumes":[{"name":"s","secret":{"secretName":"x"}}]}}`),
		kpost(kubePods, `{"metadata":{"name":"mirror-token","annotations":{"kubernetes.io/config.mirror":"x"}},"spec":{"containers":[{"name":"c","image":"nginx"}],"volumes":[{"name":"t","projected":{"sources":[{"serviceAccountToken":{"path":"t"}}]}}]}}`),
	),
}

// TestRecordServiceAccountAdmissionKube writes saAdmissionKubeFile from a
// fresh kube-apiserver with its ServiceAccount admission on.
func TestRecordServiceAccountAdmissionKube(t *testing.T) {
	kube := refapi.Connect(t)
	var ids []string
	var answers [][]kubeAnswer
	for _, c := range saAdmissionCases {
		var got []kubeAnswer
		for _, s := range c.steps {
			got = append(got, askKube(t, kube, s, nil))
		}
		ids, answers = append(ids, c.id), append(answers, got)
	}
	writeKubeAnswers(t, saAdmissionKubeFile, "Answers of kube-apiserver v1.32.13 (the refapi kit: etcd 3.5.16, --service-cluster-ip-range=10.0.0.0/24, the ServiceAccount admission plugin on, no kube-controller-manager) to the requests of saAdmissionCases in serviceaccount_test.go, each case's steps sent in order (bodies as JSON, PATCH as a JSON merge patch) to a fresh instance; recorded by "+t.Name()+".", ids, answers)
}

// TestK8S_URI_3_ServiceAccountAdmissionAsKube: with kube's ServiceAccount
// admission on, a new Pod runs as its account or `default`, is refused as
// kube refuses it when that account does not exist (the default one
// awaited first), mounts the projected kube-api-access volume in every
// container and init container unless it or its account opts out, takes
// its account's image pull secrets, keeps to the Secrets an account
// enforcing them lists, and a mirror Pod names no account, Secret or token;
// the mutating plugins' refusals name a Pod to be named by its generateName.
func TestK8S_URI_3_ServiceAccountAdmissionAsKube(t *testing.T) {
	replayKube(t, newTestServer(t, testConfig{ServiceIPRange: "10.0.0.0/24", ServiceAccountAdmission: true}), saAdmissionKubeFile, saAdmissionCases)
}

// tokenVolumeName is the token volume's name ServiceAccount admission
// generates, its random characters differing between servers.
var tokenVolumeName = regexp.MustCompile(`^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$`)

// nameTokenVolumes writes the generated token volume's name in a Pod's
// volumes and mounts as kube-api-access-XXXXX.
func nameTokenVolumes(pod any) {
	spec, _ := object.Path(pod, "spec").(map[string]any)
	rename := func(m map[string]any) {
		if n, _ := m["name"].(string); tokenVolumeName.MatchString(n) {
			m["name"] = "kube-api-access-XXXXX"
		}
	}
	for _, v := range object.Objects(spec, "volumes") {
		rename(v)
	}
	for _, list := range []string{"initContainers", "containers"} {
		for _, c := range object.Objects(spec, list) {
			for _, m := range object.Objects(c, "volumeMounts") {
				rename(m)
			}
		}
	}
}
