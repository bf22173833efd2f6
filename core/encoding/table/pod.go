package table

import (
	"strconv"
	"time"

	"kubeplay/core/object"
)

var podPrinter = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Ready", Type: "string", Description: descPodReady},
		{Name: "Status", Type: "string", Description: descPodStatus},
		{Name: "Restarts", Type: "string", Description: descPodRestarts},
		ageColumn,
		{Name: "IP", Type: "string", Priority: 1, Description: descPodIP},
		{Name: "Node", Type: "string", Priority: 1, Description: descNodeName},
		{Name: "Nominated Node", Type: "string", Priority: 1, Description: descNominatedNodeName},
		{Name: "Readiness Gates", Type: "string", Priority: 1, Description: descReadinessGates},
	},
	cells:      podCells,
	conditions: podConditions,
}

func podConditions(obj object.Object) []RowCondition {
	switch strAt(obj, "status", "phase") {
	case "Succeeded":
		return []RowCondition{{Type: "Completed", Status: "True", Reason: "Succeeded", Message: "The pod has completed successfully."}}
	case "Failed":
		return []RowCondition{{Type: "Completed", Status: "True", Reason: "Failed", Message: "The pod failed."}}
	}
	return nil
}

// podCells follows printPod: READY counts ready containers (and started, ready
// sidecars) over containers plus sidecars; STATUS is the phase or status reason,
// overridden by the first unfinished init container, then by the containers'
// waiting/terminated reasons (the first container wins), then by Terminating or
// Unknown while the pod is being deleted; RESTARTS adds when the last container
// restart finished.
func podCells(pod object.Object, now time.Time) []any {
	spec, status := mapAt(pod, "spec"), mapAt(pod, "status")
	phase := strAt(status, "phase")
	reason := phase
	if r := strAt(status, "reason"); r != "" {
		reason = r
	}
	conditions := listAt(status, "conditions")
	for _, c := range conditions {
		if strAt(c, "type") == "PodScheduled" && strAt(c, "reason") == "SchedulingGated" {
			reason = "SchedulingGated"
		}
	}

	// Sidecars are init containers with restartPolicy Always; each one counts
	// towards READY's total. By name, the last spec of that name decides.
	sidecars := map[string]bool{}
	total := len(listAt(spec, "containers"))
	for _, c := range listAt(spec, "initContainers") {
		sidecar := strAt(c, "restartPolicy") == "Always"
		sidecars[strAt(c, "name")] = sidecar
		if sidecar {
			total++
		}
	}

	var restarts, sidecarRestarts int64
	var lastRestart, lastSidecarRestart time.Time
	ready := 0
	initializing := false
	initStatuses := listAt(status, "initContainerStatuses")
	for i, cs := range initStatuses {
		restarts += intAt(cs, "restartCount")
		finished := timeAt(cs, "lastState", "terminated", "finishedAt")
		hasLast := has(cs, "lastState", "terminated")
		if hasLast && lastRestart.Before(finished) {
			lastRestart = finished
		}
		sidecar := sidecars[strAt(cs, "name")]
		if sidecar {
			sidecarRestarts += intAt(cs, "restartCount")
			if hasLast && lastSidecarRestart.Before(finished) {
				lastSidecarRestart = finished
			}
		}
		terminated := has(cs, "state", "terminated")
		switch {
		case terminated && intAt(cs, "state", "terminated", "exitCode") == 0:
			continue
		case sidecar && boolAt(cs, "started"):
			if boolAt(cs, "ready") {
				ready++
			}
			continue
		case terminated:
			if r := strAt(cs, "state", "terminated", "reason"); r != "" {
				reason = "Init:" + r
			} else if sig := intAt(cs, "state", "terminated", "signal"); sig != 0 {
				reason = "Init:Signal:" + strconv.FormatInt(sig, 10)
			} else {
				reason = "Init:ExitCode:" + strconv.FormatInt(intAt(cs, "state", "terminated", "exitCode"), 10)
			}
		case waitingReason(cs) != "" && waitingReason(cs) != "PodInitializing":
			reason = "Init:" + waitingReason(cs)
		default:
			reason = "Init:" + strconv.Itoa(i) + "/" + strconv.Itoa(len(listAt(spec, "initContainers")))
		}
		initializing = true
		break
	}

	if !initializing || firstConditionIs(conditions, "Initialized", "True") {
		restarts, lastRestart = sidecarRestarts, lastSidecarRestart
		hasRunning := false
		statuses := listAt(status, "containerStatuses")
		for i := len(statuses) - 1; i >= 0; i-- {
			cs := statuses[i]
			restarts += intAt(cs, "restartCount")
			if has(cs, "lastState", "terminated") {
				if finished := timeAt(cs, "lastState", "terminated", "finishedAt"); lastRestart.Before(finished) {
					lastRestart = finished
				}
			}
			waiting, terminated := waitingReason(cs), has(cs, "state", "terminated")
			switch {
			case waiting != "":
				reason = waiting
			case terminated && strAt(cs, "state", "terminated", "reason") != "":
				reason = strAt(cs, "state", "terminated", "reason")
			case terminated:
				if sig := intAt(cs, "state", "terminated", "signal"); sig != 0 {
					reason = "Signal:" + strconv.FormatInt(sig, 10)
				} else {
					reason = "ExitCode:" + strconv.FormatInt(intAt(cs, "state", "terminated", "exitCode"), 10)
				}
			case boolAt(cs, "ready") && has(cs, "state", "running"):
				hasRunning = true
				ready++
			}
		}
		if reason == "Completed" && hasRunning {
			if anyConditionIs(conditions, "Ready", "True") {
				reason = "Running"
			} else {
				reason = "NotReady"
			}
		}
	}

	if at(pod, "metadata", "deletionTimestamp") != nil {
		switch {
		case strAt(status, "reason") == "NodeLost":
			reason = "Unknown"
		case phase != "Failed" && phase != "Succeeded":
			reason = "Terminating"
		}
	}

	restartCell := strconv.FormatInt(restarts, 10)
	if restarts != 0 && !lastRestart.IsZero() {
		restartCell += " (" + age(lastRestart, now) + " ago)"
	}

	// v1.PodStatus converts to the internal podIPs with podIP authoritative.
	ip := strAt(status, "podIP")
	if ip == "" {
		if ips := listAt(status, "podIPs"); len(ips) > 0 {
			ip = strAt(ips[0], "ip")
		}
	}
	gates := "<none>"
	if rg := listAt(spec, "readinessGates"); len(rg) > 0 {
		trueGates := 0
		for _, g := range rg {
			if firstConditionIs(conditions, strAt(g, "conditionType"), "True") {
				trueGates++
			}
		}
		gates = strconv.Itoa(trueGates) + "/" + strconv.Itoa(len(rg))
	}

	return []any{
		name(pod),
		strconv.Itoa(ready) + "/" + strconv.Itoa(total),
		reason,
		restartCell,
		created(pod, now),
		orNone(ip),
		orNone(strAt(spec, "nodeName")),
		orNone(strAt(status, "nominatedNodeName")),
		gates,
	}
}

// waitingReason is a container status's state.waiting.reason, or "".
func waitingReason(cs any) string { return strAt(cs, "state", "waiting", "reason") }

// firstConditionIs says whether the first condition of type t has status s.
func firstConditionIs(conditions []any, t, s string) bool {
	for _, c := range conditions {
		if strAt(c, "type") == t {
			return strAt(c, "status") == s
		}
	}
	return false
}

// anyConditionIs says whether some condition of type t has status s.
func anyConditionIs(conditions []any, t, s string) bool {
	for _, c := range conditions {
		if strAt(c, "type") == t && strAt(c, "status") == s {
			return true
		}
	}
	return false
}

// orNone shows an empty cell as <none>.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
