package table

import (
	"strconv"
	"strings"
	"time"

	"kubeplay/core/object"
)

// The printers of the workload kinds beyond Deployments and ReplicaSets, as
// kube's pkg/printers/internalversion prints them.

var StatefulSet = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"},
		ageColumn,
		{Name: "Containers", Type: "string", Priority: 1, Description: descContainers},
		{Name: "Images", Type: "string", Priority: 1, Description: descImages},
	},
	cells: func(obj object.Object, now time.Time) []any {
		names, images := containerCells(object.Path(obj, "spec", "template"))
		return []any{name(obj), ratio(intAt(obj, "status", "readyReplicas"), replicas(obj)), created(obj, now), names, images}
	},
}

// DaemonSet prints DaemonSets as kube-apiserver does.
var DaemonSet = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Desired", Type: "integer", Description: descDsDesired},
		{Name: "Current", Type: "integer", Description: descDsCurrent},
		{Name: "Ready", Type: "integer", Description: descDsReady},
		{Name: "Up-to-date", Type: "integer", Description: descDsUpdated},
		{Name: "Available", Type: "integer", Description: descDsAvailable},
		{Name: "Node Selector", Type: "string", Description: descNodeSelector},
		ageColumn,
		{Name: "Containers", Type: "string", Priority: 1, Description: descContainers},
		{Name: "Images", Type: "string", Priority: 1, Description: descImages},
		{Name: "Selector", Type: "string", Priority: 1, Description: descDsSelector},
	},
	cells: func(obj object.Object, now time.Time) []any {
		cells := []any{name(obj)}
		status := mapAt(obj, "status")
		for _, n := range [...]string{"desiredNumberScheduled", "currentNumberScheduled", "numberReady", "updatedNumberScheduled", "numberAvailable"} {
			cells = append(cells, intAt(status, n))
		}
		template := object.Path(obj, "spec", "template")
		cells = append(cells, formatLabels(stringMap(object.Path(template, "spec", "nodeSelector"))), created(obj, now))
		return append(cells, templateCells(template, object.Path(obj, "spec", "selector"))...)
	},
}

// Job prints Jobs as kube-apiserver does.
var Job = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Status", Type: "string", Description: "Status of the job."},
		{Name: "Completions", Type: "string", Description: descJobSucceeded},
		{Name: "Duration", Type: "string", Description: "Time required to complete the job."},
		ageColumn,
		{Name: "Containers", Type: "string", Priority: 1, Description: descContainers},
		{Name: "Images", Type: "string", Priority: 1, Description: descImages},
		{Name: "Selector", Type: "string", Priority: 1, Description: descJobSelector},
	},
	cells: func(obj object.Object, now time.Time) []any {
		spec := mapAt(obj, "spec")
		completions := ratio(intAt(obj, "status", "succeeded"), 1)
		switch parallelism := intAt(spec, "parallelism"); {
		case spec["completions"] != nil:
			completions = ratio(intAt(obj, "status", "succeeded"), intAt(spec, "completions"))
		case parallelism > 1:
			completions += " of " + strconv.FormatInt(parallelism, 10)
		}
		duration := ""
		if start := timeAt(obj, "status", "startTime"); !start.IsZero() {
			end := timeAt(obj, "status", "completionTime")
			if end.IsZero() {
				end = now
			}
			duration = humanDuration(end.Sub(start))
		}
		conditions := listAt(obj, "status", "conditions")
		status := "Running"
		switch {
		case anyConditionIs(conditions, "Complete", "True"):
			status = "Complete"
		case anyConditionIs(conditions, "Failed", "True"):
			status = "Failed"
		case object.Path(obj, "metadata", "deletionTimestamp") != nil:
			status = "Terminating"
		case anyConditionIs(conditions, "Suspended", "True"):
			status = "Suspended"
		case anyConditionIs(conditions, "FailureTarget", "True"):
			status = "FailureTarget"
		}
		return append([]any{name(obj), status, completions, duration, created(obj, now)}, templateCells(spec["template"], spec["selector"])...)
	},
}

// CronJob prints CronJobs as kube-apiserver does.
var CronJob = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Schedule", Type: "string", Description: descCjSchedule},
		{Name: "Timezone", Type: "string", Description: descCjTimeZone},
		{Name: "Suspend", Type: "boolean", Description: descCjSuspend},
		{Name: "Active", Type: "integer", Description: descCjActive},
		{Name: "Last Schedule", Type: "string", Description: descCjLast},
		ageColumn,
		{Name: "Containers", Type: "string", Priority: 1, Description: descContainers},
		{Name: "Images", Type: "string", Priority: 1, Description: descImages},
		{Name: "Selector", Type: "string", Priority: 1, Description: descJobSelector},
	},
	cells: func(obj object.Object, now time.Time) []any {
		last := "<none>"
		if t := timeAt(obj, "status", "lastScheduleTime"); !t.IsZero() {
			last = age(t, now)
		}
		spec := mapAt(obj, "spec")
		suspend := "False" // printBoolPtr of the defaulted spec.suspend
		if spec["suspend"] == true {
			suspend = "True"
		}
		job := mapAt(spec, "jobTemplate", "spec")
		return append([]any{name(obj), strAt(spec, "schedule"), orNone(strAt(spec, "timeZone")), suspend,
			int64(len(listAt(obj, "status", "active"))), last, created(obj, now)}, templateCells(job["template"], job["selector"])...)
	},
}

// ControllerRevision prints ControllerRevisions as kube-apiserver does.
var ControllerRevision = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Controller", Type: "string", Description: "Controller of the object"},
		{Name: "Revision", Type: "string", Description: descCrRevision},
		ageColumn,
	},
	cells: func(obj object.Object, now time.Time) []any {
		controller := "<none>"
		for _, ref := range listAt(obj, "metadata", "ownerReferences") {
			if boolAt(ref, "controller") {
				// kube's formatResourceName of the group and kind.
				kind := strAt(ref, "kind")
				if group, _, ok := strings.Cut(strAt(ref, "apiVersion"), "/"); ok {
					kind += "." + group
				}
				controller = strings.ToLower(kind) + "/" + strAt(ref, "name")
			}
		}
		return []any{name(obj), controller, intAt(obj, "revision"), created(obj, now)}
	},
}

// templateCells are the Containers, Images and Selector cells of a pod
// template's owner, its selector as metav1.FormatLabelSelector prints it.
func templateCells(template, selector any) []any {
	names, images := containerCells(template)
	sel, ok := labelSelector(selector)
	switch {
	case !ok:
		sel = "<error>"
	case sel == "":
		sel = "<none>"
	}
	return []any{names, images, sel}
}

// ratio is a "ready/desired" cell.
func ratio(n, of int64) string { return strconv.FormatInt(n, 10) + "/" + strconv.FormatInt(of, 10) }
