package sim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/web"
)

// How long the simulated containers take, at speed 1.
const (
	pullTime       = 1500 * time.Millisecond // an image the node does not have
	cachedPullTime = 500 * time.Millisecond  // pullPolicy Always, image on the node
	runTime        = time.Second             // a container that runs to completion
	backoffBase    = 10 * time.Second        // kubelet's crash and pull back-off, doubling
	backoffMax     = 300 * time.Second
)

// kubelet is one simulated node's kubelet (kwok's idea): it watches the Pods
// bound to its node and moves them through their lives as a kubelet reports
// them, with its own identity (system:node:NAME) and events:
//
//   - admitted: Pending, containers waiting in ContainerCreating, "Pulling";
//   - pulled (1.5s; 0.5s for an image the node has, none with IfNotPresent):
//     Running, a pod IP from the node's pod CIDR, "Pulled", "Created",
//     "Started"; ready at once, or after a readiness probe's
//     initialDelaySeconds;
//   - a container ends when its command says so (`sleep N` runs N seconds,
//     `exit N` exits with N) or, where the Pod's restartPolicy is not Always,
//     after a second; an image tagged "crash" (busybox:crash) exits with 1
//     after a second. Ended containers restart as the restartPolicy says,
//     after kubelet's back-off (CrashLoopBackOff); a Pod whose containers are
//     done Succeeds or Fails;
//   - an image whose name says "notfound" or "doesnotexist" never pulls:
//     ErrImagePull, then ImagePullBackOff, again and again;
//   - deleted: its containers are stopped ("Killing") and the Pod is removed
//     with a grace period of 0, as a kubelet finishes a graceful deletion.
//
// Durations are divided by the simulation's speed. Nothing is timed while no
// Pod is on its way somewhere.
type kubelet struct {
	name   string
	index  int
	c      *client.Client
	events *controllers.Recorder
	pods   *client.Informer
	queue  *controllers.Queue
	expect *controllers.Expectations
	clock  clock.Clock
	speed  float64

	mu      sync.Mutex
	images  map[string]bool      // images the node has pulled
	ips     map[string]string    // pod IP → Pod key
	lastIP  int                  // the last address given out
	backoff map[string]time.Time // Pod key/container → when its image pull back-off began
}

func newKubelet(h web.Handler, clk clock.Clock, index int, speed float64) *kubelet {
	name := NodeName(index)
	c := nodeClient(h, name)
	k := &kubelet{name: name, index: index, c: c, clock: clk, speed: speed,
		events: controllers.NewRecorder(c, clk, "kubelet", name),
		queue:  controllers.NewQueue(clk), expect: controllers.NewExpectations(),
		images: map[string]bool{}, ips: map[string]string{}, lastIP: 1, backoff: map[string]time.Time{}}
	enqueue := func(pod object.Object) { k.queue.Add(client.Key(pod)) }
	k.pods = client.NewInformer(c, "/api/v1/pods?fieldSelector=spec.nodeName%3D"+name, client.Handler{
		Add: func(pod object.Object) {
			k.holdIP(pod)
			enqueue(pod)
		},
		Update: func(_, pod object.Object) { enqueue(pod) },
		Delete: enqueue,
	}, nil, clk)
	return k
}

func (k *kubelet) run(ctx context.Context) {
	go k.pods.Run(ctx)
	if controllers.Synced(ctx, k.pods) {
		k.queue.Run(ctx, k.sync)
	}
}

// after is a simulated duration as the clock runs it.
func (k *kubelet) after(d time.Duration) time.Duration { return time.Duration(float64(d) / k.speed) }

// holdIP notes the IP of a Pod the kubelet finds running (after a restart).
func (k *kubelet) holdIP(pod object.Object) {
	if ip := object.String(object.Path(pod, "status", "podIP")); ip != "" && object.Path(pod, "spec", "hostNetwork") != true {
		k.mu.Lock()
		k.ips[ip] = client.Key(pod)
		k.mu.Unlock()
	}
}

// forget drops what the kubelet held for a Pod that is gone.
func (k *kubelet) forget(key string) {
	k.expect.Forget(key)
	k.mu.Lock()
	defer k.mu.Unlock()
	for ip, owner := range k.ips {
		if owner == key {
			delete(k.ips, ip)
		}
	}
	for c := range k.backoff {
		if strings.HasPrefix(c, key+"/") {
			delete(k.backoff, c)
		}
	}
}

