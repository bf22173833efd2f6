package metricsserver

import (
	"fmt"
	"math"
	"strings"

	"kubeplay/core/controllers"
	"kubeplay/core/quantity"
)

// The annotations that make a simulated workload busy: a CPU or memory
// quantity of demand on a Service, spread evenly over the running Pods it
// selects (a load balancer's share), or on a Pod, for that Pod alone.
const (
	CPULoadAnnotation    = "kubeplay.dev/cpu-load"
	MemoryLoadAnnotation = "kubeplay.dev/memory-load"
)

// The usage the model gives what runs with no load: a container idles at a
// twentieth of its CPU request (1m at least) and holds half its memory
// request (defaultMemory without one); a node's system daemons (kubelet, the
// container runtime) use nodeCPU and nodeMemory besides its Pods.
const (
	idleCPUFraction = 20
	minIdleCPU      = 1_000_000 // nanocores: 1m
	defaultMemory   = 4 << 20   // bytes: 4Mi
	nodeCPU         = 60_000_000
	nodeMemory      = 480 << 20
)

// usage is what a container, a Pod or a node uses: CPU in nanocores and
// memory in bytes.
type usage struct{ cpu, memory int64 }

func (u *usage) add(o usage) { u.cpu += o.cpu; u.memory += o.memory }

// quantities are u as metrics-server writes them: CPU in nanocores, memory in
// bytes (Ki when whole), in canonical form.
func (u usage) quantities() map[string]string {
	cpu, _ := quantity.Canonical(fmt.Sprintf("%dn", u.cpu))
	mem := fmt.Sprint(u.memory)
	if u.memory%1024 == 0 {
		mem = fmt.Sprintf("%dKi", u.memory/1024)
	}
	mem, _ = quantity.Canonical(mem)
	return map[string]string{"cpu": cpu, "memory": mem}
}

// load is a demand of CPU (nanocores) and memory (bytes).
type load struct{ cpu, memory float64 }

// loadOf reads the load annotations of an object.
func loadOf(annotations map[string]string) load {
	return load{cpu: nanos(annotations[CPULoadAnnotation]), memory: bytes(annotations[MemoryLoadAnnotation])}
}

// nanos is a CPU quantity in nanocores (0 when it is none or negative).
func nanos(q string) float64 { return math.Round(bytes(q) * 1e9) }

// bytes is a memory quantity in bytes (0 when it is none or negative).
func bytes(q string) float64 { return max(quantity.Float64(q), 0) }

// measured says whether metrics-server has numbers for a Pod: it is Running
// on a node and a container of it has run a whole window by at.
func measured(p *controllers.Pod, since string) bool {
	if p.Status.Phase != "Running" || p.Spec.NodeName == "" {
		return false
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Running != nil && cs.State.Running.StartedAt <= since {
			return true
		}
	}
	return false
}

// containerUsage is the model's usage of each running container of p (by
// name, in the spec's order) under a Pod's share of load l: the idle usage,
// and l shared by CPU (or memory) request, equally when none asks; CPU is
// held to a container's limit, as the CFS quota holds it.
func containerUsage(p *controllers.Pod, l load, since string) (names []string, out []usage) {
	running := map[string]bool{}
	for _, cs := range p.Status.ContainerStatuses {
		running[cs.Name] = cs.State.Running != nil && cs.State.Running.StartedAt <= since
	}
	var cs []*controllers.Container
	var cpuRequests, memRequests float64
	for i := range p.Spec.Containers {
		c := &p.Spec.Containers[i]
		if running[c.Name] {
			cs = append(cs, c)
			cpuRequests += nanos(c.Resources.Requests["cpu"])
			memRequests += bytes(c.Resources.Requests["memory"])
		}
	}
	share := func(request, requests float64) float64 {
		if requests == 0 {
			return 1 / float64(len(cs))
		}
		return request / requests
	}
	for _, c := range cs {
		cpuRequest, memRequest := nanos(c.Resources.Requests["cpu"]), bytes(c.Resources.Requests["memory"])
		u := usage{cpu: max(int64(cpuRequest)/idleCPUFraction, minIdleCPU), memory: int64(memRequest) / 2}
		if memRequest == 0 {
			u.memory = defaultMemory
		}
		u.cpu += int64(math.Round(l.cpu * share(cpuRequest, cpuRequests)))
		u.memory += int64(math.Round(l.memory * share(memRequest, memRequests)))
		if limit := nanos(c.Resources.Limits["cpu"]); limit > 0 {
			u.cpu = min(u.cpu, int64(limit))
		}
		names, out = append(names, c.Name), append(out, u)
	}
	return names, out
}

// podLoads is each measured Pod's share of the load its own annotations and
// the Services selecting it put on it, by namespace/name.
func podLoads(pods []*controllers.Pod, services []*controllers.Service, since string) map[string]load {
	out := map[string]load{}
	for _, p := range pods {
		if measured(p, since) {
			out[p.Metadata.Key()] = loadOf(p.Metadata.Annotations)
		}
	}
	for _, svc := range services {
		l := loadOf(svc.Metadata.Annotations)
		if (l == load{}) || len(svc.Spec.Selector) == 0 {
			continue
		}
		var serving []string
		for _, p := range pods {
			if _, ok := out[p.Metadata.Key()]; ok && p.Metadata.Namespace == svc.Metadata.Namespace && selects(svc.Spec.Selector, p.Metadata.Labels) {
				serving = append(serving, p.Metadata.Key())
			}
		}
		for _, key := range serving {
			cur := out[key]
			cur.cpu += l.cpu / float64(len(serving))
			cur.memory += l.memory / float64(len(serving))
			out[key] = cur
		}
	}
	return out
}

// selects is a Service's selector matching labels.
func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// nodeOverhead is what a node's own daemons use; the control plane's also
// runs etcd and the control plane's components.
func nodeOverhead(name string) usage {
	if strings.HasSuffix(name, "-control-plane") {
		return usage{cpu: 4 * nodeCPU, memory: 2 * nodeMemory}
	}
	return usage{cpu: nodeCPU, memory: nodeMemory}
}
