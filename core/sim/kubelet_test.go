package sim_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/sim"
)

// containerStatus is a Pod's first container's status.
func (e *env) containerStatus(name string) map[string]any {
	statuses, _ := object.Path(e.get(pods+"/"+name), "status", "containerStatuses").([]any)
	if len(statuses) == 0 {
		return nil
	}
	return statuses[0].(map[string]any)
}

func (e *env) phase(name string) string {
	return object.String(object.Path(e.get(pods+"/"+name), "status", "phase"))
}

func reasons(events []string) []string {
	var out []string
	for _, ev := range events {
		r, _, _ := strings.Cut(ev, " ")
		out = append(out, r)
	}
	return out
}

// TestSIM_3_KubeletLifecycle: a Pod goes Pending (ContainerCreating) →
// Running with an address of its node's pod CIDR, its containers' statuses
// and the kubelet's events; a readiness probe delays Ready; a command that
// sleeps and exits completes the Pod; an image tagged crash backs off in
// CrashLoopBackOff and restarts; an image that does not exist never pulls.
func TestSIM_3_KubeletLifecycle(t *testing.T) {
	e := newEnv(t, sim.Config{Nodes: 1})
	e.create(pods, podDoc("web", `{"containers":[{"name":"nginx","image":"nginx","readinessProbe":{"initialDelaySeconds":5,"httpGet":{"port":80}}}]}`))
	e.until(time.Minute, "web pending in ContainerCreating", func() bool {
		cs := e.containerStatus("web")
		return cs != nil && object.Path(cs, "state", "waiting", "reason") == "ContainerCreating"
	})
	if e.phase("web") != "Pending" {
		t.Errorf("phase %s", e.phase("web"))
	}
	e.until(time.Minute, "web running", func() bool { return e.phase("web") == "Running" })
	p := e.get(pods + "/web")
	if ip := object.String(object.Path(p, "status", "podIP")); !strings.HasPrefix(ip, "10.244.0.") || object.Path(p, "status", "hostIP") != "172.18.0.2" {
		t.Errorf("addresses %v %v", ip, object.Path(p, "status", "hostIP"))
	}
	cs := e.containerStatus("web")
	if cs["image"] != "docker.io/library/nginx:latest" || !strings.HasPrefix(object.String(cs["containerID"]), "containerd://") ||
		!strings.HasPrefix(object.String(cs["imageID"]), "docker.io/library/nginx@sha256:") || cs["ready"] != false || cs["started"] != true {
		t.Errorf("container status %v", cs)
	}
	if c := conditionOf(p, "Ready"); c["status"] != "False" || c["message"] != "containers with unready status: [nginx]" {
		t.Errorf("Ready before the probe's delay: %v", c)
	}
	e.until(time.Minute, "web ready", func() bool { return conditionOf(e.get(pods+"/web"), "Ready")["status"] == "True" })
	if got := reasons(e.events("default", "Pod", "web")); !slices.Equal(got, []string{"Scheduled", "Pulling", "Pulled", "Created", "Started"}) {
		t.Errorf("events %q", e.events("default", "Pod", "web"))
	}

	e.create(pods, podDoc("job", `{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","command":["sh","-c","sleep 3; exit 0"]}]}`))
	e.until(time.Minute, "job running", func() bool { return e.phase("job") == "Running" })
	e.until(time.Minute, "job done", func() bool { return e.phase("job") == "Succeeded" })
	if term := object.Path(e.containerStatus("job"), "state", "terminated"); object.Path(term, "reason") != "Completed" || object.Path(term, "exitCode") != nil && object.Int(object.Path(term, "exitCode")) != 0 {
		t.Errorf("job's container: %v", term)
	}

	// Logs: what the command echoes, its last lines, stamped with the start.
	e.create(pods, podDoc("echo", `{"containers":[{"name":"c","image":"busybox","command":["sh","-c","echo hello; echo world; sleep 3600"]}]}`))
	e.create(pods, podDoc("nowhere", `{"nodeSelector":{"no":"such"},"containers":[{"name":"c","image":"busybox"}]}`))
	if b, err := e.c.Do(e.ctx, "GET", pods+"/nowhere/log", "", nil); err != nil || len(b) != 0 {
		t.Errorf("log of a Pod on no node: %q, %v", b, err)
	}
	e.until(time.Minute, "echo creating", func() bool {
		return object.Path(e.containerStatus("echo"), "state", "waiting", "reason") == "ContainerCreating"
	})
	if _, err := e.c.Do(e.ctx, "GET", pods+"/echo/log", "", nil); err == nil || !strings.Contains(err.Error(), `container "c" in pod "echo" is waiting to start: ContainerCreating`) {
		t.Errorf("log of a container not started: %v", err)
	}
	e.until(time.Minute, "echo running", func() bool { return e.phase("echo") == "Running" })
	started := object.String(object.Path(e.containerStatus("echo"), "state", "running", "startedAt"))
	for query, want := range map[string]string{
		"":                             "hello\nworld\n",
		"?tailLines=1":                 "world\n",
		"?tailLines=0":                 "",
		"?tailLines=1&timestamps=true": strings.TrimSuffix(started, "Z") + ".000000000Z world\n",
		"?container=c&tailLines=5":     "hello\nworld\n",
		"?previous=true":               `previous terminated container "c" in pod "echo" not found`,
		"?container=d":                 "container d is not valid for pod echo",
		"?tailLines=-1":                "must be greater than or equal to 0",
	} {
		b, err := e.c.Do(e.ctx, "GET", pods+"/echo/log"+query, "", nil)
		if got := string(b); err != nil && !strings.Contains(err.Error(), want) || err == nil && got != want {
			t.Errorf("log%s: %q, %v; want %q", query, got, err, want)
		}
	}

	e.create(pods, podDoc("crash", `{"containers":[{"name":"c","image":"busybox:crash"}]}`))
	e.until(time.Minute, "crash backing off", func() bool {
		return object.Path(e.containerStatus("crash"), "state", "waiting", "reason") == "CrashLoopBackOff"
	})
	e.until(2*time.Minute, "crash restarted", func() bool { return object.Int(e.containerStatus("crash")["restartCount"]) >= 1 })
	if got := reasons(e.events("default", "Pod", "crash")); !slices.Contains(got, "BackOff") {
		t.Errorf("crash events %q", got)
	}

	e.create(pods, podDoc("typo", `{"containers":[{"name":"c","image":"nginx:doesnotexist"}]}`))
	e.until(time.Minute, "typo ErrImagePull", func() bool {
		return object.Path(e.containerStatus("typo"), "state", "waiting", "reason") == "ErrImagePull"
	})
	e.until(time.Minute, "typo ImagePullBackOff", func() bool {
		return object.Path(e.containerStatus("typo"), "state", "waiting", "reason") == "ImagePullBackOff"
	})
	if e.phase("typo") != "Pending" {
		t.Errorf("typo phase %s", e.phase("typo"))
	}
	e.create(pods, podDoc("missing", `{"containers":[{"name":"c","image":"webserver:404"},{"name":"d","image":"redis:nonexistent"},{"name":"e","image":"foo:non-existent"}]}`))
	e.until(time.Minute, "webserver:404, redis:nonexistent and foo:non-existent ErrImagePull", func() bool {
		p := e.get(pods + "/missing")
		statuses := object.Objects(object.Child(p, "status"), "containerStatuses")
		for _, cs := range statuses {
			if object.Path(cs, "state", "waiting", "reason") != "ErrImagePull" {
				return false
			}
		}
		return len(statuses) == 3
	})
}