// sync brings the Pod key one step on, and comes back when the next is due.
func (k *kubelet) sync(ctx context.Context, key string) error {
	cur, ok := k.pods.Get(key)
	if !ok {
		k.forget(key)
		return nil
	}
	if !k.expect.Satisfied(key) {
		return nil // the informer brings our last write, and the key back
	}
	pod := object.DeepCopy(cur)
	if object.Meta(pod)["deletionTimestamp"] != nil {
		return k.kill(ctx, pod)
	}
	if phase := object.Path(pod, "status", "phase"); phase == "Succeeded" || phase == "Failed" {
		return nil
	}
	now := k.clock.Now()
	p := &podRun{k: k, pod: pod, now: now}
	p.step(ctx)
	if p.changed {
		written, err := k.c.Update(ctx, podPath(pod)+"/status", pod)
		if err != nil {
			if client.IsNotFound(err) {
				return nil
			}
			return err
		}
		k.expect.Written(key, k.pods, written)
	}
	if !p.next.IsZero() {
		k.queue.AddAfter(key, p.next.Sub(now))
	}
	return nil
}

// kill stops a Pod being deleted and removes it, as the kubelet does once its
// containers have stopped.
func (k *kubelet) kill(ctx context.Context, pod object.Object) error {
	status, _ := pod["status"].(map[string]any)
	for _, cs := range object.Objects(status, "containerStatuses") {
		if object.Path(cs, "state", "running") != nil {
			name := object.String(cs["name"])
			k.events.Eventf(ctx, containerRef(pod, name), controllers.Normal, "Killing", "Stopping container %s", name)
		}
	}
	body, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0,
		"preconditions": map[string]any{"uid": object.MetaString(pod, "uid")}})
	_, err := k.c.Do(ctx, web.MethodDelete, podPath(pod), "application/json", body)
	if client.IsNotFound(err) || client.IsConflict(err) {
		return nil
	}
	return err
}

func podPath(pod object.Object) string {
	return "/api/v1/namespaces/" + object.MetaString(pod, "namespace") + "/pods/" + object.MetaString(pod, "name")
}

// containerRef is the reference a kubelet's events about a container carry.
func containerRef(pod object.Object, name string) map[string]any {
	ref := controllers.Ref(pod, "v1", "Pod")
	ref["fieldPath"] = "spec.containers{" + name + "}"
	return ref
}

// podRun is one step of a Pod's simulated life.
type podRun struct {
	k       *kubelet
	pod     object.Object
	now     time.Time
	changed bool
	next    time.Time // when the next step is due; zero: none
}

// due asks to come back at t.
func (p *podRun) due(t time.Time) {
	if p.next.IsZero() || t.Before(p.next) {
		p.next = t
	}
}

func (p *podRun) event(ctx context.Context, container, typ, reason, format string, args ...any) {
	p.k.events.Eventf(ctx, containerRef(p.pod, container), typ, reason, format, args...)
}

// step moves every container one step on and derives the Pod's phase,
// address and conditions from them.
func (p *podRun) step(ctx context.Context) {
	spec, _ := p.pod["spec"].(map[string]any)
	status, _ := p.pod["status"].(map[string]any)
	if status == nil {
		status = map[string]any{}
		p.pod["status"] = status
	}
	now := registry.Timestamp(p.now)
	if status["startTime"] == nil {
		hostIP := nodeIP(p.k.index)
		status["hostIP"], status["hostIPs"], status["startTime"] = hostIP, []any{map[string]any{"ip": hostIP}}, now
		p.changed = true
	}
	start, _ := time.Parse(time.RFC3339, object.String(status["startTime"]))
	policy := object.String(spec["restartPolicy"])
	containers := object.Objects(spec, "containers")
	statuses := map[string]map[string]any{}
	for _, cs := range object.Objects(status, "containerStatuses") {
		statuses[object.String(cs["name"])] = cs
	}
	var out []any
	var unready []string
	running, done, failed, started := 0, 0, 0, false
	for _, c := range containers {
		name := object.String(c["name"])
		cs := statuses[name]
		if cs == nil {
			cs = map[string]any{"name": name, "image": c["image"], "imageID": "", "lastState": map[string]any{},
				"ready": false, "restartCount": 0, "started": false, "state": map[string]any{"waiting": map[string]any{"reason": "ContainerCreating"}}}
			p.changed = true
			if p.mustPull(c) {
				p.event(ctx, name, controllers.Normal, "Pulling", "Pulling image %q", c["image"])
			}
		}
		p.container(ctx, c, cs, start, policy)
		out = append(out, cs)
		state, _ := cs["state"].(map[string]any)
		exit := object.Int(object.Path(state, "terminated", "exitCode"))
		switch {
		case state["running"] != nil:
			running++
		case state["terminated"] != nil && !restarts(policy, exit):
			done++
			if exit != 0 {
				failed++
			}
		}
		started = started || state["running"] != nil || state["terminated"] != nil || object.Path(cs, "lastState", "terminated") != nil
		if cs["ready"] != true {
			unready = append(unready, name)
		}
	}
	status["containerStatuses"] = out
	phase := "Pending"
	switch {
	case done == len(containers) && failed > 0:
		phase = "Failed"
	case done == len(containers):
		phase = "Succeeded"
	case running > 0 || started:
		phase = "Running"
	}
	if phase != "Pending" && status["podIP"] == nil {
		ip := p.k.allocateIP(client.Key(p.pod), spec["hostNetwork"] == true)
		status["podIP"], status["podIPs"] = ip, []any{map[string]any{"ip": ip}}
	}
	if status["phase"] != phase {
		status["phase"], p.changed = phase, true
	}
	finished := phase == "Succeeded" || phase == "Failed"
	p.conditions(status, now, status["podIP"] != nil && !finished, unready, finished)
}

