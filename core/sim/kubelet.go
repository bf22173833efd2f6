package sim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"kubeplay/core/object"
	"maps"
	"path"
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
//   - admitted: Pending, containers waiting in ContainerCreating (in
//     PodInitializing while the Pod has init containers to run), "Pulling";
//   - pulled (1.5s; 0.5s for an image the node has, none with IfNotPresent):
//     Running, a pod IP from the node's pod CIDR, "Pulled", "Created",
//     "Started"; ready at once, or after a readiness probe's
//     initialDelaySeconds; a volume mount's subPathExpr kubelet refuses
//     keeps the container waiting in CreateContainerConfigError instead;
//   - init containers run one at a time, each once the one before has
//     succeeded, and the app containers once all have;
//   - a container runs what its image and command say (program): until
//     stopped, or until it exits with a code, Completed or Error. An ended
//     container restarts as the restartPolicy says (an init container only
//     when it failed), after kubelet's back-off (CrashLoopBackOff); the Pod's
//     phase and conditions follow from its containers as kubelet derives
//     them;
//   - an image whose name says "notfound" or "doesnotexist" never pulls:
//     ErrImagePull, then ImagePullBackOff, again and again;
//   - past its activeDeadlineSeconds: its containers are killed and the Pod
//     Fails (DeadlineExceeded);
//   - deleted: its containers are stopped ("Killing"), the Pod is reported
//     in its terminal phase and removed with a grace period of 0, as a
//     kubelet finishes a graceful deletion.
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
	waits    map[string]time.Time // Pod key/container → since when it waits for its image (or its pull back-off)
	runs     map[string]process   // Pod key/container → what its process does
	files    files                // what the node's and its Pods' volumes hold
	renewed  time.Time            // the Lease's last renewal
	reported time.Time            // the node status's last report
}

func newKubelet(h web.Handler, clk clock.Clock, index int, speed float64) *kubelet {
	name := NodeName(index)
	c := nodeClient(h, name)
	k := &kubelet{name: name, index: index, c: c, clock: clk, speed: speed,
		events: controllers.NewRecorder(c, clk, "kubelet", name),
		queue:  controllers.NewQueue(clk), expect: controllers.NewExpectations(),
		images: map[string]bool{}, ips: map[string]string{}, lastIP: 1,
		waits: map[string]time.Time{}, runs: map[string]process{}, files: files{}}
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
	for c := range k.waits {
		if strings.HasPrefix(c, key+"/") {
			delete(k.waits, c)
		}
	}
	for c := range k.runs {
		if strings.HasPrefix(c, key+"/") {
			delete(k.runs, c)
		}
	}
	for f := range k.files {
		if strings.HasPrefix(f, "volume:"+key+"/") || strings.HasPrefix(f, "container:"+key+"/") {
			delete(k.files, f)
		}
	}
}

// process is what a started container's process does.
type process struct {
	id  string // the container's ID
	run run
}

