package sim_test

import (
	"testing"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/sim"
)

// initStatus is a Pod's i-th init container's status.
func (e *env) initStatus(name string, i int) map[string]any {
	statuses, _ := object.Path(e.get(pods+"/"+name), "status", "initContainerStatuses").([]any)
	if len(statuses) <= i {
		return nil
	}
	return statuses[i].(map[string]any)
}

// TestSIM_3_ContainerCommands: what a container does comes from its image
// and command, as kubelet would report it: the pause image runs until
// stopped whatever the restartPolicy, /bin/false fails with reason Error,
// a script that fails once and succeeds once its file is on its emptyDir
// restarts once under OnFailure and Succeeds.
func TestSIM_3_ContainerCommands(t *testing.T) {
	e := newEnv(t, sim.Config{Nodes: 1})
	e.create(pods, podDoc("pause", `{"restartPolicy":"Never","containers":[{"name":"c","image":"registry.k8s.io/pause:3.10"}]}`))
	e.create(pods, podDoc("false", `{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","command":["/bin/false"]}]}`))
	e.create(pods, podDoc("once", `{"restartPolicy":"OnFailure","volumes":[{"name":"data","emptyDir":{}}],"containers":[{"name":"c","image":"busybox",`+
		`"volumeMounts":[{"name":"data","mountPath":"/data"}],"command":["/bin/sh","-c"],`+
		`"args":["\n if [[ -r /data/foo ]]\n then\n exit 0\n else\n touch /data/foo\n exit 1\n fi\n"]}]}`))
	e.until(2*time.Minute, "false failed, once succeeded", func() bool { return e.phase("false") == "Failed" && e.phase("once") == "Succeeded" })
	if term := object.Path(e.containerStatus("false"), "state", "terminated"); object.Path(term, "reason") != "Error" || object.Int(object.Path(term, "exitCode")) != 1 {
		t.Errorf("/bin/false: %v", term)
	}
	if cs := e.containerStatus("once"); object.Int(cs["restartCount"]) != 1 || object.Int(object.Path(cs, "lastState", "terminated", "exitCode")) != 1 {
		t.Errorf("once: %v", cs)
	}
	if e.phase("pause") != "Running" {
		t.Errorf("pause: %s", e.phase("pause"))
	}
	e.create(pods, podDoc("abs", `{"restartPolicy":"Never","volumes":[{"name":"w","emptyDir":{}}],"containers":[{"name":"c","image":"busybox",`+
		`"command":["sh","-c","tail -f /dev/null"],"env":[{"name":"POD_NAME","value":"/tmp"}],"volumeMounts":[{"name":"w","mountPath":"/m","subPathExpr":"$(POD_NAME)"}]}]}`))
	e.until(time.Minute, "abs refused", func() bool {
		return object.Path(e.containerStatus("abs"), "state", "waiting", "reason") == "CreateContainerConfigError"
	})
	if msg := object.Path(e.containerStatus("abs"), "state", "waiting", "message"); msg != "error SubPath `/tmp` must not be an absolute path" {
		t.Errorf("abs: %v", msg)
	}
}

