// Package cronjob is kube-controller-manager's CronJob controller as an API
// client of the core (system:serviceaccount:kube-system:cronjob-controller),
// on the sandbox's clock: at each time its schedule names (in its timeZone)
// a CronJob makes a Job of its jobTemplate, named after it and the minute
// (hello-29400000), unless suspended or, by its concurrencyPolicy, forbidden
// by a Job still running (Forbid) or replacing it (Replace); it follows its
// Jobs to completion (active, lastScheduleTime, lastSuccessfulTime) and keeps
// successfulJobsHistoryLimit and failedJobsHistoryLimit of the finished
// ones. Between schedules it holds one timer, for the next.
package cronjob

import (
	"cmp"
	"context"
	"encoding/json"
	"kubeplay/core/object"
	"slices"
	"strconv"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/web"
)

type (
	cronJob = controllers.CronJob
	job     = controllers.Job
)

// scheduledAnnotation is the time a CronJob's Job was scheduled for.
const scheduledAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp"

// Controller is the CronJob controller.
type Controller struct {
	controllers.Base
	crons *client.TypedInformer[*cronJob]
	jobs  *client.TypedInformer[*job]
}

// New is the CronJob controller, acting through h.
func New(h web.Handler, clk clock.Clock) *Controller {
	cc := &Controller{Base: controllers.NewBase(h, clk, "cronjob-controller", "cronjob-controller")}
	cc.crons = controllers.Owners[cronJob](cc.Base, "/apis/batch/v1/cronjobs")
	cc.jobs = controllers.Owned[job](cc.Base, "/apis/batch/v1/jobs", cc.crons)
	return cc
}

// Run works until ctx is done.
func (cc *Controller) Run(ctx context.Context) {
	controllers.Run(ctx, cc.Queue, cc.sync, cc.crons, cc.jobs)
}

func (cc *Controller) sync(ctx context.Context, key string) error {
	cj, ok := cc.crons.Get(key)
	if !ok {
		cc.Expect.Forget(key)
		return nil
	}
	if !cc.Expect.Satisfied(key) || cj.Metadata.DeletionTimestamp != "" {
		return nil
	}
	ref := controllers.Ref(&cj.Metadata, "batch/v1", "CronJob")
	status := cj.Status
	jobs := cc.jobs.ByIndex("controller", cj.Metadata.UID)
	slices.SortFunc(jobs, func(a, b *job) int { return cmp.Compare(a.Metadata.CreationTimestamp, b.Metadata.CreationTimestamp) })
	// Follow the Jobs: finished ones leave active.
	status.Active = nil
	var succeeded, failed []*job
	for _, j := range jobs {
		switch {
		case controllers.FindCondition(j.Status.Conditions, "Complete") != nil:
			succeeded = append(succeeded, j)
			if j.Status.CompletionTime > status.LastSuccessfulTime {
				status.LastSuccessfulTime = j.Status.CompletionTime
			}
		case controllers.FindCondition(j.Status.Conditions, "Failed") != nil:
			failed = append(failed, j)
		default:
			status.Active = append(status.Active, controllers.Ref(&j.Metadata, "batch/v1", "Job"))
			continue
		}
		if slices.ContainsFunc(cj.Status.Active, func(r controllers.Reference) bool { return r.UID == j.Metadata.UID }) {
			condition := "Complete"
			if controllers.FindCondition(j.Status.Conditions, "Failed") != nil {
				condition = "Failed"
			}
			cc.Events.Eventf(ctx, ref, controllers.Normal, "SawCompletedJob", "Saw completed job: %s, condition: %s", j.Metadata.Name, condition)
		}
	}
	for _, keep := range []struct {
		jobs  []*job
		limit *int64
	}{{succeeded, cj.Spec.SuccessfulJobsHistoryLimit}, {failed, cj.Spec.FailedJobsHistoryLimit}} {
		if keep.limit == nil || int64(len(keep.jobs)) <= *keep.limit {
			continue
		}
		for _, j := range keep.jobs[:int64(len(keep.jobs))-*keep.limit] {
			if err := cc.deleteJob(ctx, key, j, ref); err != nil {
				return err
			}
		}
	}
	sched, err := parseSchedule(cj.Spec.Schedule)
	if err != nil {
		cc.Events.Eventf(ctx, ref, controllers.Warning, "UnparseableSchedule", "unparseable schedule: %q : %s", cj.Spec.Schedule, err)
		return cc.writeStatus(ctx, key, cj, status)
	}
	loc := time.UTC
	if tz := cj.Spec.TimeZone; tz != nil {
		if loc, err = time.LoadLocation(*tz); err != nil {
			cc.Events.Eventf(ctx, ref, controllers.Warning, "UnknownTimeZone", "invalid timeZone: %q: %s", *tz, err)
			return cc.writeStatus(ctx, key, cj, status)
		}
	}
	now := cc.Clock.Now().In(loc)
	since := status.LastScheduleTime
	if since == "" {
		since = cj.Metadata.CreationTimestamp
	}
	from, _ := time.Parse(time.RFC3339, since)
	// The most recent time due, missed ones skipped as kube skips them.
	var due time.Time
	for t := sched.next(from.In(loc)); !t.IsZero() && !t.After(now); t = sched.next(t) {
		due = t
	}
	if !due.IsZero() && !cj.Spec.Suspend {
		if deadline := cj.Spec.StartingDeadlineSeconds; deadline == nil || !due.Add(time.Duration(*deadline)*time.Second).Before(now) {
			if err := cc.run(ctx, key, cj, due, &status, ref); err != nil {
				return err
			}
		}
		status.LastScheduleTime = object.Timestamp(due)
	}
	if next := sched.next(now); !next.IsZero() && !cj.Spec.Suspend {
		cc.Queue.AddAfter(key, next.Sub(now))
	}
	return cc.writeStatus(ctx, key, cj, status)
}