// TestSIM_5_IdleSchedulesNothing: once the simulation has settled, nothing
// in it is waiting to happen (no timer), and time passing changes nothing.
func TestSIM_5_IdleSchedulesNothing(t *testing.T) {
	e := newEnv(t, sim.Config{})
	e.create(deployments, webDeployment(2))
	e.until(time.Minute, "web rolled out", func() bool { return e.deploymentDone("default", "web") })
	e.idle("an idle simulation")
}

// TestSIM_3_KubeletRefusesHostPortConflict: a Pod bound to a node where a
// started Pod already binds its host port is refused by the kubelet (Failed,
// NodePorts, kubelet's message and event); once the port is free, a new Pod
// binding it runs.
func TestSIM_3_KubeletRefusesHostPortConflict(t *testing.T) {
	e := newEnv(t, sim.Config{})
	withPort := func(name string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"nodeName":"kubeplay-worker",` +
			`"containers":[{"name":"c","image":"httpd","ports":[{"name":"conflict","containerPort":21017,"hostPort":21017}]}]}}`
	}
	e.create(pods, withPort("holder"))
	e.until(time.Minute, "holder running", func() bool { return e.phase("holder") == "Running" })
	e.create(pods, withPort("late"))
	e.until(time.Minute, "late refused", func() bool { return e.phase("late") == "Failed" })
	st := object.Child(e.get(pods+"/late"), "status")
	const why = "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports"
	if st["reason"] != "NodePorts" || st["message"] != "Pod was rejected: "+why || st["containerStatuses"] != nil {
		t.Errorf("refused Pod's status %v", st)
	}
	if got := e.events("default", "Pod", "late"); !slices.Equal(got, []string{"NodePorts " + why}) {
		t.Errorf("refused Pod's events %q", got)
	}
	if _, err := e.c.Delete(e.ctx, pods+"/holder"); err != nil {
		t.Fatal(err)
	}
	e.until(time.Minute, "holder gone", func() bool { return len(e.list(pods+"?fieldSelector=metadata.name%3Dholder")) == 0 })
	e.create(pods, withPort("next"))
	e.until(time.Minute, "next running", func() bool { return e.phase("next") == "Running" })
}
