package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/user"
	"kubeplay/core/version"
	"kubeplay/core/web"
)

// The simulated nodes are named, addressed and sized as a kind cluster's:
// kubeplay-control-plane (tainted for the control plane when it has workers),
// kubeplay-worker, kubeplay-worker2, ...; node i has InternalIP 172.18.0.(i+2)
// and the pod CIDR 10.244.i.0/24.
const (
	clusterName    = "kubeplay"
	kubeletVersion = version.Kubernetes
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

// capacity of every simulated node: 4 CPUs, 8 GiB (in Ki, as a kubelet
// reports it), 110 Pods.
const capacity = `{"cpu":"4","ephemeral-storage":"61202244Ki","hugepages-1Gi":"0","hugepages-2Mi":"0","memory":"8148008Ki","pods":"110"}`

// nodeUser is the identity a kubelet acts as: system:node:NAME in system:nodes.
func nodeUser(name string) user.User {
	return user.User{Name: "system:node:" + name, Groups: []string{"system:nodes", user.AllAuthenticated}}
}

// nodeClient is node name's kubelet's client.
func nodeClient(h web.Handler, name string) *client.Client {
	return client.New(h, nodeUser(name), "kubelet/"+kubeletVersion+" (linux/amd64) kubernetes/kubeplay")
}

// nodeJSON is the Node object a kubelet registers for node i of total, Ready at
// now, as kind's kubelets register theirs.
func nodeJSON(i, total int, now time.Time) []byte {
	name := NodeName(i)
	labels, taints := "", ""
	if i == 0 {
		labels = `,"` + controlPlaneTaint + `":"","node.kubernetes.io/exclude-from-external-load-balancers":""`
		if total > 1 {
			taints = `,"taints":[{"key":"` + controlPlaneTaint + `","effect":"NoSchedule"}]`
		}
	}
	condition := func(typ, status, reason, message string) string {
		return fmt.Sprintf(`{"type":%q,"status":%q,"lastHeartbeatTime":%q,"lastTransitionTime":%q,"reason":%q,"message":%q}`,
			typ, status, object.Timestamp(now), object.Timestamp(now), reason, message)
	}
	id := fmt.Sprintf("%032x", i+1)
	return []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"Node","metadata":{"name":%[1]q,`+
		`"labels":{"beta.kubernetes.io/arch":"amd64","beta.kubernetes.io/os":"linux","kubernetes.io/arch":"amd64","kubernetes.io/hostname":%[1]q,"kubernetes.io/os":"linux"%[2]s},`+
		`"annotations":{"kubeadm.alpha.kubernetes.io/cri-socket":"unix:///run/containerd/containerd.sock","node.alpha.kubernetes.io/ttl":"0","volumes.kubernetes.io/controller-managed-attach-detach":"true"}},`+
		`"spec":{"podCIDR":%[3]q,"podCIDRs":[%[3]q],"providerID":"kind://docker/%[4]s/%[1]s"%[5]s},`+
		`"status":{"addresses":[{"type":"InternalIP","address":%[6]q},{"type":"Hostname","address":%[1]q}],"allocatable":%[7]s,"capacity":%[7]s,`+
		`"conditions":[%[8]s,%[9]s,%[10]s,%[11]s],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},`+
		`"nodeInfo":{"architecture":"amd64","bootID":%[12]q,"containerRuntimeVersion":"containerd://1.7.24","kernelVersion":"6.8.0-kubeplay","kubeProxyVersion":"","kubeletVersion":%[13]q,"machineID":%[14]q,"operatingSystem":"linux","osImage":"Debian GNU/Linux 12 (bookworm)","systemUUID":%[14]q}}}`,
		name, labels, podCIDR(i), clusterName, taints, nodeIP(i), capacity,
		condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
		condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
		condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
		condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
		object.NewUID(), kubeletVersion, id))
}

// register has node i's kubelet register it, as a kubelet does when it
// starts: the Node (with its status) unless it exists, and its heartbeat Lease
// in kube-node-lease; then, as kube-controller-manager's node lifecycle
// controller does once a node is Ready, lifecycle takes off the not-ready
// taint that admission put on it. A node that exists (a sandbox restored) is
// left as it is.
func register(ctx context.Context, c, lifecycle *client.Client, i, total int, now time.Time) error {
	name := NodeName(i)
	data, err := c.Do(ctx, web.MethodGet, "/api/v1/nodes/"+name, "", nil)
	if client.IsNotFound(err) {
		data, err = c.Do(ctx, web.MethodPost, "/api/v1/nodes", "application/json", nodeJSON(i, total, now))
	}
	if err != nil {
		return err
	}
	n, err := controllers.Read[controllers.Node](data)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(n.Spec.Taints, func(t controllers.Taint) bool { return t.Key == notReadyTaint }) {
		_, err := controllers.Update(ctx, lifecycle, "/api/v1/nodes/"+name, n.Raw, func(obj object.Object) {
			spec := obj["spec"].(map[string]any)
			taints := slices.DeleteFunc(spec["taints"].([]any), func(t any) bool { return object.Path(t, "key") == notReadyTaint })
			if spec["taints"] = taints; len(taints) == 0 {
				delete(spec, "taints")
			}
		})
		if err != nil {
			return err
		}
	}
	lease := fmt.Sprintf(`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":%[1]q,"namespace":"kube-node-lease",`+
		`"ownerReferences":[{"apiVersion":"v1","kind":"Node","name":%[1]q,"uid":%[2]q}]},`+
		`"spec":{"holderIdentity":%[1]q,"leaseDurationSeconds":40,"renewTime":%[3]q}}`, name, n.Metadata.UID, controllers.MicroTimestamp(now))
	if _, err := c.Do(ctx, web.MethodPost, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", "application/json", []byte(lease)); err != nil && !client.IsConflict(err) {
		return err
	}
	return nil
}

// removeNodes takes out the simulated nodes numbered from on, left by a run
// with more nodes (a sandbox's node count lowered): as an administrator
// deleting a Node does, followed by kube's pod garbage collector, which
// deletes the Pods bound to a node that no longer exists (at once, with no
// grace: no kubelet is left to stop them); their controllers then make new
// ones on the nodes that remain. The nodes' Leases go with them (the garbage
// collector follows their owner references).
func removeNodes(ctx context.Context, h web.Handler, lifecycle *client.Client, from int) error {
	podGC := controllers.NewClient(h, "pod-garbage-collector")
	for i := from; i < MaxNodes; i++ {
		name := NodeName(i)
		if _, err := lifecycle.Do(ctx, web.MethodGet, "/api/v1/nodes/"+name, "", nil); client.IsNotFound(err) {
			continue
		} else if err != nil {
			return err
		}
		if _, err := lifecycle.Do(ctx, web.MethodDelete, "/api/v1/nodes/"+name, "", nil); err != nil && !client.IsNotFound(err) {
			return err
		}
		data, err := podGC.Do(ctx, web.MethodGet, "/api/v1/pods?fieldSelector=spec.nodeName%3D"+name, "", nil)
		if err != nil {
			return err
		}
		var pods struct {
			Items []struct{ Metadata controllers.ObjectMeta }
		}
		if err := json.Unmarshal(data, &pods); err != nil {
			return err
		}
		for _, p := range pods.Items {
			path := "/api/v1/namespaces/" + p.Metadata.Namespace + "/pods/" + p.Metadata.Name
			if _, err := podGC.Do(ctx, web.MethodDelete, path, "application/json", []byte(`{"gracePeriodSeconds":0}`)); err != nil && !client.IsNotFound(err) {
				return err
			}
		}
	}
	return nil
}
