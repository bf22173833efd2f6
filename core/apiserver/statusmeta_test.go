package apiserver

import "testing"

// The writes to the status subresource that carry metadata, whose answers
// kube-apiserver 1.32.13 gave are recorded in
// testdata/statusmeta-kube-1.32.13.json (TestRecordStatusMetadataKube writes
// it): most kinds' status strategies reset only the spec, so the labels and
// annotations written are kept (a Deployment's labels aside); FlowSchemas
// VolumeAttachments and ValidatingAdmissionPolicies keep none of the
// metadata written.

const statusMetaKubeFile = "testdata/statusmeta-kube-1.32.13.json"

const (
	kubeDefaultQuotas   = "/api/v1/namespaces/default/resourcequotas"
	kubeFlowSchemas     = "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas"
	kubeVolumeAttachs   = "/apis/storage.k8s.io/v1/volumeattachments"
	statusMetaNamespace = "/api/v1/namespaces/status-meta"
)

var statusMetaCases = []kubeCase{
	kcase("namespace status keeps the metadata written",
		kpost("/api/v1/namespaces", `{"metadata":{"name":"status-meta"}}`),
		kpatch(statusMetaNamespace+"/status", `{"metadata":{"annotations":{"patched":"yes"},"labels":{"l":"v"}},"status":{"conditions":[{"type":"StatusPatch","status":"True","reason":"E2E","message":"by a test"}]}}`),
		kpatch(statusMetaNamespace+"/status", `{"metadata":{"finalizers":["example.com/f"]},"spec":{"finalizers":[]}}`),
		kpatch(statusMetaNamespace+"/status", `{"metadata":{"finalizers":null}}`),
		kubeStep{"GET", statusMetaNamespace, ""},
	),
	kcase("cronjob status keeps the metadata written",
		kpost(kubeCronJobs, `{"metadata":{"name":"cj"},"spec":{"schedule":"@hourly","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never",`+kubeOneContainer+`}}}}}}`),
		kpatch(kubeCronJobs+"/cj/status", `{"metadata":{"annotations":{"patchedstatus":"true"}},"spec":{"schedule":"@daily"},"status":{"lastScheduleTime":"2024-01-01T00:00:00Z"}}`),
		kput(kubeCronJobs+"/cj/status", `{"metadata":{"name":"cj","labels":{"updated":"status"}},"spec":{"schedule":"@daily","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never",`+kubeOneContainer+`}}}}},"status":{"lastSuccessfulTime":"2024-01-01T00:01:00Z"}}`),
		kubeStep{"GET", kubeCronJobs + "/cj", ""},
	),
	kcase("ingress status keeps the metadata written",
		kpost(kubeIngresses, `{"metadata":{"name":"status-meta"},"spec":{"defaultBackend":`+kbackend("web")+`}}`),
		kpatch(kubeIngresses+"/status-meta/status", `{"metadata":{"annotations":{"patchedstatus":"true"}},"status":{"loadBalancer":{"ingress":[{"ip":"169.1.1.1"}]}}}`),
	),
	kcase("deployment status resets the labels written",
		kpost(kubeDeployments, `{"metadata":{"name":"status-meta","labels":{"app":"a"}},"spec":{`+kubeSelectA+`,"template":{"metadata":{"labels":`+kubeAppA+`},"spec":{`+kubeOneContainer+`}}}}`),
		kpatch(kubeDeployments+"/status-meta/status", `{"metadata":{"labels":{"app":"b"},"annotations":{"a":"kept"}},"status":{"observedGeneration":1}}`),
	),
	kcase("resourcequota status keeps the metadata written",
		kpost(kubeDefaultQuotas, `{"metadata":{"name":"status-meta"},"spec":{"hard":{"pods":"5"}}}`),
		kpatch(kubeDefaultQuotas+"/status-meta/status", `{"metadata":{"annotations":{"a":"kept"}},"spec":{"hard":{"pods":"9"}},"status":{"hard":{"pods":"5"},"used":{"pods":"1"}}}`),
	),
	kcase("flowschema status keeps none of the metadata written",
		kpost(kubeFlowSchemas, `{"metadata":{"name":"status-meta"},"spec":{"priorityLevelConfiguration":{"name":"global-default"},"matchingPrecedence":5000}}`),
		kpatch(kubeFlowSchemas+"/status-meta/status", `{"metadata":{"annotations":{"a":"dropped"},"labels":{"l":"dropped"}},"status":{"conditions":[{"type":"Dangling","status":"False"}]}}`),
	),
	kcase("volumeattachment status keeps none of the metadata written",
		kpost(kubeVolumeAttachs, `{"metadata":{"name":"status-meta"},"spec":{"attacher":"example.com","nodeName":"n1","source":{"persistentVolumeName":"pv"}}}`),
		kpatch(kubeVolumeAttachs+"/status-meta/status", `{"metadata":{"annotations":{"a":"dropped"}},"status":{"attached":true}}`),
	),
	kcase("validatingadmissionpolicy status keeps none of the metadata written",
		kpost(kubeVAPs, `{"metadata":{"name":"status-meta"},"spec":{`+quietPolicy+`,"validations":[{"expression":"true"}]}}`),
		kpatch(kubeVAPs+"/status-meta/status", `{"metadata":{"annotations":{"a":"dropped"},"labels":{"l":"dropped"},"finalizers":["example.com/dropped"]},"status":{"observedGeneration":1}}`),
	),
}

// TestRecordStatusMetadataKube writes statusMetaKubeFile from a real
// kube-apiserver (a fresh instance).
func TestRecordStatusMetadataKube(t *testing.T) {
	recordKube(t, statusMetaKubeFile, "the requests of statusMetaCases in statusmeta_test.go", statusMetaCases)
}

// TestK8S_URI_3_StatusWritesMetadataAsKube: a write to a status subresource
// keeps, resets or drops the metadata it carries as the kind's status
// strategy in kube does.
func TestK8S_URI_3_StatusWritesMetadataAsKube(t *testing.T) {
	replayKube(t, newTestServer(t, testConfig{}), statusMetaKubeFile, statusMetaCases)
}