// program is what c's process, started as cs says, does: what the kubelet
// read from its command when it started it, or (the kubelet restarted since)
// reads again, without changing any file.
func (k *kubelet) program(p *pod, c *controllers.Container, cs *controllers.ContainerStatus) run {
	k.mu.Lock()
	defer k.mu.Unlock()
	key := p.Metadata.Key() + "/" + c.Name
	if pr, ok := k.runs[key]; ok && pr.id == cs.ContainerID {
		return pr.run
	}
	r := program(p, c, cs.ContainerID, maps.Clone(k.files))
	k.runs[key] = process{id: cs.ContainerID, run: r}
	return r
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

// kill stops a Pod being deleted, reports it in its terminal phase and
// removes it, as the kubelet does once its containers have stopped.
func (k *kubelet) kill(ctx context.Context, cur *pod) error {
	if cur.Metadata.DeletionGrace != nil && *cur.Metadata.DeletionGrace == 0 {
		return nil // removed already: finalizers hold it
	}
	if cur.Status.Phase != "Succeeded" && cur.Status.Phase != "Failed" {
		next := *cur
		next.Status.Conditions = slices.Clone(cur.Status.Conditions)
		next.Status.ContainerStatuses = slices.Clone(cur.Status.ContainerStatuses)
		next.Status.InitContainerStatuses = slices.Clone(cur.Status.InitContainerStatuses)
		next.Status.EphemeralContainerStatuses = slices.Clone(cur.Status.EphemeralContainerStatuses)
		p := &podRun{k: k, pod: &next, now: k.clock.Now()}
		p.stop(ctx)
		next.Status.Phase = phase(&next.Spec, &next.Status, true)
		if next.Status.Phase != "Succeeded" {
			next.Status.Phase = "Failed"
		}
		p.conditions(object.Timestamp(p.now))
		if _, err := controllers.Send(ctx, k.c, web.MethodPut, podPath(cur)+"/status", &next); err != nil {
			if client.IsNotFound(err) || client.IsConflict(err) {
				return nil // a newer Pod brings the key back
			}
			return err
		}
	}
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"DeleteOptions","gracePeriodSeconds":0,"preconditions":{"uid":%q}}`, cur.Metadata.UID)
	_, err := k.c.Do(ctx, web.MethodDelete, podPath(cur), "application/json", []byte(body))
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

// step moves the Pod's containers one step on, the init containers one after
// the other before the others, and derives the Pod's phase, address and
// conditions from them as kubelet does.
func (p *podRun) step(ctx context.Context) {
	spec, status := &p.pod.Spec, &p.pod.Status
	now := object.Timestamp(p.now)
	if status.StartTime == "" {
		hostIP := nodeIP(p.k.index)
		status.HostIP, status.HostIPs, status.StartTime = hostIP, []controllers.IP{{IP: hostIP}}, now
	}
	if p.deadline(ctx) {
		return
	}
	// A container not created yet waits in ContainerCreating, or, in a Pod
	// with init containers, PodInitializing.
	waiting := "ContainerCreating"
	if len(spec.InitContainers) > 0 {
		waiting = "PodInitializing"
	}
	initialized := true
	status.InitContainerStatuses = p.containers(ctx, spec.InitContainers, status.InitContainerStatuses, waiting, true, initContainer, &initialized)
	status.ContainerStatuses = p.containers(ctx, spec.Containers, status.ContainerStatuses, waiting, initialized, regularContainer, nil)
	status.EphemeralContainerStatuses = p.containers(ctx, ephemeral(spec.EphemeralContainers), status.EphemeralContainerStatuses, "ContainerCreating",
		initialized, ephemeralContainer, nil)
	status.Phase = phase(spec, status, false)
	if status.PodIP == "" && (status.Phase != "Pending" || anyStarted(status.InitContainerStatuses)) {
		ip := p.k.allocateIP(p.pod.Metadata.Key(), spec.HostNetwork)
		status.PodIP, status.PodIPs = ip, []controllers.IP{{IP: ip}}
	}
	p.conditions(now)
}

// anyStarted says whether any of the containers has run.
func anyStarted(statuses []controllers.ContainerStatus) bool {
	return slices.ContainsFunc(statuses, func(cs controllers.ContainerStatus) bool {
		return cs.State.Running != nil || cs.State.Terminated != nil || cs.LastState.Terminated != nil
	})
}

// containerRole is which of a Pod's lists a container is in.
type containerRole int

const (
	regularContainer containerRole = iota
	initContainer
	// ephemeralContainer: kubectl debug's, started in a Pod already
	// initialized and never restarted; kubelet reports it neither started
	// nor ready.
	ephemeralContainer
)

// ephemeral are the ephemeral containers as containers.
func ephemeral(list []controllers.EphemeralContainer) []controllers.Container {
	out := make([]controllers.Container, len(list))
	for i := range list {
		out[i] = list[i].Container
	}
	return out
}

// containers moves the statuses of containers (of role) on, those whose
// turn it is: all of them once the Pod is initialized, an init container
// once those before it have succeeded. For init containers, *initialized
// says on return whether all have.
func (p *podRun) containers(ctx context.Context, containers []controllers.Container, old []controllers.ContainerStatus,
	waiting string, turn bool, role containerRole, initialized *bool) []controllers.ContainerStatus {
	init := role == initContainer
	var out []controllers.ContainerStatus
	for i := range containers {
		c := &containers[i]
		var cs controllers.ContainerStatus
		if j := slices.IndexFunc(old, func(s controllers.ContainerStatus) bool { return s.Name == c.Name }); j >= 0 {
			cs = old[j]
		} else {
			no := false
			cs = controllers.ContainerStatus{Name: c.Name, Image: c.Image, Started: &no}
			cs.State.Waiting = &controllers.Waiting{Reason: waiting}
		}
		if turn {
			p.container(ctx, c, &cs, role)
		}
		if role == ephemeralContainer {
			cs.Started, cs.Ready = nil, false
		}
		if init {
			t := cs.State.Terminated
			cs.Ready = t != nil && t.ExitCode == 0
			turn = turn && cs.Ready
		}
		out = append(out, cs)
	}
	if init {
		*initialized = turn
	}
	return out
}

// waitKey is a container's key in the kubelet's memory.
func (p *podRun) waitKey(c *controllers.Container) string { return p.pod.Metadata.Key() + "/" + c.Name }

// container moves one container's status on, if its next step is due. An
// init container restarts only when it failed, and not under restartPolicy
// Never; an ephemeral one never does.
func (p *podRun) container(ctx context.Context, c *controllers.Container, cs *controllers.ContainerStatus, role containerRole) {
	policy := p.pod.Spec.RestartPolicy
	restart := func(exit int64) bool {
		switch role {
		case initContainer:
			return policy != "Never" && exit != 0
		case ephemeralContainer:
			return false
		}
		return restarts(policy, exit)
	}
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
		key := p.waitKey(c)
		p.k.mu.Lock()
		since, waited := p.k.waits[key]
		if !waited {
			since = p.now
			p.k.waits[key] = since
		}
		p.k.mu.Unlock()
		if !waited && p.mustPull(c) {
			p.event(ctx, c.Name, controllers.Normal, "Pulling", "Pulling image %q", c.Image)
		}
		pull, ok := p.pull(c)
		if r := state.Waiting.Reason; r == "ErrImagePull" || r == "ImagePullBackOff" {
			pull = p.k.after(backoff(cs.RestartCount)) // pulling again after the image pull back-off
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
		delete(p.k.waits, key)
		p.k.mu.Unlock()
		if msg := p.configError(c); msg != "" {
			// Tried again after a back-off, or when the Pod changes.
			cs.State.Waiting = &controllers.Waiting{Reason: "CreateContainerConfigError", Message: msg}
			p.event(ctx, c.Name, controllers.Warning, "Failed", "Error: %s", msg)
			p.due(p.now.Add(p.k.after(backoffBase)))
			return
		}
		p.startContainer(ctx, c, cs)
	case state.Running != nil:
		started := p.since(state.Running.StartedAt)
		if !cs.Ready && role == regularContainer {
			if at := started.Add(p.k.after(readinessDelay(c))); at.After(p.now) {
				p.due(at)
			} else {
				cs.Ready = true
			}
		}
		r := p.k.program(p.pod, c, cs)
		if r.forever {
			return
		}
		if at := started.Add(p.k.after(r.after)); at.After(p.now) {
			p.due(at)
			return
		}
		no := false
		cs.State = controllers.ContainerState{Terminated: &controllers.Terminated{ExitCode: r.exit, Reason: exitReason(r.exit),
			StartedAt: state.Running.StartedAt, FinishedAt: object.Timestamp(p.now), ContainerID: cs.ContainerID}}
		cs.Ready, cs.Started = false, &no
		p.due(p.now) // the next container's turn, or a restart
	case state.Terminated != nil && restart(state.Terminated.ExitCode):
		// Back off, then start again.
		cs.LastState = controllers.ContainerState{Terminated: state.Terminated}
		cs.State = controllers.ContainerState{Waiting: &controllers.Waiting{Reason: "CrashLoopBackOff",
			Message: fmt.Sprintf("back-off %v restarting failed container=%s pod=%s_%s(%s)", backoff(cs.RestartCount), c.Name, podName, ns, uid)}}
		p.event(ctx, c.Name, controllers.Warning, "BackOff", "Back-off restarting failed container %s in pod %s_%s(%s)", c.Name, podName, ns, uid)
		p.due(p.now.Add(p.k.after(backoff(cs.RestartCount))))
	}
}

// exitReason is the reason containerd gives a container that exited.
func exitReason(exit int64) string {
	if exit == 0 {
		return "Completed"
	}
	return "Error"
}

// mustPull says whether starting c pulls its image (and sends "Pulling").
func (p *podRun) mustPull(c *controllers.Container) bool {
	p.k.mu.Lock()
	defer p.k.mu.Unlock()
	return c.ImagePullPolicy != "Never" && !(c.ImagePullPolicy == "IfNotPresent" && p.k.images[c.Image])
}

// configError is why kubelet cannot make c's configuration, as it words it,
// or "": a volume mount's subPathExpr naming a variable with no value, or
// expanding to an absolute path or to one that climbs out of the volume.
func (p *podRun) configError(c *controllers.Container) string {
	env := containerEnv(p.pod, c)
	for _, m := range c.VolumeMounts {
		if m.SubPathExpr == "" {
			continue
		}
		var missing []string
		sub := expand(m.SubPathExpr, func(name string) (string, bool) {
			if env[name] == "" && !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
			return env[name], true
		})
		slices.Sort(missing)
		switch {
		case len(missing) > 0:
			return "missing value for " + strings.Join(missing, ", ")
		case path.IsAbs(sub):
			return fmt.Sprintf("error SubPath `%s` must not be an absolute path", sub)
		case slices.Contains(strings.Split(sub, "/"), ".."):
			return fmt.Sprintf("unable to provision SubPath `%s`: must not contain '..'", sub)
		}
	}
	return ""
}

// startContainer runs c: "Created", "Started", a running state, and what
// its process does (program) from now on.
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
	p.k.mu.Lock()
	r := program(p.pod, c, cs.ContainerID, p.k.files)
	p.k.runs[p.waitKey(c)] = process{id: cs.ContainerID, run: r}
	p.k.mu.Unlock()
	if !r.forever {
		p.due(p.now.Add(p.k.after(r.after)))
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
	p.k.waits[p.waitKey(c)] = p.now
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

// restarts says whether a container that exited with exit starts again.
func restarts(policy string, exit int64) bool {
	return policy == "" || policy == "Always" || policy == "OnFailure" && exit != 0
}

// phase is the Pod's phase as kubelet derives it from its containers'
// statuses (getPhase); terminal says the Pod is being stopped for good.
func phase(spec *controllers.PodSpec, status *controllers.PodStatus, terminal bool) string {
	pendingInit, failedInit := 0, 0
	for _, c := range spec.InitContainers {
		j := slices.IndexFunc(status.InitContainerStatuses, func(s controllers.ContainerStatus) bool { return s.Name == c.Name })
		if j < 0 {
			pendingInit++
			continue
		}
		switch cs := status.InitContainerStatuses[j]; {
		case cs.State.Terminated != nil:
			if cs.State.Terminated.ExitCode != 0 {
				failedInit++
			}
		case cs.State.Waiting != nil && cs.LastState.Terminated != nil:
			if cs.LastState.Terminated.ExitCode != 0 {
				failedInit++
			}
		default:
			pendingInit++
		}
	}
	unknown, running, waiting, stopped, succeeded := 0, 0, 0, 0, 0
	for _, c := range spec.Containers {
		j := slices.IndexFunc(status.ContainerStatuses, func(s controllers.ContainerStatus) bool { return s.Name == c.Name })
		if j < 0 {
			unknown++
			continue
		}
		switch cs := status.ContainerStatuses[j]; {
		case cs.State.Running != nil:
			running++
		case cs.State.Terminated != nil:
			stopped++
			if cs.State.Terminated.ExitCode == 0 {
				succeeded++
			}
		case cs.State.Waiting != nil && cs.LastState.Terminated != nil:
			stopped++
		case cs.State.Waiting != nil:
			waiting++
		default:
			unknown++
		}
	}
	if failedInit > 0 && spec.RestartPolicy == "Never" {
		return "Failed"
	}
	switch {
	case pendingInit > 0, waiting > 0:
		return "Pending"
	case running > 0 && unknown == 0:
		return "Running"
	case running == 0 && stopped > 0 && unknown == 0:
		switch {
		case terminal && stopped == succeeded:
			return "Succeeded"
		case terminal:
			return "Failed"
		case spec.RestartPolicy == "" || spec.RestartPolicy == "Always":
			return "Running"
		case stopped == succeeded:
			return "Succeeded"
		case spec.RestartPolicy == "Never":
			return "Failed"
		}
		return "Running"
	}
	return "Pending"
}

// conditions sets the Pod's conditions as kubelet generates them
// (PodReadyToStartContainers, Initialized, Ready, ContainersReady), keeping
// each one's transition time while its status holds, and the others' (the
// scheduler's, a disruption's) as they are.
func (p *podRun) conditions(now string) {
	spec, status := &p.pod.Spec, &p.pod.Status
	finished := status.Phase == "Succeeded" || status.Phase == "Failed"
	want := []controllers.Condition{
		{Type: "PodReadyToStartContainers", Status: condStatus(status.PodIP != "" && !finished)},
		initializedCondition(spec, status),
	}
	ready := containersReadyCondition(spec, status)
	want = append(want, controllers.Condition{Type: "Ready", Status: ready.Status, Reason: ready.Reason, Message: ready.Message}, ready)
	old := status.Conditions
	var out []controllers.Condition
	for _, c := range want {
		c.LastProbeTime, c.LastTransitionTime = controllers.Null, now
		if prev := controllers.FindCondition(old, c.Type); prev != nil && prev.Status == c.Status {
			c.LastTransitionTime = prev.LastTransitionTime
		}
		out = append(out, c)
	}
	for _, o := range old {
		if controllers.FindCondition(want, o.Type) == nil {
			out = append(out, o)
		}
	}
	status.Conditions = out
}

func condStatus(ok bool) string {
	if ok {
		return "True"
	}
	return "False"
}

// initializedCondition is kubelet's Initialized condition: true once every
// init container has succeeded (or an app container has started).
func initializedCondition(spec *controllers.PodSpec, status *controllers.PodStatus) controllers.Condition {
	unknown, incomplete := notReady(spec.InitContainers, status.InitContainerStatuses)
	switch {
	case status.Phase == "Succeeded" && len(unknown) == 0:
		return controllers.Condition{Type: "Initialized", Status: "True", Reason: "PodCompleted"}
	case anyStarted(status.ContainerStatuses):
		return controllers.Condition{Type: "Initialized", Status: "True"}
	}
	if msg := notReadyMessage(unknown, "incomplete", incomplete); msg != "" {
		return controllers.Condition{Type: "Initialized", Status: "False", Reason: "ContainersNotInitialized", Message: msg}
	}
	return controllers.Condition{Type: "Initialized", Status: "True"}
}

// containersReadyCondition is kubelet's ContainersReady condition, which its
// Ready condition repeats (the simulation has no readiness gates).
func containersReadyCondition(spec *controllers.PodSpec, status *controllers.PodStatus) controllers.Condition {
	unknown, unready := notReady(spec.Containers, status.ContainerStatuses)
	switch {
	case status.Phase == "Succeeded" && len(unknown) == 0:
		return controllers.Condition{Type: "ContainersReady", Status: "False", Reason: "PodCompleted"}
	case status.Phase == "Failed":
		return controllers.Condition{Type: "ContainersReady", Status: "False", Reason: "PodFailed"}
	}
	if msg := notReadyMessage(unknown, "unready", unready); msg != "" {
		return controllers.Condition{Type: "ContainersReady", Status: "False", Reason: "ContainersNotReady", Message: msg}
	}
	return controllers.Condition{Type: "ContainersReady", Status: "True"}
}

// notReady are the containers without a status, and those whose status is
// not ready, in the spec's order.
func notReady(containers []controllers.Container, statuses []controllers.ContainerStatus) (unknown, unready []string) {
	for _, c := range containers {
		j := slices.IndexFunc(statuses, func(s controllers.ContainerStatus) bool { return s.Name == c.Name })
		switch {
		case j < 0:
			unknown = append(unknown, c.Name)
		case !statuses[j].Ready:
			unready = append(unready, c.Name)
		}
	}
	return unknown, unready
}

// notReadyMessage is kubelet's message of a condition that is not met:
// "containers with unknown status: [...]" and "containers with WHAT status:
// [...]", those there are; "" for none.
func notReadyMessage(unknown []string, what string, others []string) string {
	var msgs []string
	if len(unknown) > 0 {
		msgs = append(msgs, "containers with unknown status: ["+strings.Join(unknown, " ")+"]")
	}
	if len(others) > 0 {
		msgs = append(msgs, "containers with "+what+" status: ["+strings.Join(others, " ")+"]")
	}
	return strings.Join(msgs, ", ")
}

// deadline ends a Pod that has been active longer than its
// activeDeadlineSeconds, as kubelet does: its running containers are
// killed, and the Pod Fails with reason DeadlineExceeded. It says whether it
// did; otherwise the step comes back at the deadline.
func (p *podRun) deadline(ctx context.Context) bool {
	ads := p.pod.Spec.ActiveDeadlineSeconds
	if ads == nil {
		return false
	}
	if at := p.since(p.pod.Status.StartTime).Add(time.Duration(*ads) * time.Second); at.After(p.now) {
		p.due(at)
		return false
	}
	const msg = "Pod was active on the node longer than the specified deadline"
	p.k.events.Eventf(ctx, controllers.Ref(&p.pod.Metadata, "v1", "Pod"), controllers.Warning, "DeadlineExceeded", msg)
	p.stop(ctx)
	p.pod.Status.Phase, p.pod.Status.Reason, p.pod.Status.Message = "Failed", "DeadlineExceeded", msg
	p.conditions(object.Timestamp(p.now))
	return true
}

// stop kills the Pod's running containers ("Killing"): each ends as a
// process killed after its grace period does, with 137.
func (p *podRun) stop(ctx context.Context) {
	status := &p.pod.Status
	for _, statuses := range [][]controllers.ContainerStatus{status.InitContainerStatuses, status.ContainerStatuses, status.EphemeralContainerStatuses} {
		for i := range statuses {
			cs := &statuses[i]
			if cs.State.Running == nil {
				continue
			}
			p.event(ctx, cs.Name, controllers.Normal, "Killing", "Stopping container %s", cs.Name)
			no := false
			cs.State = controllers.ContainerState{Terminated: &controllers.Terminated{ExitCode: 137, Reason: "Error",
				StartedAt: cs.State.Running.StartedAt, FinishedAt: object.Timestamp(p.now), ContainerID: cs.ContainerID}}
			cs.Ready = false
			if cs.Started != nil { // an ephemeral container's is never reported
				cs.Started = &no
			}
		}
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