// run starts the Job of the time due, as the concurrencyPolicy allows.
func (cc *Controller) run(ctx context.Context, key string, cj *cronJob, due time.Time, status *controllers.CronJobStatus, ref controllers.Reference) error {
	switch {
	case len(status.Active) > 0 && cj.Spec.ConcurrencyPolicy == "Forbid":
		return nil
	case len(status.Active) > 0 && cj.Spec.ConcurrencyPolicy == "Replace":
		for _, a := range status.Active {
			if j, ok := cc.jobs.Get(a.Namespace + "/" + a.Name); ok {
				if err := cc.deleteJob(ctx, key, j, ref); err != nil {
					return err
				}
			}
		}
		status.Active = nil
	}
	name := cj.Metadata.Name + "-" + strconv.FormatInt(due.Unix()/60, 10)
	annotations := map[string]string{}
	for k, v := range cj.Spec.JobTemplate.Metadata.Annotations {
		annotations[k] = v
	}
	annotations[scheduledAnnotation] = due.Format(time.RFC3339)
	body := struct {
		APIVersion string                 `json:"apiVersion"`
		Kind       string                 `json:"kind"`
		Metadata   controllers.ObjectMeta `json:"metadata"`
		Spec       json.RawMessage        `json:"spec"`
	}{"batch/v1", "Job", controllers.ObjectMeta{Name: name, Namespace: cj.Metadata.Namespace, Labels: cj.Spec.JobTemplate.Metadata.Labels,
		Annotations: annotations, OwnerReferences: []controllers.OwnerReference{controllers.OwnerRef(&cj.Metadata, "batch/v1", "CronJob")}},
		cj.Spec.JobTemplate.Spec}
	data, err := controllers.Send(ctx, cc.C, web.MethodPost, "/apis/batch/v1/namespaces/"+cj.Metadata.Namespace+"/jobs", body)
	switch {
	case client.IsConflict(err):
		return nil // made already
	case err != nil:
		cc.Events.Eventf(ctx, ref, controllers.Warning, "FailedCreate", "Error creating job: %s", controllers.Message(err))
		return err
	}
	created, err := controllers.Read[job](data)
	if err != nil {
		return err
	}
	cc.Expect.Written(key, cc.jobs, created.Metadata.ResourceVersion)
	status.Active = append(status.Active, controllers.Ref(&created.Metadata, "batch/v1", "Job"))
	cc.Events.Eventf(ctx, ref, controllers.Normal, "SuccessfulCreate", "Created job %s", name)
	return nil
}

func (cc *Controller) deleteJob(ctx context.Context, key string, j *job, ref controllers.Reference) error {
	_, err := cc.C.Do(ctx, web.MethodDelete, "/apis/batch/v1/namespaces/"+j.Metadata.Namespace+"/jobs/"+j.Metadata.Name,
		"application/json", []byte(`{"propagationPolicy":"Background"}`))
	if err != nil && !client.IsNotFound(err) {
		return err
	}
	controllers.Deleted(cc.Expect, key, cc.jobs, j)
	cc.Events.Eventf(ctx, ref, controllers.Normal, "SuccessfulDelete", "Deleted job %s", j.Metadata.Name)
	return nil
}

func (cc *Controller) writeStatus(ctx context.Context, key string, cj *cronJob, status controllers.CronJobStatus) error {
	if controllers.MustJSON(status) == controllers.MustJSON(cj.Status) {
		return nil
	}
	next := *cj
	next.Status = status
	data, err := controllers.Send(ctx, cc.C, web.MethodPut, "/apis/batch/v1/namespaces/"+cj.Metadata.Namespace+"/cronjobs/"+cj.Metadata.Name+"/status", &next)
	if err == nil {
		cc.Expect.Written(key, cc.crons, controllers.Version(data))
	}
	if client.IsNotFound(err) {
		return nil
	}
	return err
}