// TestSIM_3_InitContainers: init containers run one after the other before
// the app containers, which wait in PodInitializing; one that fails under
// restartPolicy Never fails the Pod, under Always it restarts and the Pod
// stays Pending, its Initialized condition saying which are incomplete; an
// init container's log is served.
func TestSIM_3_InitContainers(t *testing.T) {
	e := newEnv(t, sim.Config{Nodes: 1})
	e.create(pods, podDoc("ok", `{"restartPolicy":"Never","initContainers":[{"name":"init1","image":"busybox","command":["sh","-c","echo setting up; true"]},`+
		`{"name":"init2","image":"busybox","command":["/bin/true"]}],"containers":[{"name":"run1","image":"busybox","command":["/bin/true"]}]}`))
	e.create(pods, podDoc("never", `{"restartPolicy":"Never","initContainers":[{"name":"init1","image":"busybox","command":["/bin/true"]},`+
		`{"name":"init2","image":"busybox","command":["/bin/false"]}],"containers":[{"name":"run1","image":"busybox","command":["/bin/true"]}]}`))
	e.create(pods, podDoc("always", `{"initContainers":[{"name":"init1","image":"busybox","command":["/bin/false"]},`+
		`{"name":"init2","image":"busybox","command":["/bin/true"]}],"containers":[{"name":"run1","image":"registry.k8s.io/pause:3.10"}]}`))
	e.until(2*time.Minute, "ok succeeded, never failed, always restarted", func() bool {
		return e.phase("ok") == "Succeeded" && e.phase("never") == "Failed" && object.Int(e.initStatus("always", 0)["restartCount"]) >= 1
	})
	for i := range 2 {
		if cs := e.initStatus("ok", i); cs["ready"] != true || object.Path(cs, "state", "terminated", "exitCode") != nil && object.Int(object.Path(cs, "state", "terminated", "exitCode")) != 0 {
			t.Errorf("ok init %d: %v", i, cs)
		}
	}
	// The kubelet serves an init container's log as a regular one's.
	if b, err := e.c.Do(e.ctx, "GET", pods+"/ok/log?container=init1", "", nil); err != nil || string(b) != "setting up\n" {
		t.Errorf("ok init1's log: %q, %v", b, err)
	}
	if c := conditionOf(e.get(pods+"/ok"), "Initialized"); c["status"] != "True" || c["reason"] != "PodCompleted" {
		t.Errorf("ok Initialized: %v", c)
	}
	if c := conditionOf(e.get(pods+"/never"), "Initialized"); c["status"] != "False" || c["reason"] != "ContainersNotInitialized" ||
		c["message"] != "containers with incomplete status: [init2]" {
		t.Errorf("never Initialized: %v", c)
	}
	if r := object.Path(e.containerStatus("never"), "state", "waiting", "reason"); r != "PodInitializing" {
		t.Errorf("never's app container: %v", e.containerStatus("never"))
	}
	if e.phase("always") != "Pending" || object.Path(e.initStatus("always", 1), "state", "waiting", "reason") != "PodInitializing" ||
		object.Path(e.containerStatus("always"), "state", "waiting", "reason") != "PodInitializing" {
		t.Errorf("always: %s %v %v", e.phase("always"), e.initStatus("always", 1), e.containerStatus("always"))
	}
	if c := conditionOf(e.get(pods+"/always"), "Initialized"); c["message"] != "containers with incomplete status: [init1 init2]" {
		t.Errorf("always Initialized: %v", c)
	}
}

// TestSIM_3_ActiveDeadline: a Pod active longer than its
// activeDeadlineSeconds (here set once it runs) is killed and Fails with
// reason DeadlineExceeded.
func TestSIM_3_ActiveDeadline(t *testing.T) {
	e := newEnv(t, sim.Config{Nodes: 1})
	e.create(pods, podDoc("dl", `{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10"}]}`))
	e.until(time.Minute, "dl running", func() bool { return e.phase("dl") == "Running" })
	e.patch(pods+"/dl", `{"spec":{"activeDeadlineSeconds":5}}`)
	e.until(time.Minute, "dl failed", func() bool { return e.phase("dl") == "Failed" })
	p := e.get(pods + "/dl")
	if object.Path(p, "status", "reason") != "DeadlineExceeded" || object.Path(p, "status", "message") != "Pod was active on the node longer than the specified deadline" {
		t.Errorf("dl status: %v", p["status"])
	}
	if term := object.Path(e.containerStatus("dl"), "state", "terminated"); object.Int(object.Path(term, "exitCode")) != 137 {
		t.Errorf("dl container: %v", term)
	}
}

