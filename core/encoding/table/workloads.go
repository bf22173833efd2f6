package table

import (
	"strconv"
	"strings"
	"time"

	"kubeplay/core/object"
)

// The printers of the workload kinds beyond Deployments and ReplicaSets, as
// kube's pkg/printers/internalversion prints them.

var statefulSetPrinter = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"},
		ageColumn,
		{Name: "Containers", Type: "string", Priority: 1, Description: descContainers},
		{Name: "Images", Type: "string", Priority: 1, Description: descImages},
	},
	cells: func(obj object.Object, now time.Time) []any {
		names, images := containerCells(object.Path(obj, "spec", "template"))
		return []any{name(obj), strconv.FormatInt(intAt(obj, "status", "readyReplicas"), 10) + "/" + strconv.FormatInt(intAt(obj, "spec", "replicas"), 10),
			created(obj, now), names, images}
	},
}

var daemonSetPrinter = &Printer{
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
		names, images := containerCells(object.Path(obj, "spec", "template"))
		sel, _ := labelSelector(object.Path(obj, "spec", "selector"))
		return []any{name(obj), intAt(obj, "status", "desiredNumberScheduled"), intAt(obj, "status", "currentNumberScheduled"),
			intAt(obj, "status", "numberReady"), intAt(obj, "status", "updatedNumberScheduled"), intAt(obj, "status", "numberAvailable"),
			formatLabels(stringMap(object.Path(obj, "spec", "template", "spec", "nodeSelector"))), created(obj, now), names, images, sel}
	},
}

var jobPrinter = &Printer{
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
		succeeded := strconv.FormatInt(intAt(obj, "status", "succeeded"), 10)
		completions := succeeded + "/1"
		switch parallelism := intAt(obj, "spec", "parallelism"); {
		case object.Path(obj, "spec", "completions") != nil:
			completions = succeeded + "/" + strconv.FormatInt(intAt(obj, "spec", "completions"), 10)
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
		names, images := containerCells(object.Path(obj, "spec", "template"))
		sel, _ := labelSelector(object.Path(obj, "spec", "selector"))
		return []any{name(obj), status, completions, duration, created(obj, now), names, images, sel}
	},
}

var cronJobPrinter = &Printer{
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
		suspend := "<unset>"
		if v, ok := object.Path(obj, "spec", "suspend").(bool); ok {
			suspend = strconv.FormatBool(v)
		}
		names, images := containerCells(object.Path(obj, "spec", "jobTemplate", "spec", "template"))
		sel, _ := labelSelector(object.Path(obj, "spec", "jobTemplate", "spec", "selector"))
		return []any{name(obj), strAt(obj, "spec", "schedule"), orNone(strAt(obj, "spec", "timeZone")), suspend,
			int64(len(listAt(obj, "status", "active"))), last, created(obj, now), names, images, sel}
	},
}

var persistentVolumeClaimPrinter = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Status", Type: "string", Description: descPvcPhase},
		{Name: "Volume", Type: "string", Description: descPvcVolume},
		{Name: "Capacity", Type: "string", Description: descPvcCapacity},
		{Name: "Access Modes", Type: "string", Description: descPvcAccess},
		{Name: "StorageClass", Type: "string", Description: "StorageClass of the pvc"},
		{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pvc"},
		ageColumn,
		{Name: "VolumeMode", Type: "string", Priority: 1, Description: descPvcMode},
	},
	cells: func(obj object.Object, now time.Time) []any {
		phase := strAt(obj, "status", "phase")
		if object.Path(obj, "metadata", "deletionTimestamp") != nil {
			phase = "Terminating"
		}
		volume, capacity, modes := strAt(obj, "spec", "volumeName"), "", ""
		if volume != "" {
			capacity = strAt(obj, "status", "capacity", "storage")
			var short []string
			for _, m := range []struct{ mode, short string }{{"ReadWriteOnce", "RWO"}, {"ReadOnlyMany", "ROX"}, {"ReadWriteMany", "RWX"}, {"ReadWriteOncePod", "RWOP"}} {
				for _, got := range stringList(object.Path(obj, "status", "accessModes")) {
					if got == m.mode {
						short = append(short, m.short)
						break
					}
				}
			}
			modes = strings.Join(short, ",")
		}
		class := strAt(obj, "spec", "storageClassName")
		if class == "" {
			class = strAt(obj, "metadata", "annotations", "volume.beta.kubernetes.io/storage-class")
		}
		attributes := strAt(obj, "spec", "volumeAttributesClassName")
		if attributes == "" {
			attributes = "<unset>"
		}
		mode := strAt(obj, "spec", "volumeMode")
		if mode == "" {
			mode = "<unset>"
		}
		return []any{name(obj), phase, volume, capacity, modes, class, attributes, created(obj, now), mode}
	},
}

var controllerRevisionPrinter = &Printer{
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
				group, _, _ := strings.Cut(strAt(ref, "apiVersion"), "/")
				if !strings.Contains(strAt(ref, "apiVersion"), "/") {
					group = ""
				}
				kind := strings.ToLower(strAt(ref, "kind"))
				if group != "" {
					kind += "." + group
				}
				controller = kind + "/" + strAt(ref, "name")
			}
		}
		return []any{name(obj), controller, intAt(obj, "revision"), created(obj, now)}
	},
}
