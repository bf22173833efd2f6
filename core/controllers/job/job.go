// Package job is kube-controller-manager's Job controller as an API client of
// the core (system:serviceaccount:kube-system:job-controller): it runs a
// Job's Pods (parallelism at a time, until completions have succeeded),
// replaces the ones that fail until backoffLimit is passed, deletes the
// running ones of a suspended or finished Job, and reports active, ready,
// succeeded, failed, startTime, completionTime and the SuccessCriteriaMet and
// Complete (or FailureTarget and Failed) conditions, with kube's events.
//
// It tracks its Pods with kube's finalizer, batch.kubernetes.io/job-tracking,
// so none is counted twice or lost: a finished Pod's UID is first written to
// status.uncountedTerminatedPods, then its finalizer removed, and only then is
// it counted in succeeded or failed. A Pod deleted before it finished counts
// as failed (podReplacementPolicy TerminatingOrFailed); the Pods of a
// finished, suspended or deleted Job lose the finalizer uncounted, and so do
// Pods whose Job is gone.
package job

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// trackingFinalizer holds a Job's Pod until the Job has counted it.
const trackingFinalizer = "batch.kubernetes.io/job-tracking"

// orphanPrefix begins the queue keys of Pods that keep the tracking finalizer
// while no Job is there to count them.
const orphanPrefix = "orphan:"

// removeTracking is the strategic merge patch that takes the tracking
// finalizer off a Pod, as kube's controller sends it.
var removeTracking = []byte(`{"metadata":{"$deleteFromPrimitiveList/finalizers":["` + trackingFinalizer + `"]}}`)

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
	queueJob := controllers.QueueController[pod](jc.Queue, jc.jobs)
	changed := func(p *pod) {
		queueJob(p)
		if p.Metadata.Controller() == "" { // an orphan the Jobs selecting it may adopt
			for _, j := range jc.jobs.List() {
				if j.Metadata.Namespace == p.Metadata.Namespace && j.Spec.Selector.Selects(p.Metadata.Labels) {
					jc.Queue.Add(j.Metadata.Key())
				}
			}
		}
		if tracked(p) && len(jc.jobs.ByIndex("uid", p.Metadata.Controller())) == 0 {
			jc.Queue.Add(orphanPrefix + p.Metadata.Key())
		}
	}
	jc.pods = client.NewTypedInformer(jc.C, "/api/v1/pods", controllers.Codec[pod](), client.TypedHandler[*pod]{
		Add:    changed,
		Update: func(old, p *pod) { queueJob(old); changed(p) }, // a released Pod's Job too
		Delete: changed,
	}, map[string]func(*pod) []string{"controller": controllers.ByController[pod]}, jc.Clock)
	return jc
}

// tracked says whether p holds the tracking finalizer.
func tracked(p *pod) bool { return slices.Contains(p.Metadata.Finalizers, trackingFinalizer) }

// Run works until ctx is done.
func (jc *Controller) Run(ctx context.Context) {
	controllers.Run(ctx, jc.Queue, jc.sync, jc.jobs, jc.pods)
}

