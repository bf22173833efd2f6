// Package job is kube-controller-manager's Job controller as an API client of
// the core (system:serviceaccount:kube-system:job-controller): it runs a
// Job's Pods (parallelism at a time, until completions have succeeded),
// replaces the ones that fail until backoffLimit is passed, deletes the
// running ones of a suspended or finished Job, and reports active, ready,
// succeeded, failed, startTime, completionTime and the SuccessCriteriaMet and
// Complete (or FailureTarget and Failed) conditions, with kube's events.
// (kube tracks a Job's Pods with a finalizer; the sandbox counts them from
// the Pods it sees.)
package job

import (
	"context"
	"kubeplay/core/object"
	"slices"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/web"
)

type (
	job = controllers.Job
	pod = controllers.Pod
)

// Controller is the Job controller.
type Controller struct {
	controllers.Base
	jobs *client.TypedInformer[*job]
	pods *client.TypedInformer[*pod]
}

// New is the Job controller, acting through h.
func New(h web.Handler, clk clock.Clock) *Controller {
	jc := &Controller{Base: controllers.NewBase(h, clk, "job-controller", "job-controller")}
	jc.jobs = controllers.Owners[job](jc.Base, "/apis/batch/v1/jobs")
	jc.pods = controllers.Owned[pod](jc.Base, "/api/v1/pods", jc.jobs)
	return jc
}

// Run works until ctx is done.
func (jc *Controller) Run(ctx context.Context) {
	controllers.Run(ctx, jc.Queue, jc.sync, jc.jobs, jc.pods)
}

func (jc *Controller) sync(ctx context.Context, key string) error {
	j, ok := jc.jobs.Get(key)
	if !ok {
		jc.Expect.Forget(key)
		return nil
	}
	if !jc.Expect.Satisfied(key) {
		return nil
	}
	now := object.Timestamp(jc.Clock.Now())
	status := j.Status
	status.Conditions = slices.Clone(j.Status.Conditions)
	finished := controllers.FindCondition(status.Conditions, "Complete") != nil || controllers.FindCondition(status.Conditions, "Failed") != nil
	var active []*pod
	var succeeded, failed, ready, terminating int64
	for _, p := range jc.pods.ByIndex("controller", j.Metadata.UID) {
		switch {
		case p.Status.Phase == "Succeeded":
			succeeded++
		case p.Status.Phase == "Failed":
			failed++
		case p.Metadata.DeletionTimestamp != "":
			terminating++
		default:
			active = append(active, p)
			if p.Ready() {
				ready++
			}
		}
	}
	status.Succeeded, status.Failed = max(status.Succeeded, succeeded), max(status.Failed, failed)
	completions := controllers.Replicas(j.Spec.Completions)
	ref := controllers.Ref(&j.Metadata, "batch/v1", "Job")
	if !finished {
		if status.StartTime == "" && !j.Spec.Suspend {
			status.StartTime = now
		}
		var done *controllers.Condition
		switch {
		case status.Failed > controllers.Replicas(j.Spec.BackoffLimit) && j.Spec.BackoffLimit != nil:
			done = &controllers.Condition{Type: "Failed", Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit"}
		case j.Spec.Completions != nil && status.Succeeded >= completions || j.Spec.Completions == nil && status.Succeeded > 0 && len(active) == 0:
			done = &controllers.Condition{Type: "Complete", Reason: "CompletionsReached", Message: "Reached expected number of succeeded pods"}
		}
		want := int64(0)
		if done == nil && !j.Spec.Suspend {
			want = controllers.Replicas(j.Spec.Parallelism)
			if j.Spec.Completions != nil {
				want = min(want, completions-status.Succeeded)
			}
		}
		if err := jc.manage(ctx, key, j, active, want, ref); err != nil {
			return err
		}
		switch {
		case done != nil:
			interim := "SuccessCriteriaMet"
			if done.Type == "Failed" {
				interim = "FailureTarget"
			}
			for _, typ := range []string{interim, done.Type} {
				status.Conditions = append(status.Conditions, controllers.Condition{Type: typ, Status: "True", LastProbeTime: jsonTime(now),
					LastTransitionTime: now, Reason: done.Reason, Message: done.Message})
			}
			if done.Type == "Complete" {
				status.CompletionTime = now
				jc.Events.Eventf(ctx, ref, controllers.Normal, "Completed", "Job completed")
			} else {
				jc.Events.Eventf(ctx, ref, controllers.Warning, done.Reason, "%s", done.Message)
			}
			active, ready = nil, 0
		case j.Spec.Suspend && controllers.FindCondition(status.Conditions, "Suspended") == nil:
			status.Conditions = append(status.Conditions, controllers.Condition{Type: "Suspended", Status: "True", LastProbeTime: jsonTime(now),
				LastTransitionTime: now, Reason: "JobSuspended", Message: "Job suspended"})
			jc.Events.Eventf(ctx, ref, controllers.Normal, "Suspended", "Job suspended")
		}
		status.Active = int64(len(active))
		if len(active) > int(want) {
			status.Active = want
		}
	}
	zero := int64(0)
	status.Ready, status.Terminating, status.UncountedTerminatedPods = &ready, &terminating, &struct{}{}
	if finished {
		status.Ready, status.Active = &zero, 0
	}
	if controllers.MustJSON(status) == controllers.MustJSON(j.Status) {
		return nil
	}
	next := *j
	next.Status = status
	data, err := controllers.Send(ctx, jc.C, web.MethodPut, "/apis/batch/v1/namespaces/"+j.Metadata.Namespace+"/jobs/"+j.Metadata.Name+"/status", &next)
	if err == nil {
		jc.Expect.Written(key, jc.jobs, controllers.Version(data))
	}
	if client.IsNotFound(err) {
		return nil
	}
	return err
}

func jsonTime(t string) []byte { return []byte(`"` + t + `"`) }

// manage creates or deletes Pods until want of them are active.
func (jc *Controller) manage(ctx context.Context, key string, j *job, active []*pod, want int64, ref controllers.Reference) error {
	ns := j.Metadata.Namespace
	for n := int64(len(active)); n < want; n++ {
		created, err := jc.C.Create(ctx, "/api/v1/namespaces/"+ns+"/pods",
			controllers.PodFromTemplate(j.Spec.Template, j.Metadata.Name+"-", controllers.OwnerRef(&j.Metadata, "batch/v1", "Job")))
		if err != nil {
			jc.Events.Eventf(ctx, ref, controllers.Warning, "FailedCreate", "Error creating: %s", controllers.Message(err))
			return err
		}
		meta := created["metadata"].(map[string]any)
		jc.Expect.Written(key, jc.pods, meta["resourceVersion"].(string))
		jc.Events.Eventf(ctx, ref, controllers.Normal, "SuccessfulCreate", "Created pod: %s", meta["name"])
	}
	for _, p := range active[min(int(want), len(active)):] {
		if _, err := jc.C.Delete(ctx, "/api/v1/namespaces/"+ns+"/pods/"+p.Metadata.Name); err != nil && !client.IsNotFound(err) {
			return err
		}
		controllers.Deleted(jc.Expect, key, jc.pods, p)
		jc.Events.Eventf(ctx, ref, controllers.Normal, "SuccessfulDelete", "Deleted pod: %s", p.Metadata.Name)
	}
	return nil
}
