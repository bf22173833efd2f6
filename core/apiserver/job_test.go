package apiserver

import "testing"

// The requests to batch/v1 Jobs' status whose answers kube-apiserver 1.32.13
// gave are recorded in testdata/jobs-kube-1.32.13.json (TestRecordJobsKube
// writes it): a write to a Job's status changes the metadata it writes (the
// status strategy resets only the spec), as the conformance test "should
// apply changes to a job status" patches an annotation through it.

const (
	jobsKubeFile = "testdata/jobs-kube-1.32.13.json"
	kubeJobs     = "/apis/batch/v1/namespaces/default/jobs"
)

var jobCases = []kubeCase{
	kcase("job status writes its metadata, not its spec",
		kpost(kubeJobs, `{"metadata":{"name":"st"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`),
		kpatch(kubeJobs+"/st/status", `{"metadata":{"annotations":{"patchedstatus":"true"}},"spec":{"parallelism":5},`+
			`"status":{"conditions":[{"type":"CustomConditionType","status":"True","lastTransitionTime":"2026-03-01T09:00:00Z"}]}}`),
		kpatch(kubeJobs+"/st/status", `{"metadata":{"labels":{"more":"yes"},"annotations":{"patchedstatus":null}}}`),
		kubeStep{"GET", kubeJobs + "/st", ""},
	),
}

// TestRecordJobsKube writes jobsKubeFile from a real kube-apiserver (a
// fresh instance).
func TestRecordJobsKube(t *testing.T) {
	recordKube(t, jobsKubeFile, "the requests of jobCases in job_test.go", jobCases)
}

// TestK8S_URI_3_JobStatusAsKube: a write to a Job's status keeps the
// metadata it writes and not the spec, as kube's does.
func TestK8S_URI_3_JobStatusAsKube(t *testing.T) {
	replayKube(t, newTestServer(t, testConfig{}), jobsKubeFile, jobCases)
}