// mustPull says whether starting c pulls its image (and sends "Pulling").
func (p *podRun) mustPull(c map[string]any) bool {
	p.k.mu.Lock()
	defer p.k.mu.Unlock()
	switch c["imagePullPolicy"] {
	case "Never":
		return false
	case "IfNotPresent":
		return !p.k.images[object.String(c["image"])]
	}
	return true
}

// container moves one container's status on, if its next step is due.
func (p *podRun) container(ctx context.Context, c, cs map[string]any, start time.Time, policy string) {
	name, image := object.String(c["name"]), object.String(c["image"])
	state, _ := cs["state"].(map[string]any)
	restartCount := object.Int(cs["restartCount"])
	switch {
	case object.Path(state, "waiting", "reason") == "CrashLoopBackOff":
		since, _ := time.Parse(time.RFC3339, object.String(object.Path(cs, "lastState", "terminated", "finishedAt")))
		if at := since.Add(p.k.after(backoff(restartCount))); at.After(p.now) {
			p.due(at)
			return
		}
		cs["restartCount"] = restartCount + 1
		p.startContainer(ctx, c, cs, policy)
	case state["waiting"] != nil:
		pull, ok := p.pull(c)
		since := start
		if reason := object.Path(state, "waiting", "reason"); reason != "ContainerCreating" {
			// Pulling again after the image pull back-off.
			p.k.mu.Lock()
			since = p.k.backoff[client.Key(p.pod)+"/"+name]
			p.k.mu.Unlock()
			pull = p.k.after(backoff(restartCount))
		}
		if at := since.Add(pull); at.After(p.now) {
			p.due(at)
			return
		}
		if !ok {
			p.pullFailed(ctx, cs, name, image)
			return
		}
		if pull > 0 || c["imagePullPolicy"] == "Always" {
			p.event(ctx, name, controllers.Normal, "Pulled",
				"Successfully pulled image %q in %v (%v including waiting). Image size: %d bytes.", image, pull, pull, imageSize(image))
		} else {
			p.event(ctx, name, controllers.Normal, "Pulled", "Container image %q already present on machine", image)
		}
		p.k.mu.Lock()
		p.k.images[image] = true
		p.k.mu.Unlock()
		p.startContainer(ctx, c, cs, policy)
	case state["running"] != nil:
		started, _ := time.Parse(time.RFC3339, object.String(object.Path(state, "running", "startedAt")))
		if cs["ready"] != true {
			if at := started.Add(p.k.after(readinessDelay(c))); at.After(p.now) {
				p.due(at)
			} else {
				cs["ready"], p.changed = true, true
			}
		}
		exit, after, ends := ending(c, image, policy)
		if !ends {
			return
		}
		if at := started.Add(p.k.after(after)); at.After(p.now) {
			p.due(at)
			return
		}
		reason := "Completed"
		if exit != 0 {
			reason = "Error"
		}
		cs["state"] = map[string]any{"terminated": map[string]any{"exitCode": exit, "reason": reason,
			"startedAt": object.Path(state, "running", "startedAt"), "finishedAt": registry.Timestamp(p.now),
			"containerID": cs["containerID"]}}
		cs["ready"], cs["started"], p.changed = false, false, true
		if restarts(policy, exit) {
			p.due(p.now)
		}
	case state["terminated"] != nil:
		if !restarts(policy, object.Int(object.Path(state, "terminated", "exitCode"))) {
			return
		}
		// Back off, then start again.
		cs["lastState"] = map[string]any{"terminated": state["terminated"]}
		podName, ns, uid := object.MetaString(p.pod, "name"), object.MetaString(p.pod, "namespace"), object.MetaString(p.pod, "uid")
		cs["state"] = map[string]any{"waiting": map[string]any{"reason": "CrashLoopBackOff",
			"message": fmt.Sprintf("back-off %v restarting failed container=%s pod=%s_%s(%s)", backoff(restartCount), name, podName, ns, uid)}}
		p.changed = true
		p.event(ctx, name, controllers.Warning, "BackOff", "Back-off restarting failed container %s in pod %s_%s(%s)", name, podName, ns, uid)
		p.due(p.now.Add(p.k.after(backoff(restartCount))))
	}
}