func (jc *Controller) sync(ctx context.Context, key string) error {
	if podKey, ok := strings.CutPrefix(key, orphanPrefix); ok {
		return jc.releaseOrphan(ctx, podKey)
	}
	j, ok := jc.jobs.Get(key)
	if !ok {
		jc.Expect.Forget(key)
		// Its Pods' last change may have come before its deletion did.
		ns, name, _ := strings.Cut(key, "/")
		for _, p := range jc.pods.List() {
			if p.Metadata.Namespace == ns && tracked(p) && slices.ContainsFunc(p.Metadata.OwnerReferences, func(r controllers.OwnerReference) bool {
				return r.Kind == "Job" && r.Name == name && r.UID == p.Metadata.Controller()
			}) {
				jc.Queue.Add(orphanPrefix + p.Metadata.Key())
			}
		}
		return nil
	}
	if !jc.Expect.Satisfied(key) {
		return nil
	}
	now := object.Timestamp(jc.Clock.Now())
	status := j.Status
	status.Conditions = slices.Clone(j.Status.Conditions)
	finished := controllers.FindCondition(status.Conditions, "Complete") != nil || controllers.FindCondition(status.Conditions, "Failed") != nil
	var uncounted controllers.Uncounted
	if u := j.Status.UncountedTerminatedPods; u != nil {
		uncounted = controllers.Uncounted{Succeeded: slices.Clone(u.Succeeded), Failed: slices.Clone(u.Failed)}
	}
	listed := func(uid string) bool {
		return slices.Contains(uncounted.Succeeded, uid) || slices.Contains(uncounted.Failed, uid)
	}
	if claimed, err := jc.claim(ctx, key, j); claimed || err != nil {
		return err // the informer brings the claimed Pods, and the key back
	}
	// With a pod failure policy, a Pod being deleted is judged (and
	// replaced) once it has failed, not before (podReplacementPolicy Failed).
	waitTerminal := j.Spec.PodFailurePolicy != nil || j.Spec.PodReplacementPolicy == "Failed"
	var active, release []*pod
	var newSucceeded, newFailed []string
	var ready, terminating int64
	var failJob string // why a pod failure policy's FailJob rule fails the Job
	trackedUIDs := map[string]bool{}
	byUID := map[string]*pod{}
	for _, p := range jc.pods.ByIndex("controller", j.Metadata.UID) {
		byUID[p.Metadata.UID] = p
		done := p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed"
		if !done && p.Metadata.DeletionTimestamp == "" {
			active = append(active, p)
			if p.Ready() {
				ready++
			}
			continue
		}
		if !done {
			terminating++
			if waitTerminal {
				continue
			}
		}
		count := true
		if p.Status.Phase == "Failed" {
			var action, msg string
			action, msg, count = matchPolicy(j.Spec.PodFailurePolicy, p)
			if action == "FailJob" && failJob == "" {
				failJob = msg
			}
		}
		if !tracked(p) {
			continue
		}
		trackedUIDs[p.Metadata.UID] = true
		switch uid := p.Metadata.UID; {
		case listed(uid), finished, j.Spec.Suspend, j.Metadata.DeletionTimestamp != "", !count:
			release = append(release, p)
		case p.Status.Phase == "Succeeded":
			newSucceeded = append(newSucceeded, uid)
		default:
			newFailed = append(newFailed, uid)
		}
	}
	// First list the newly finished Pods as uncounted, then take their
	// finalizers off, then count them: each step written before the next.
	if len(newSucceeded)+len(newFailed) > 0 {
		uncounted.Succeeded = append(uncounted.Succeeded, newSucceeded...)
		uncounted.Failed = append(uncounted.Failed, newFailed...)
		next := *j
		next.Status.UncountedTerminatedPods = &uncounted
		return jc.writeStatus(ctx, key, &next)
	}
	if len(release) > 0 {
		for _, p := range release {
			data, err := jc.C.Do(ctx, web.MethodPatch, "/api/v1/namespaces/"+p.Metadata.Namespace+"/pods/"+p.Metadata.Name,
				"application/strategic-merge-patch+json", removeTracking)
			if err != nil && !client.IsNotFound(err) {
				return err
			}
			if err == nil {
				jc.Expect.Written(key, jc.pods, controllers.Version(data))
			}
		}
		return nil
	}
	counted := func(uids []string) int64 {
		n := int64(0)
		for _, uid := range uids {
			if !trackedUIDs[uid] {
				n++
			}
		}
		return n
	}
	indexed := j.Spec.CompletionMode == "Indexed"
	completions := controllers.Replicas(j.Spec.Completions)
	status.Failed += counted(uncounted.Failed)
	var completed []int64 // an Indexed Job's succeeded indexes
	if indexed {
		completed = parseIndexes(status.CompletedIndexes, completions)
		for _, uid := range uncounted.Succeeded {
			if p := byUID[uid]; p != nil && !trackedUIDs[uid] {
				if i, ok := index(p, completions); ok && !slices.Contains(completed, i) {
					completed = append(completed, i)
				}
			}
		}
		slices.Sort(completed)
		status.CompletedIndexes, status.Succeeded = formatIndexes(completed), int64(len(completed))
	} else {
		status.Succeeded += counted(uncounted.Succeeded)
	}
	ref := controllers.Ref(&j.Metadata, "batch/v1", "Job")
	if !finished {
		if status.StartTime == "" && !j.Spec.Suspend {
			status.StartTime = now
		}
		var done *controllers.Condition
		switch {
		case failJob != "":
			done = &controllers.Condition{Type: "Failed", Reason: "PodFailurePolicy", Message: failJob}
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
		replacing := int64(0) // Pods being deleted that are not replaced yet
		if waitTerminal {
			replacing = terminating
		}
		if err := jc.manage(ctx, key, j, active, want, replacing, completed, ref); err != nil {
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
	status.Ready, status.Terminating, status.UncountedTerminatedPods = &ready, &terminating, &controllers.Uncounted{}
	if finished {
		status.Ready, status.Active = &zero, 0
	}
	if controllers.MustJSON(status) == controllers.MustJSON(j.Status) {
		return nil
	}
	next := *j
	next.Status = status
	return jc.writeStatus(ctx, key, &next)
}

// writeStatus writes j's status.
func (jc *Controller) writeStatus(ctx context.Context, key string, j *job) error {
	data, err := controllers.Send(ctx, jc.C, web.MethodPut, "/apis/batch/v1/namespaces/"+j.Metadata.Namespace+"/jobs/"+j.Metadata.Name+"/status", j)
	if err == nil {
		jc.Expect.Written(key, jc.jobs, controllers.Version(data))
	}
	if client.IsNotFound(err) {
		return nil
	}
	return err
}

// releaseOrphan takes the tracking finalizer off a Pod whose Job is gone,
// once the API confirms it (the informer may not have seen a new Job yet).
func (jc *Controller) releaseOrphan(ctx context.Context, podKey string) error {
	p, ok := jc.pods.Get(podKey)
	if !ok || !tracked(p) {
		return nil
	}
	uid := p.Metadata.Controller()
	if uid != "" && len(jc.jobs.ByIndex("uid", uid)) > 0 {
		return nil
	}
	for _, ref := range p.Metadata.OwnerReferences {
		if ref.UID != uid || ref.Kind != "Job" {
			continue
		}
		obj, err := jc.C.Get(ctx, "/apis/batch/v1/namespaces/"+p.Metadata.Namespace+"/jobs/"+ref.Name)
		if err == nil && object.MetaString(obj, "uid") == uid {
			return nil
		}
		if err != nil && !client.IsNotFound(err) {
			return err
		}
	}
	_, err := jc.C.Do(ctx, web.MethodPatch, "/api/v1/namespaces/"+p.Metadata.Namespace+"/pods/"+p.Metadata.Name,
		"application/strategic-merge-patch+json", removeTracking)
	if client.IsNotFound(err) {
		return nil
	}
	return err
}

func jsonTime(t string) []byte { return []byte(`"` + t + `"`) }

// manage creates or deletes Pods until want of them are active (counting
// replacing Pods being deleted among them); an Indexed Job's new Pods take
// the lowest indexes neither completed nor active, each with its index
// (annotation, label, hostname, JOB_COMPLETION_INDEX).
func (jc *Controller) manage(ctx context.Context, key string, j *job, active []*pod, want, replacing int64, completed []int64, ref controllers.Reference) error {
	ns := j.Metadata.Namespace
	var free []int64 // the indexes to give new Pods
	if j.Spec.CompletionMode == "Indexed" {
		completions := controllers.Replicas(j.Spec.Completions)
		for i := int64(0); i < completions; i++ {
			if !slices.Contains(completed, i) && !slices.ContainsFunc(active, func(p *pod) bool {
				n, ok := index(p, completions)
				return ok && n == i
			}) {
				free = append(free, i)
			}
		}
	}
	for n := int64(len(active)) + replacing; n < want; n++ {
		generateName := j.Metadata.Name + "-"
		ix := int64(-1)
		if free != nil {
			if len(free) == 0 {
				break
			}
			ix, free = free[0], free[1:]
			generateName = j.Metadata.Name + "-" + strconv.FormatInt(ix, 10) + "-"
		}
		p := controllers.PodFromTemplate(j.Spec.Template, generateName, controllers.OwnerRef(&j.Metadata, "batch/v1", "Job"))
		meta := p["metadata"].(map[string]any)
		if finalizers, _ := meta["finalizers"].([]any); !slices.Contains(finalizers, any(trackingFinalizer)) {
			meta["finalizers"] = append(finalizers, trackingFinalizer)
		}
		if ix >= 0 {
			withIndex(p, j.Metadata.Name, ix)
		}
		created, err := jc.C.Create(ctx, "/api/v1/namespaces/"+ns+"/pods", p)
		if err != nil {
			jc.Events.Eventf(ctx, ref, controllers.Warning, "FailedCreate", "Error creating: %s", controllers.Message(err))
			return err
		}
		meta = created["metadata"].(map[string]any)
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
