package sim

import (
	"context"

	"kubeplay/core/controllers"
	"kubeplay/core/object"
)

// admit is the kubelet's admission of a Pod it has not started yet: a Pod
// that binds a host port another started Pod on the node binds is refused,
// as kubelet's GeneralPredicates (NodePorts) refuse it.
func (k *kubelet) admit(p *pod) bool {
	want := podRequests(p).ports
	if len(want) == 0 {
		return true
	}
	for _, other := range k.pods.List() {
		if other.Metadata.UID == p.Metadata.UID || other.Status.StartTime == "" || other.Status.Phase == "Succeeded" || other.Status.Phase == "Failed" {
			continue
		}
		for _, a := range podRequests(other).ports {
			for _, b := range want {
				if a.conflicts(b) {
					return false
				}
			}
		}
	}
	return true
}

// reject fails a Pod the kubelet did not admit, as kubelet's rejectPod does:
// a warning event and a Failed status saying why, its containers never
// started.
func (p *podRun) reject(ctx context.Context) {
	const why = "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports"
	p.k.events.Eventf(ctx, controllers.Ref(&p.pod.Metadata, "v1", "Pod"), controllers.Warning, "NodePorts", why)
	p.pod.Status = controllers.PodStatus{Phase: "Failed", Reason: "NodePorts", Message: "Pod was rejected: " + why,
		StartTime: object.Timestamp(p.now), QOSClass: p.pod.Status.QOSClass}
}