// TestSIM_3_KubeletRejectsHostPortConflict: a Pod given its node (past the
// scheduler) whose host port a running Pod there binds is rejected by the
// kubelet: Failed, reason NodePorts, as kubelet's admission words it.
func TestSIM_3_KubeletRejectsHostPortConflict(t *testing.T) {
	e := newEnv(t, sim.Config{Nodes: 1})
	spec := `{"nodeName":"` + sim.NodeName(0) + `","containers":[{"name":"c","image":"httpd","ports":[{"name":"conflict","hostPort":21017,"containerPort":21017}]}]}`
	e.create(pods, podDoc("first", spec))
	e.until(time.Minute, "first running", func() bool { return e.phase("first") == "Running" })
	e.create(pods, podDoc("second", spec))
	e.until(time.Minute, "second rejected", func() bool { return e.phase("second") == "Failed" })
	st := e.get(pods + "/second")["status"].(map[string]any)
	if st["reason"] != "NodePorts" || st["message"] != "Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports" {
		t.Errorf("second: %v", st)
	}
	if e.phase("first") != "Running" {
		t.Errorf("first: %s", e.phase("first"))
	}
}

// ephemeralStatus is the status of a Pod's ephemeral container.
func (e *env) ephemeralStatus(name, container string) map[string]any {
	statuses, _ := object.Path(e.get(pods+"/"+name), "status", "ephemeralContainerStatuses").([]any)
	for _, s := range statuses {
		if m := s.(map[string]any); m["name"] == container {
			return m
		}
	}
	return nil
}

// TestCONF_1_EphemeralContainers: an ephemeral container added to a running
// Pod (kubectl debug's strategic merge patch) is started by the Pod's
// kubelet and reported in ephemeralContainerStatuses, neither started nor
// ready, as kubelet reports it: a shell with its standard input open keeps
// running; one with a command that ends stays terminated, never restarted,
// whatever the Pod's restartPolicy; the Pod's phase and conditions are the
// app containers' alone.
func TestCONF_1_EphemeralContainers(t *testing.T) {
	e := newEnv(t, sim.Config{Nodes: 1})
	e.create(pods, podDoc("web", `{"containers":[{"name":"app","image":"nginx"}]}`))
	e.until(time.Minute, "web running", func() bool { return e.phase("web") == "Running" })
	e.patch(pods+"/web/ephemeralcontainers", `{"spec":{"ephemeralContainers":[{"name":"debugger","image":"busybox","targetContainerName":"app","stdin":true,"tty":true,"terminationMessagePolicy":"File"}]}}`)
	e.until(time.Minute, "the debugger running", func() bool {
		return object.Path(e.ephemeralStatus("web", "debugger"), "state", "running") != nil
	})
	e.patch(pods+"/web/ephemeralcontainers", `{"spec":{"ephemeralContainers":[{"name":"once","image":"busybox","command":["/bin/false"]}]}}`)
	e.until(time.Minute, "once terminated", func() bool {
		return object.Path(e.ephemeralStatus("web", "once"), "state", "terminated") != nil
	})
	for range 10 { // ten minutes: a terminated ephemeral container stays so
		e.clock.Step(time.Minute)
		time.Sleep(time.Millisecond)
	}
	e.until(time.Minute, "settled", func() bool { return e.cluster.Pending() == 0 })
	debugger, once := e.ephemeralStatus("web", "debugger"), e.ephemeralStatus("web", "once")
	if object.Path(debugger, "state", "running") == nil || debugger["ready"] != false || debugger["started"] != nil {
		t.Errorf("debugger: %v", debugger)
	}
	if object.Int(object.Path(once, "state", "terminated", "exitCode")) != 1 || object.Int(once["restartCount"]) != 0 {
		t.Errorf("once: %v", once)
	}
	if e.phase("web") != "Running" || conditionOf(e.get(pods+"/web"), "Ready")["status"] != "True" {
		t.Errorf("web: %s, Ready %v", e.phase("web"), conditionOf(e.get(pods+"/web"), "Ready"))
	}
}
