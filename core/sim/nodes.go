package sim

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"kubeplay/core/auth"
	"kubeplay/core/client"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/web"
)

// The simulated nodes are named, addressed and sized as a kind cluster's:
// kubeplay-control-plane (tainted for the control plane when it has workers),
// kubeplay-worker, kubeplay-worker2, ...; node i has InternalIP 172.18.0.(i+2)
// and the pod CIDR 10.244.i.0/24.
const (
	clusterName    = "kubeplay"
	kubeletVersion = "v1.32.13"
	// ControlPlaneIP is the control-plane node's address, where the
	// `kubernetes` Service's endpoint (kube-apiserver, port 6443) is.
	ControlPlaneIP    = "172.18.0.2"
	controlPlaneTaint = "node-role.kubernetes.io/control-plane"
	notReadyTaint     = "node.kubernetes.io/not-ready"
)

// NodeName is the name of simulated node i (0 is the control plane).
func NodeName(i int) string {
	switch i {
	case 0:
		return clusterName + "-control-plane"
	case 1:
		return clusterName + "-worker"
	}
	return clusterName + "-worker" + strconv.Itoa(i)
}

// nodeIP is node i's InternalIP.
func nodeIP(i int) string { return fmt.Sprintf("172.18.0.%d", i+2) }

// podCIDR is node i's pod address range.
func podCIDR(i int) string { return fmt.Sprintf("10.244.%d.0/24", i) }

// Capacity of every simulated node: 4 CPUs, 8 GiB (in Ki, as a kubelet
// reports it), 110 Pods.
var capacity = map[string]any{"cpu": "4", "ephemeral-storage": "61202244Ki", "hugepages-1Gi": "0",
	"hugepages-2Mi": "0", "memory": "8148008Ki", "pods": "110"}

// nodeUser is the identity a kubelet acts as: system:node:NAME in system:nodes.
func nodeUser(name string) auth.User {
	return auth.User{Name: "system:node:" + name, Groups: []string{"system:nodes", auth.AllAuthenticated}}
}

// nodeClient is node name's kubelet's client.
func nodeClient(h web.Handler, name string) *client.Client {
	return client.New(h, nodeUser(name), "kubelet/"+kubeletVersion+" (linux/amd64) kubernetes/kubeplay")
}

// node is the Node object a kubelet registers for node i of total, Ready at now.
func node(i, total int, now time.Time) object.Object {
	name := NodeName(i)
	labels := map[string]any{"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
		"kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
	spec := map[string]any{"podCIDR": podCIDR(i), "podCIDRs": []any{podCIDR(i)},
		"providerID": "kind://docker/" + clusterName + "/" + name}
	if i == 0 {
		labels[controlPlaneTaint] = ""
		labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
		if total > 1 {
			spec["taints"] = []any{map[string]any{"key": controlPlaneTaint, "effect": "NoSchedule"}}
		}
	}
	t := registry.Timestamp(now)
	condition := func(typ, status, reason, message string) map[string]any {
		return map[string]any{"type": typ, "status": status, "reason": reason, "message": message,
			"lastHeartbeatTime": t, "lastTransitionTime": t}
	}
	id := fmt.Sprintf("%032x", i+1)
	return object.Object{"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{"name": name, "labels": labels, "annotations": map[string]any{
			"kubeadm.alpha.kubernetes.io/cri-socket":                 "unix:///run/containerd/containerd.sock",
			"node.alpha.kubernetes.io/ttl":                           "0",
			"volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
		"spec": spec,
		"status": map[string]any{
			"addresses": []any{map[string]any{"type": "InternalIP", "address": nodeIP(i)},
				map[string]any{"type": "Hostname", "address": name}},
			"allocatable": capacity, "capacity": capacity,
			"conditions": []any{
				condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
				condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
				condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
				condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
			},
			"daemonEndpoints": map[string]any{"kubeletEndpoint": map[string]any{"Port": 10250}},
			"nodeInfo": map[string]any{"architecture": "amd64", "bootID": object.NewUID(),
				"containerRuntimeVersion": "containerd://1.7.24", "kernelVersion": "6.8.0-kubeplay",
				"kubeProxyVersion": "", "kubeletVersion": kubeletVersion, "machineID": id,
				"operatingSystem": "linux", "osImage": "Debian GNU/Linux 12 (bookworm)", "systemUUID": id},
		},
	}
}

// register has node i's kubelet register it, as a kubelet does when it
// starts: the Node (with its status) unless it exists, and its heartbeat Lease
// in kube-node-lease; then, as kube-controller-manager's node lifecycle
// controller does once a node is Ready, lifecycle takes off the not-ready
// taint that admission put on it. A node that exists (a sandbox restored) is
// left as it is.
func register(ctx context.Context, c, lifecycle *client.Client, i, total int, now time.Time) (object.Object, error) {
	name := NodeName(i)
	n, err := c.Get(ctx, "/api/v1/nodes/"+name)
	if client.IsNotFound(err) {
		want := node(i, total, now)
		if n, err = c.Create(ctx, "/api/v1/nodes", want); err == nil && controllers.Condition(n, "Ready") == nil {
			n["status"] = want["status"]
			n, err = c.Update(ctx, "/api/v1/nodes/"+name+"/status", n)
		}
	}
	if err != nil {
		return nil, err
	}
	spec, _ := n["spec"].(map[string]any)
	taints := object.Objects(spec, "taints")
	if kept := slices.DeleteFunc(slices.Clone(taints), func(t map[string]any) bool { return t["key"] == notReadyTaint }); len(kept) != len(taints) {
		if len(kept) == 0 {
			delete(spec, "taints")
		} else {
			spec["taints"] = kept
		}
		if n, err = lifecycle.Update(ctx, "/api/v1/nodes/"+name, n); err != nil {
			return nil, err
		}
	}
	lease := object.Object{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
		"metadata": map[string]any{"name": name, "namespace": "kube-node-lease",
			"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "Node", "name": name, "uid": object.MetaString(n, "uid")}}},
		"spec": map[string]any{"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": controllers.MicroTimestamp(now)}}
	if _, err := c.Create(ctx, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", lease); err != nil && !client.IsConflict(err) {
		return nil, err
	}
	return n, nil
}
