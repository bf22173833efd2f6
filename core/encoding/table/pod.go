package table

import (
	"strconv"
	"time"

	"kubeplay/core/object"
)

// Pod prints Pods as kube-apiserver does.
var Pod = &Printer{
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
	for i, v := range listAt(status, "initContainerStatuses") {
		cs := readContainerStatus(v)
		restarts += cs.restarts
		if cs.lastTerminated && lastRestart.Before(cs.lastFinished) {
			lastRestart = cs.lastFinished
		}
		sidecar := sidecars[cs.name]
		if sidecar {
			sidecarRestarts += cs.restarts
			if cs.lastTerminated && lastSidecarRestart.Before(cs.lastFinished) {
				lastSidecarRestart = cs.lastFinished
			}
		}
		switch {
		case cs.terminated && cs.exitCode == 0:
			continue
		case sidecar && cs.started:
			if cs.ready {
				ready++
			}
			continue
		case cs.terminated:
			reason = "Init:" + cs.terminatedReason()
		case cs.waiting != "" && cs.waiting != "PodInitializing":
			reason = "Init:" + cs.waiting
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
			cs := readContainerStatus(statuses[i])
			restarts += cs.restarts
			if cs.lastTerminated && lastRestart.Before(cs.lastFinished) {
				lastRestart = cs.lastFinished
			}
			switch {
			case cs.waiting != "":
				reason = cs.waiting
			case cs.terminated:
				reason = cs.terminatedReason()
			case cs.ready && cs.running:
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

	if object.Path(pod, "metadata", "deletionTimestamp") != nil {
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

// containerStatus is what printPod reads from a v1.ContainerStatus.
type containerStatus struct {
	name             string
	restarts         int64
	ready, started   bool
	running          bool   // state.running is set
	waiting          string // state.waiting.reason
	terminated       bool   // state.terminated is set
	reason           string // state.terminated.reason
	exitCode, signal int64
	lastTerminated   bool // lastState.terminated is set
	lastFinished     time.Time
}

func readContainerStatus(v any) containerStatus {
	state, last := mapAt(v, "state"), mapAt(v, "lastState", "terminated")
	term := mapAt(state, "terminated")
	return containerStatus{
		name:           strAt(v, "name"),
		restarts:       intAt(v, "restartCount"),
		ready:          boolAt(v, "ready"),
		started:        boolAt(v, "started"),
		running:        mapAt(state, "running") != nil,
		waiting:        strAt(state, "waiting", "reason"),
		terminated:     term != nil,
		reason:         strAt(term, "reason"),
		exitCode:       intAt(term, "exitCode"),
		signal:         intAt(term, "signal"),
		lastTerminated: last != nil,
		lastFinished:   timeAt(last, "finishedAt"),
	}
}

// terminatedReason names a terminated state: its reason, else its signal or
// exit code.
func (cs containerStatus) terminatedReason() string {
	switch {
	case cs.reason != "":
		return cs.reason
	case cs.signal != 0:
		return "Signal:" + strconv.FormatInt(cs.signal, 10)
	}
	return "ExitCode:" + strconv.FormatInt(cs.exitCode, 10)
}

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
