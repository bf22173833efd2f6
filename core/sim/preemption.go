package sim

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"kubeplay/core/client"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// victim is a Pod preemption may evict.
type victim struct {
	key      string
	pod      *pod
	priority int64
}

// preemption is the victims on one node that make room for a Pod.
type preemption struct {
	node    string
	victims []victim
}

// priority is a Pod's priority (its PriorityClass's, set by admission).
func priority(p *pod) int64 {
	if p.Spec.Priority == nil {
		return 0
	}
	return *p.Spec.Priority
}

// preempt is kube-scheduler's DefaultPreemption for a Pod that fits no node:
// on each node where evicting Pods could help, it takes out every Pod of
// lower priority, and when the Pod then fits, gives back as many as still
// leave it room, the highest priority first; among the nodes that work it
// picks the one whose victims have the lowest highest priority, then the
// lowest sum of priorities, then the fewest victims. It nominates the Pod
// to that node and evicts the victims there: each gets the DisruptionTarget
// condition (PreemptionByScheduler) and a Preempted event, then is deleted.
// It says which node it nominated, "" when preemption cannot help.
func (s *scheduler) preempt(ctx context.Context, p *pod, want requests, nodes []*node) (string, error) {
	if p.Spec.PreemptionPolicy == "Never" {
		return "", nil
	}
	prio := priority(p)
	s.mu.Lock()
	if nominated := p.Status.NominatedNodeName; nominated != "" {
		// Victims still leaving the nominated node: wait for them.
		for key := range s.usage[nominated] {
			if q, ok := s.pods.Get(key); ok && q.Metadata.DeletionTimestamp != "" && priority(q) < prio {
				s.mu.Unlock()
				return nominated, nil
			}
		}
	}
	var candidates []preemption
	for _, n := range nodes {
		if _, resolvable := s.filter(p, want, n, s.withNominated(p, n.Metadata.Name, s.usage[n.Metadata.Name])); !resolvable {
			continue
		}
		if c, ok := s.victims(p, prio, want, n); ok {
			candidates = append(candidates, c)
		}
	}
	s.mu.Unlock()
	if len(candidates) == 0 {
		return "", nil
	}
	best := slices.MinFunc(candidates, func(a, b preemption) int {
		return cmp.Or(cmp.Compare(a.highest(), b.highest()), cmp.Compare(a.sum(), b.sum()), cmp.Compare(len(a.victims), len(b.victims)))
	})
	s.mu.Lock()
	s.nominated[p.Metadata.Key()] = best.node
	s.mu.Unlock()
	now := object.Timestamp(s.clock.Now())
	for _, v := range best.victims {
		condition := fmt.Sprintf(`{"status":{"conditions":[{"type":"DisruptionTarget","status":"True","reason":"PreemptionByScheduler",`+
			`"message":"%s: preempting to accommodate a higher priority pod","lastProbeTime":null,"lastTransitionTime":%q}]}}`, schedulerName, now)
		if _, err := s.c.Do(ctx, web.MethodPatch, podPath(v.pod)+"/status", "application/strategic-merge-patch+json", []byte(condition)); err != nil {
			if client.IsNotFound(err) {
				continue
			}
			return "", err
		}
		if _, err := s.c.Delete(ctx, podPath(v.pod)); err != nil && !client.IsNotFound(err) {
			return "", err
		}
		s.events.Actionf(ctx, controllers.Ref(&v.pod.Metadata, "v1", "Pod"), controllers.Normal, "Preempted", "Preempting",
			"Preempted by pod %s on node %s", p.Metadata.UID, best.node)
	}
	return best.node, nil
}

// victims finds the fewest Pods of lower priority than prio on n whose
// eviction lets p fit, as kube's SelectVictimsOnNode does. Called with mu
// held.
func (s *scheduler) victims(p *pod, prio int64, want requests, n *node) (preemption, bool) {
	used := maps.Clone(s.usage[n.Metadata.Name])
	var potential []victim
	for key := range used {
		q, ok := s.pods.Get(key)
		if !ok || priority(q) >= prio {
			continue
		}
		potential = append(potential, victim{key: key, pod: q, priority: priority(q)})
		delete(used, key)
	}
	if len(potential) == 0 {
		return preemption{}, false
	}
	if why, _ := s.filter(p, want, n, s.withNominated(p, n.Metadata.Name, used)); len(why) > 0 {
		return preemption{}, false
	}
	// Give back the highest priority first (the earliest started first
	// among equals), keeping each that still leaves p room.
	slices.SortFunc(potential, func(a, b victim) int {
		return cmp.Or(cmp.Compare(b.priority, a.priority), cmp.Compare(a.pod.Status.StartTime, b.pod.Status.StartTime), cmp.Compare(a.key, b.key))
	})
	c := preemption{node: n.Metadata.Name}
	for _, v := range potential {
		used[v.key] = s.usage[n.Metadata.Name][v.key]
		if why, _ := s.filter(p, want, n, s.withNominated(p, n.Metadata.Name, used)); len(why) > 0 {
			delete(used, v.key)
			c.victims = append(c.victims, v)
		}
	}
	return c, true
}

// highest is the highest priority among the victims.
func (c preemption) highest() int64 {
	h := int64(-1 << 63)
	for _, v := range c.victims {
		h = max(h, v.priority)
	}
	return h
}

// sum is the victims' priorities added up, each raised by 2^31 as kube
// does so that negative priorities count for more victims, not fewer.
func (c preemption) sum() int64 {
	var n int64
	for _, v := range c.victims {
		n += v.priority + 1<<31
	}
	return n
}