// startContainer runs c: "Created", "Started", a running state.
func (p *podRun) startContainer(ctx context.Context, c, cs map[string]any, policy string) {
	name, image := object.String(c["name"]), object.String(c["image"])
	p.event(ctx, name, controllers.Normal, "Created", "Created container: %s", name)
	p.event(ctx, name, controllers.Normal, "Started", "Started container %s", name)
	ref := normalizeImage(image)
	sum, id := sha256.Sum256([]byte(ref)), sha256.Sum256([]byte(object.NewUID()))
	repo := ref
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		repo = ref[:i]
	}
	cs["containerID"] = "containerd://" + hex.EncodeToString(id[:])
	cs["image"], cs["imageID"] = ref, repo+"@sha256:"+hex.EncodeToString(sum[:])
	cs["state"] = map[string]any{"running": map[string]any{"startedAt": registry.Timestamp(p.now)}}
	cs["started"], cs["ready"], p.changed = true, readinessDelay(c) == 0, true
	if cs["ready"] != true {
		p.due(p.now.Add(p.k.after(readinessDelay(c))))
	}
	if _, after, ends := ending(c, image, policy); ends {
		p.due(p.now.Add(p.k.after(after)))
	}
}

// readinessDelay is how long a started container takes to be ready: its
// readiness probe's initialDelaySeconds.
func readinessDelay(c map[string]any) time.Duration {
	return time.Duration(object.Int(object.Path(c, "readinessProbe", "initialDelaySeconds"))) * time.Second
}

// pull is how long pulling c's image takes, and whether it succeeds.
func (p *podRun) pull(c map[string]any) (time.Duration, bool) {
	image := object.String(c["image"])
	if strings.Contains(image, "notfound") || strings.Contains(image, "doesnotexist") {
		return p.k.after(pullTime), false
	}
	p.k.mu.Lock()
	have := p.k.images[image]
	p.k.mu.Unlock()
	switch {
	case c["imagePullPolicy"] == "Never" || have && c["imagePullPolicy"] == "IfNotPresent":
		return 0, true
	case have:
		return p.k.after(cachedPullTime), true
	}
	return p.k.after(pullTime), true
}

// pullFailed reports an image that cannot be pulled, and backs off: the
// container waits in ErrImagePull, then ImagePullBackOff, and pulls again.
func (p *podRun) pullFailed(ctx context.Context, cs map[string]any, name, image string) {
	p.k.mu.Lock()
	p.k.backoff[client.Key(p.pod)+"/"+name] = p.now
	p.k.mu.Unlock()
	ref := normalizeImage(image)
	why := fmt.Sprintf("rpc error: code = NotFound desc = failed to pull and unpack image %q: failed to resolve reference %q: %s: not found", ref, ref, ref)
	if object.Path(cs, "state", "waiting", "reason") == "ErrImagePull" {
		cs["state"] = map[string]any{"waiting": map[string]any{"reason": "ImagePullBackOff",
			"message": fmt.Sprintf("Back-off pulling image %q: ErrImagePull: %s", image, why)}}
		p.event(ctx, name, controllers.Normal, "BackOff", "Back-off pulling image %q", image)
		p.event(ctx, name, controllers.Warning, "Failed", "Error: ImagePullBackOff")
	} else {
		cs["state"] = map[string]any{"waiting": map[string]any{"reason": "ErrImagePull", "message": why}}
		p.event(ctx, name, controllers.Warning, "Failed", "Failed to pull image %q: %s", image, why)
		p.event(ctx, name, controllers.Warning, "Failed", "Error: ErrImagePull")
	}
	p.changed = true
	p.due(p.now.Add(p.k.after(backoff(object.Int(cs["restartCount"])))))
}

