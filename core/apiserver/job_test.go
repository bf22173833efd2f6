package apiserver

import "testing"

// The requests to batch/v1 Jobs' and CronJobs' status whose answers
// kube-apiserver 1.32.13 gave are recorded in testdata/jobs-kube-1.32.13.json
// (TestRecordJobsKube writes it): a write to their status changes the
// metadata it writes (their status strategies reset only the spec), as the
// conformance tests "should apply changes to a job status" and "should
// support CronJob API operations" patch an annotation through it.

const (
	jobsKubeFile = "testdata/jobs-kube-1.32.13.json"
	kubeJobs     = "/apis/batch/v1/namespaces/default/jobs"
	kubeCronJobs = "/apis/batch/v1/namespaces/default/cronjobs"
)

var jobCases = []kubeCase{
	kcase("job status writes its metadata, not its spec",
		kpost(kubeJobs, `{"metadata":{"name":"st"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`),
		kpatch(kubeJobs+"/st/status", `{"metadata":{"annotations":{"patchedstatus":"true"}},"spec":{"parallelism":5},`+
			`"status":{"conditions":[{"type":"CustomConditionType","status":"True","lastTransitionTime":"2026-03-01T09:00:00Z"}]}}`),
		kpatch(kubeJobs+"/st/status", `{"metadata":{"labels":{"more":"yes"},"annotations":{"patchedstatus":null}}}`),
		kubeStep{"GET", kubeJobs + "/st", ""},
	),
	kcase("cronjob status writes its metadata, not its spec",
		kpost(kubeCronJobs, `{"metadata":{"name":"cst"},"spec":{"schedule":"*/1 * * * ?","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure","containers":[{"name":"c","image":"busybox"}]}}}}}}`),
		kpatch(kubeCronJobs+"/cst/status", `{"metadata":{"annotations":{"patchedstatus":"true"}},"spec":{"suspend":true},"status":{"lastScheduleTime":"2026-03-01T09:00:00Z"}}`),
		kubeStep{"GET", kubeCronJobs + "/cst", ""},
	),
}

// TestRecordJobsKube writes jobsKubeFile from a real kube-apiserver (a
// fresh instance).
func TestRecordJobsKube(t *testing.T) {
	recordKube(t, jobsKubeFile, "the requests of jobCases in job_test.go", jobCases)
}

// TestK8S_URI_3_JobStatusAsKube: a write to a Job's or a CronJob's status
// keeps the metadata it writes and not the spec, as kube's does.
func TestK8S_URI_3_JobStatusAsKube(t *testing.T) {
	replayKube(t, newTestServer(t, testConfig{}), jobsKubeFile, jobCases)
}
