package sim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"kubeplay/core/object"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/web"
)

// How long the simulated containers take, at speed 1.
const (
	pullTime       = 1500 * time.Millisecond // an image the node does not have
	cachedPullTime = 500 * time.Millisecond  // pullPolicy Always, image on the node
	runTime        = time.Second             // a container that runs to completion
	backoffBase    = 10 * time.Second        // kubelet's crash and pull back-off, doubling
	backoffMax     = 300 * time.Second
	renewEvery     = 10 * time.Second // a node Lease's renewal: a quarter of its 40s
	reportEvery    = 5 * time.Minute  // a node status report with nothing changed (nodeStatusReportFrequency)
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
// Pod is on its way somewhere: the node's Lease is renewed (every 10 seconds
// at most, as a kubelet's heartbeat) only while the kubelet has work, so its
// renewTime says when the node last did something; so is the node's status
// (its conditions' lastHeartbeatTime), every 5 minutes at most and at the
// first work after a start, as a kubelet reports an unchanged status.
type kubelet struct {
	name   string
	index  int
	c      *client.Client
	events *controllers.Recorder
	pods   *client.TypedInformer[*pod]
	queue  *controllers.Queue
	expect *controllers.Expectations
	clock  clock.Clock
	speed  float64

	mu       sync.Mutex
	images   map[string]bool      // images the node has pulled
	ips      map[string]string    // pod IP → Pod key
	lastIP   int                  // the last address given out
	backoff  map[string]time.Time // Pod key/container → when its image pull back-off began
	renewed  time.Time            // the Lease's last renewal
	reported time.Time            // the node status's last report
}

func newKubelet(h web.Handler, clk clock.Clock, index int, speed float64) *kubelet {
	name := NodeName(index)
	c := nodeClient(h, name)
	k := &kubelet{name: name, index: index, c: c, clock: clk, speed: speed,
		events: controllers.NewRecorder(c, clk, "kubelet", name),
		queue:  controllers.NewQueue(clk), expect: controllers.NewExpectations(),
		images: map[string]bool{}, ips: map[string]string{}, lastIP: 1, backoff: map[string]time.Time{}}
	enqueue := func(p *pod) { k.queue.Add(p.Metadata.Key()) }
	k.pods = client.NewTypedInformer(c, "/api/v1/pods?fieldSelector=spec.nodeName%3D"+name, controllers.Codec[pod](),
		client.TypedHandler[*pod]{
			Add: func(p *pod) {
				if ip := p.Status.PodIP; ip != "" && !p.Spec.HostNetwork { // a Pod found running (after a restart)
					k.mu.Lock()
					k.ips[ip] = p.Metadata.Key()
					k.mu.Unlock()
				}
				enqueue(p)
			},
			Update: func(_, p *pod) { enqueue(p) },
			Delete: enqueue,
		}, nil, clk)
	return k
}

// Pending is how many Pods wait for a step.
func (k *kubelet) Pending() int { return k.queue.Pending() }

// Run works until ctx is done.
func (k *kubelet) Run(ctx context.Context) { controllers.Run(ctx, k.queue, k.sync, k.pods) }

// after is a simulated duration as the clock runs it.
func (k *kubelet) after(d time.Duration) time.Duration { return time.Duration(float64(d) / k.speed) }

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

// heartbeat renews the node's Lease, and reports its status, when due.
func (k *kubelet) heartbeat(ctx context.Context) {
	k.mu.Lock()
	now := k.clock.Now()
	renew := now.Sub(k.renewed) >= renewEvery
	if renew {
		k.renewed = now
	}
	report := k.reported.IsZero() || now.Sub(k.reported) >= reportEvery
	if report {
		k.reported = now
	}
	k.mu.Unlock()
	// A missed heartbeat or report is the next one's.
	if renew {
		lease := fmt.Sprintf(`{"spec":{"renewTime":%q}}`, controllers.MicroTimestamp(now))
		_, _ = k.c.Do(ctx, web.MethodPatch, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/"+k.name,
			"application/merge-patch+json", []byte(lease))
	}
	if report {
		var conditions []string
		for _, typ := range []string{"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"} {
			conditions = append(conditions, fmt.Sprintf(`{"type":%q,"lastHeartbeatTime":%q}`, typ, object.Timestamp(now)))
		}
		status := `{"status":{"conditions":[` + strings.Join(conditions, ",") + `]}}`
		_, _ = k.c.Do(ctx, web.MethodPatch, "/api/v1/nodes/"+k.name+"/status", "application/strategic-merge-patch+json", []byte(status))
	}
}

// sync brings the Pod key one step on, and comes back when the next is due.
func (k *kubelet) sync(ctx context.Context, key string) error {
	k.heartbeat(ctx)
	cur, ok := k.pods.Get(key)
	if !ok {
		k.forget(key)
		return nil
	}
	if !k.expect.Satisfied(key) {
		return nil // the informer brings our last write, and the key back
	}
	if cur.Metadata.DeletionTimestamp != "" {
		return k.kill(ctx, cur)
	}
	if cur.Status.Phase == "Succeeded" || cur.Status.Phase == "Failed" {
		return nil
	}
	now := k.clock.Now()
	next := *cur
	next.Status.Conditions = slices.Clone(cur.Status.Conditions)
	next.Status.ContainerStatuses = slices.Clone(cur.Status.ContainerStatuses)
	p := &podRun{k: k, pod: &next, now: now}
	if cur.Status.StartTime == "" && !k.admit(cur) {
		p.reject(ctx)
	} else {
		p.step(ctx)
	}
	if before, after := controllers.MustJSON(cur.Status), controllers.MustJSON(next.Status); before != after {
		data, err := controllers.Send(ctx, k.c, web.MethodPut, podPath(cur)+"/status", &next)
		if err != nil {
			if client.IsNotFound(err) {
				return nil
			}
			return err
		}
		k.expect.Written(key, k.pods, controllers.Version(data))
	}
	if !p.next.IsZero() {
		k.queue.AddAfter(key, p.next.Sub(now))
	}
	return nil
}

// kill stops a Pod being deleted and removes it, as the kubelet does once its
// containers have stopped.
func (k *kubelet) kill(ctx context.Context, p *pod) error {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Running != nil {
			k.events.Eventf(ctx, containerRef(p, cs.Name), controllers.Normal, "Killing", "Stopping container %s", cs.Name)
		}
	}
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"DeleteOptions","gracePeriodSeconds":0,"preconditions":{"uid":%q}}`, p.Metadata.UID)
	_, err := k.c.Do(ctx, web.MethodDelete, podPath(p), "application/json", []byte(body))
	if client.IsNotFound(err) || client.IsConflict(err) {
		return nil
	}
	return err
}

func podPath(p *pod) string {
	return "/api/v1/namespaces/" + p.Metadata.Namespace + "/pods/" + p.Metadata.Name
}

// containerRef is the reference a kubelet's events about a container carry.
func containerRef(p *pod, name string) controllers.Reference {
	ref := controllers.Ref(&p.Metadata, "v1", "Pod")
	ref.FieldPath = "spec.containers{" + name + "}"
	return ref
}

// podRun is one step of a Pod's simulated life.
type podRun struct {
	k    *kubelet
	pod  *pod
	now  time.Time
	next time.Time // when the next step is due; zero: none
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

// since is when a status timestamp was, at the latest now.
func (p *podRun) since(t string) time.Time {
	at, err := time.Parse(time.RFC3339, t)
	if err != nil {
		return p.now
	}
	return at
}

// step moves every container one step on and derives the Pod's phase,
// address and conditions from them.
func (p *podRun) step(ctx context.Context) {
	spec, status := &p.pod.Spec, &p.pod.Status
	now := object.Timestamp(p.now)
	if status.StartTime == "" {
		hostIP := nodeIP(p.k.index)
		status.HostIP, status.HostIPs, status.StartTime = hostIP, []controllers.IP{{IP: hostIP}}, now
	}
	statuses := status.ContainerStatuses
	status.ContainerStatuses = nil
	var unready []string
	running, done, failed, started := 0, 0, 0, false
	for i := range spec.Containers {
		c := &spec.Containers[i]
		var cs controllers.ContainerStatus
		if j := slices.IndexFunc(statuses, func(s controllers.ContainerStatus) bool { return s.Name == c.Name }); j >= 0 {
			cs = statuses[j]
		} else {
			no := false
			cs = controllers.ContainerStatus{Name: c.Name, Image: c.Image, Started: &no}
			cs.State.Waiting = &controllers.Waiting{Reason: "ContainerCreating"}
			if p.mustPull(c) {
				p.event(ctx, c.Name, controllers.Normal, "Pulling", "Pulling image %q", c.Image)
			}
		}
		p.container(ctx, c, &cs)
		status.ContainerStatuses = append(status.ContainerStatuses, cs)
		switch t := cs.State.Terminated; {
		case cs.State.Running != nil:
			running++
		case t != nil && !restarts(spec.RestartPolicy, t.ExitCode):
			done++
			if t.ExitCode != 0 {
				failed++
			}
		}
		started = started || cs.State.Running != nil || cs.State.Terminated != nil || cs.LastState.Terminated != nil
		if !cs.Ready {
			unready = append(unready, c.Name)
		}
	}
	switch n := len(spec.Containers); {
	case done == n && failed > 0:
		status.Phase = "Failed"
	case done == n:
		status.Phase = "Succeeded"
	case running > 0 || started:
		status.Phase = "Running"
	default:
		status.Phase = "Pending"
	}
	if status.Phase != "Pending" && status.PodIP == "" {
		ip := p.k.allocateIP(p.pod.Metadata.Key(), spec.HostNetwork)
		status.PodIP, status.PodIPs = ip, []controllers.IP{{IP: ip}}
	}
	finished := status.Phase == "Succeeded" || status.Phase == "Failed"
	p.conditions(now, status.PodIP != "" && !finished, unready, finished)
}

// mustPull says whether starting c pulls its image (and sends "Pulling").
func (p *podRun) mustPull(c *controllers.Container) bool {
	p.k.mu.Lock()
	defer p.k.mu.Unlock()
	return c.ImagePullPolicy != "Never" && !(c.ImagePullPolicy == "IfNotPresent" && p.k.images[c.Image])
}

// container moves one container's status on, if its next step is due.
func (p *podRun) container(ctx context.Context, c *controllers.Container, cs *controllers.ContainerStatus) {
	policy := p.pod.Spec.RestartPolicy
	podName, ns, uid := p.pod.Metadata.Name, p.pod.Metadata.Namespace, p.pod.Metadata.UID
	switch state := cs.State; {
	case state.Waiting != nil && state.Waiting.Reason == "CrashLoopBackOff":
		if at := p.since(cs.LastState.Terminated.FinishedAt).Add(p.k.after(backoff(cs.RestartCount))); at.After(p.now) {
			p.due(at)
			return
		}
		cs.RestartCount++
		p.startContainer(ctx, c, cs)
	case state.Waiting != nil:
		pull, ok := p.pull(c)
		since := p.since(p.pod.Status.StartTime)
		if state.Waiting.Reason != "ContainerCreating" {
			// Pulling again after the image pull back-off.
			p.k.mu.Lock()
			since = p.k.backoff[p.pod.Metadata.Key()+"/"+c.Name]
			p.k.mu.Unlock()
			pull = p.k.after(backoff(cs.RestartCount))
		}
		if at := since.Add(pull); at.After(p.now) {
			p.due(at)
			return
		}
		if !ok {
			p.pullFailed(ctx, c, cs)
			return
		}
		if pull > 0 || c.ImagePullPolicy == "Always" {
			p.event(ctx, c.Name, controllers.Normal, "Pulled",
				"Successfully pulled image %q in %v (%v including waiting). Image size: %d bytes.", c.Image, pull, pull, imageSize(c.Image))
		} else {
			p.event(ctx, c.Name, controllers.Normal, "Pulled", "Container image %q already present on machine", c.Image)
		}
		p.k.mu.Lock()
		p.k.images[c.Image] = true
		p.k.mu.Unlock()
		p.startContainer(ctx, c, cs)
	case state.Running != nil:
		started := p.since(state.Running.StartedAt)
		if !cs.Ready {
			if at := started.Add(p.k.after(readinessDelay(c))); at.After(p.now) {
				p.due(at)
			} else {
				cs.Ready = true
			}
		}
		exit, after, ends := ending(c, policy)
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
		no := false
		cs.State = controllers.ContainerState{Terminated: &controllers.Terminated{ExitCode: exit, Reason: reason,
			StartedAt: state.Running.StartedAt, FinishedAt: object.Timestamp(p.now), ContainerID: cs.ContainerID}}
		cs.Ready, cs.Started = false, &no
		if restarts(policy, exit) {
			p.due(p.now)
		}
	case state.Terminated != nil && restarts(policy, state.Terminated.ExitCode):
		// Back off, then start again.
		cs.LastState = controllers.ContainerState{Terminated: state.Terminated}
		cs.State = controllers.ContainerState{Waiting: &controllers.Waiting{Reason: "CrashLoopBackOff",
			Message: fmt.Sprintf("back-off %v restarting failed container=%s pod=%s_%s(%s)", backoff(cs.RestartCount), c.Name, podName, ns, uid)}}
		p.event(ctx, c.Name, controllers.Warning, "BackOff", "Back-off restarting failed container %s in pod %s_%s(%s)", c.Name, podName, ns, uid)
		p.due(p.now.Add(p.k.after(backoff(cs.RestartCount))))
	}
}

// startContainer runs c: "Created", "Started", a running state.
func (p *podRun) startContainer(ctx context.Context, c *controllers.Container, cs *controllers.ContainerStatus) {
	p.event(ctx, c.Name, controllers.Normal, "Created", "Created container: %s", c.Name)
	p.event(ctx, c.Name, controllers.Normal, "Started", "Started container %s", c.Name)
	ref := normalizeImage(c.Image)
	sum, id := sha256.Sum256([]byte(ref)), sha256.Sum256([]byte(p.pod.Metadata.UID+c.Name+strconv.FormatInt(cs.RestartCount, 10)))
	repo := ref
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		repo = ref[:i]
	}
	yes := true
	cs.ContainerID = "containerd://" + hex.EncodeToString(id[:])
	cs.Image, cs.ImageID = ref, repo+"@sha256:"+hex.EncodeToString(sum[:])
	cs.State = controllers.ContainerState{Running: &controllers.Running{StartedAt: object.Timestamp(p.now)}}
	cs.Started, cs.Ready = &yes, readinessDelay(c) == 0
	if !cs.Ready {
		p.due(p.now.Add(p.k.after(readinessDelay(c))))
	}
	if _, after, ends := ending(c, p.pod.Spec.RestartPolicy); ends {
		p.due(p.now.Add(p.k.after(after)))
	}
}

// readinessDelay is how long a started container takes to be ready: its
// readiness probe's initialDelaySeconds.
func readinessDelay(c *controllers.Container) time.Duration {
	if c.ReadinessProbe == nil {
		return 0
	}
	return time.Duration(c.ReadinessProbe.InitialDelaySeconds) * time.Second
}

// pull is how long pulling c's image takes, and whether it succeeds: an
// image whose name says notfound, doesnotexist, nonexistent or non-existent,
// or tagged 404 (upstream's e2e tests' webserver:404, foo:non-existent),
// never pulls.
func (p *podRun) pull(c *controllers.Container) (time.Duration, bool) {
	if strings.Contains(c.Image, "notfound") || strings.Contains(c.Image, "doesnotexist") || strings.Contains(c.Image, "nonexistent") || strings.Contains(c.Image, "non-existent") ||
		strings.HasSuffix(c.Image, ":404") {
		return p.k.after(pullTime), false
	}
	p.k.mu.Lock()
	have := p.k.images[c.Image]
	p.k.mu.Unlock()
	switch {
	case c.ImagePullPolicy == "Never" || have && c.ImagePullPolicy == "IfNotPresent":
		return 0, true
	case have:
		return p.k.after(cachedPullTime), true
	}
	return p.k.after(pullTime), true
}

// pullFailed reports an image that cannot be pulled, and backs off: the
// container waits in ErrImagePull, then ImagePullBackOff, and pulls again.
func (p *podRun) pullFailed(ctx context.Context, c *controllers.Container, cs *controllers.ContainerStatus) {
	p.k.mu.Lock()
	p.k.backoff[p.pod.Metadata.Key()+"/"+c.Name] = p.now
	p.k.mu.Unlock()
	ref := normalizeImage(c.Image)
	why := fmt.Sprintf("rpc error: code = NotFound desc = failed to pull and unpack image %q: failed to resolve reference %q: %s: not found", ref, ref, ref)
	waiting := &controllers.Waiting{Reason: "ErrImagePull", Message: why}
	if cs.State.Waiting.Reason == "ErrImagePull" {
		waiting.Reason, waiting.Message = "ImagePullBackOff", fmt.Sprintf("Back-off pulling image %q: ErrImagePull: %s", c.Image, why)
		p.event(ctx, c.Name, controllers.Normal, "BackOff", "Back-off pulling image %q", c.Image)
		p.event(ctx, c.Name, controllers.Warning, "Failed", "Error: ImagePullBackOff")
	} else {
		p.event(ctx, c.Name, controllers.Warning, "Failed", "Failed to pull image %q: %s", c.Image, why)
		p.event(ctx, c.Name, controllers.Warning, "Failed", "Error: ErrImagePull")
	}
	cs.State.Waiting = waiting
	p.due(p.now.Add(p.k.after(backoff(cs.RestartCount))))
}

// ending says whether a running container ends by itself, after how long,
// and with which exit code.
func ending(c *controllers.Container, policy string) (exit int64, after time.Duration, ends bool) {
	if strings.HasSuffix(c.Image, ":crash") {
		return 1, runTime, true
	}
	words := strings.Fields(strings.Join(append(slices.Clone(c.Command), c.Args...), " "))
	after = runTime
	for i, w := range words {
		if i+1 < len(words) && (w == "sleep" || w == "exit") {
			n, _ := strconv.ParseInt(strings.Trim(words[i+1], ";&|\"'"), 10, 64)
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
// each one's transition time while its status holds, and the others' (the
// scheduler's) as they are.
func (p *podRun) conditions(now string, sandbox bool, unready []string, finished bool) {
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
	old := p.pod.Status.Conditions
	var out []controllers.Condition
	for _, w := range want {
		c := controllers.Condition{Type: w.typ, Status: "True", LastProbeTime: controllers.Null, LastTransitionTime: now}
		if !w.ok {
			c.Status = "False"
			if w.typ == "Ready" || w.typ == "ContainersReady" {
				c.Reason, c.Message = reason, msg
			}
		}
		if prev := controllers.FindCondition(old, w.typ); prev != nil && prev.Status == c.Status {
			c.LastTransitionTime = prev.LastTransitionTime
		}
		out = append(out, c)
	}
	for _, o := range old {
		if !slices.ContainsFunc(want, func(w struct {
			typ string
			ok  bool
		}) bool {
			return w.typ == o.Type
		}) {
			out = append(out, o)
		}
	}
	p.pod.Status.Conditions = out
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