// ending says whether a running container ends by itself, after how long,
// and with which exit code.
func ending(c map[string]any, image, policy string) (exit int64, after time.Duration, ends bool) {
	if strings.HasSuffix(image, ":crash") {
		return 1, runTime, true
	}
	words := strings.Fields(strings.Join(append(object.Strings(c, "command"), object.Strings(c, "args")...), " "))
	after = runTime
	for i, w := range words {
		if i+1 < len(words) && (w == "sleep" || w == "exit") {
			n := object.Int(strings.Trim(words[i+1], ";&|\"'"))
			if w == "sleep" {
				after = time.Duration(n) * time.Second
			} else {
				exit = n
			}
			ends = true
		}
	}
	return exit, after, ends || policy == "Never" || policy == "OnFailure"
}

// restarts says whether a container that exited with exit starts again.
func restarts(policy string, exit int64) bool {
	return policy == "" || policy == "Always" || policy == "OnFailure" && exit != 0
}

// conditions sets the Pod's conditions as a kubelet reports them, keeping
// each one's transition time while its status holds.
func (p *podRun) conditions(status map[string]any, now string, sandbox bool, unready []string, finished bool) {
	reason, msg := "", ""
	switch {
	case finished:
		reason = "PodCompleted"
	case len(unready) > 0:
		reason, msg = "ContainersNotReady", "containers with unready status: ["+strings.Join(unready, " ")+"]"
	}
	ready := reason == ""
	want := []struct {
		typ string
		ok  bool
	}{{"PodReadyToStartContainers", sandbox}, {"Initialized", true}, {"Ready", ready}, {"ContainersReady", ready}}
	old := object.Objects(status, "conditions")
	var out []any
	for _, w := range want {
		c := map[string]any{"type": w.typ, "status": "True", "lastProbeTime": nil, "lastTransitionTime": now}
		if !w.ok {
			c["status"] = "False"
			if w.typ == "Ready" || w.typ == "ContainersReady" {
				c["reason"] = reason
				if msg != "" {
					c["message"] = msg
				}
			}
		}
		if i := slices.IndexFunc(old, func(o map[string]any) bool { return o["type"] == w.typ }); i >= 0 && old[i]["status"] == c["status"] {
			c["lastTransitionTime"] = old[i]["lastTransitionTime"]
		}
		out = append(out, c)
	}
	for _, o := range old { // the scheduler's, and any other
		if t := o["type"]; t != "PodReadyToStartContainers" && t != "Initialized" && t != "Ready" && t != "ContainersReady" {
			out = append(out, o)
		}
	}
	if !object.Equal(out, status["conditions"]) {
		status["conditions"], p.changed = out, true
	}
}

// allocateIP gives a Pod the next free address of the node's pod CIDR
// (10.244.N.2 to .254, in turn, as host-local IPAM does), or the node's own
// for a Pod on the host network.
func (k *kubelet) allocateIP(key string, hostNetwork bool) string {
	if hostNetwork {
		return nodeIP(k.index)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for range 254 {
		k.lastIP = k.lastIP%254 + 1
		if k.lastIP == 1 {
			continue
		}
		ip := fmt.Sprintf("10.244.%d.%d", k.index, k.lastIP)
		if _, used := k.ips[ip]; !used {
			k.ips[ip] = key
			return ip
		}
	}
	return ""
}

// backoff is the kubelet's back-off after n restarts: 10s, doubling to 5m.
func backoff(n int64) time.Duration {
	if n >= 5 {
		return backoffMax
	}
	return min(backoffBase<<max(n, 0), backoffMax)
}

// normalizeImage is an image reference as containerd reports it:
// docker.io/library/nginx:latest for nginx.
func normalizeImage(image string) string {
	name, digest, _ := strings.Cut(image, "@")
	first, _, nested := strings.Cut(name, "/")
	switch {
	case !nested:
		name = "docker.io/library/" + name
	case !strings.ContainsAny(first, ".:") && first != "localhost":
		name = "docker.io/" + name
	}
	if digest != "" {
		return name + "@" + digest
	}
	if i := strings.LastIndex(name, ":"); i < strings.LastIndex(name, "/") {
		name += ":latest"
	}
	return name
}

// imageSize is a plausible, stable size for an image.
func imageSize(image string) int64 {
	sum := sha256.Sum256([]byte(image))
	return 20_000_000 + int64(sum[0])<<18 + int64(sum[1])<<10
}
