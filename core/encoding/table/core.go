package table

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/web"
)

// Namespace prints Namespaces as kube-apiserver does.
var Namespace = &Printer{
	columns: []Column{nameColumn, {Name: "Status", Type: "string", Description: descNamespaceStatus}, ageColumn},
	cells: func(obj object.Object, now time.Time) []any {
		phase := strAt(obj, "status", "phase")
		if phase == "" {
			phase = "Active" // SetDefaults_NamespaceStatus
		}
		return []any{name(obj), phase, created(obj, now)}
	},
}

// ConfigMap prints ConfigMaps as kube-apiserver does.
var ConfigMap = &Printer{
	columns: []Column{nameColumn, {Name: "Data", Type: "string", Description: descConfigMapData}, ageColumn},
	cells: func(obj object.Object, now time.Time) []any {
		return []any{name(obj), int64(len(mapAt(obj, "data")) + len(mapAt(obj, "binaryData"))), created(obj, now)}
	},
}

// ResourceQuota shows each limit in force as "resource: used/hard",
// the limits.* ones under Limit, the others under Request.
var ResourceQuota = &Printer{
	columns: []Column{
		nameColumn, ageColumn,
		{Name: "Request", Type: "string", Description: "Request represents a minimum amount of cpu/memory that a container may consume."},
		{Name: "Limit", Type: "string", Description: "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."},
	},
	cells: func(obj object.Object, now time.Time) []any {
		hard, used := mapAt(obj, "status", "hard"), mapAt(obj, "status", "used")
		names := make([]string, 0, len(hard))
		for k := range hard {
			names = append(names, k)
		}
		sort.Strings(names)
		var requests, limits []string
		for _, k := range names {
			u := strAt(used, k)
			if u == "" {
				u = "0"
			}
			cell := k + ": " + u + "/" + strAt(hard, k)
			if strings.HasPrefix(k, "limits.") {
				limits = append(limits, cell)
			} else {
				requests = append(requests, cell)
			}
		}
		return []any{name(obj), created(obj, now), strings.Join(requests, ", "), strings.Join(limits, ", ")}
	},
}

// Secret prints Secrets as kube-apiserver does.
var Secret = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Type", Type: "string", Description: descSecretType},
		{Name: "Data", Type: "string", Description: descSecretData},
		ageColumn,
	},
	cells: func(obj object.Object, now time.Time) []any {
		typ := strAt(obj, "type")
		if typ == "" {
			typ = "Opaque" // SetDefaults_Secret
		}
		// The v1 to internal conversion merges stringData into data (kube
		// does it on write, so a stored Secret has no stringData).
		keys := len(mapAt(obj, "data"))
		for k := range mapAt(obj, "stringData") {
			if _, dup := mapAt(obj, "data")[k]; !dup {
				keys++
			}
		}
		return []any{name(obj), typ, int64(keys), created(obj, now)}
	},
}

// ServiceAccount prints ServiceAccounts as kube-apiserver does.
var ServiceAccount = &Printer{
	columns: []Column{nameColumn, {Name: "Secrets", Type: "string", Description: descServiceAccountSecrets}, ageColumn},
	cells: func(obj object.Object, now time.Time) []any {
		return []any{name(obj), int64(len(listAt(obj, "secrets"))), created(obj, now)}
	},
}

// Service prints Services as kube-apiserver does.
var Service = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Type", Type: "string", Description: descServiceType},
		{Name: "Cluster-IP", Type: "string", Description: descServiceClusterIP},
		{Name: "External-IP", Type: "string", Description: descServiceExternalIPs},
		{Name: "Port(s)", Type: "string", Description: descServicePorts},
		ageColumn,
		{Name: "Selector", Type: "string", Priority: 1, Description: descServiceSelector},
	},
	cells: serviceCells,
}

func serviceCells(svc object.Object, now time.Time) []any {
	spec := mapAt(svc, "spec")
	typ := strAt(spec, "type")
	if typ == "" {
		typ = "ClusterIP" // SetDefaults_Service
	}
	clusterIP := "<none>"
	if ips := listAt(spec, "clusterIPs"); len(ips) > 0 {
		clusterIP, _ = ips[0].(string)
	} else if ip := strAt(spec, "clusterIP"); ip != "" {
		// kube-apiserver always stores clusterIPs along with clusterIP.
		clusterIP = ip
	}
	var ports []string
	for _, p := range listAt(spec, "ports") {
		protocol := strAt(p, "protocol")
		if protocol == "" {
			protocol = "TCP" // SetDefaults_Service
		}
		s := strconv.FormatInt(intAt(p, "port"), 10)
		if np := intAt(p, "nodePort"); np > 0 {
			s += ":" + strconv.FormatInt(np, 10)
		}
		ports = append(ports, s+"/"+protocol)
	}
	return []any{
		name(svc), typ, clusterIP, serviceExternalIP(svc, typ), orNone(strings.Join(ports, ",")),
		created(svc, now), formatLabels(stringMap(object.Path(spec, "selector"))),
	}
}

// serviceExternalIP is getServiceExternalIP with wide output (the server prints
// wide), so load balancer addresses are never shortened.
func serviceExternalIP(svc object.Object, typ string) string {
	external := stringList(object.Path(svc, "spec", "externalIPs"))
	switch typ {
	case "ClusterIP", "NodePort":
		if len(external) > 0 {
			return strings.Join(external, ",")
		}
		return "<none>"
	case "LoadBalancer":
		seen := map[string]bool{}
		var lb []string
		for _, in := range listAt(svc, "status", "loadBalancer", "ingress") {
			addr := strAt(in, "ip")
			if addr == "" {
				addr = strAt(in, "hostname")
			}
			if addr != "" && !seen[addr] {
				seen[addr] = true
				lb = append(lb, addr)
			}
		}
		sort.Strings(lb)
		if all := append(lb, external...); len(all) > 0 {
			return strings.Join(all, ",")
		}
		return "<pending>"
	case "ExternalName":
		return strAt(svc, "spec", "externalName")
	}
	return "<unknown>"
}

// Endpoints prints Endpoints as kube-apiserver does.
var Endpoints = &Printer{
	columns: []Column{nameColumn, {Name: "Endpoints", Type: "string", Description: descEndpointsSubsets}, ageColumn},
	cells: func(obj object.Object, now time.Time) []any {
		return []any{name(obj), formatEndpoints(listAt(obj, "subsets")), created(obj, now)}
	},
}

// formatEndpoints lists the first three addresses (ip:port for each port of a
// subset, the bare ip for a subset without ports) and how many more there are.
func formatEndpoints(subsets []any) string {
	if len(subsets) == 0 {
		return "<none>"
	}
	const max = 3
	var list []string
	count := 0
	add := func(s string) {
		count++
		if len(list) < max {
			list = append(list, s)
		}
	}
	for _, ss := range subsets {
		addrs, ports := listAt(ss, "addresses"), listAt(ss, "ports")
		if len(ports) == 0 {
			for _, a := range addrs {
				add(strAt(a, "ip"))
			}
			continue
		}
		for _, p := range ports {
			port := strconv.Itoa(int(int32(intAt(p, "port"))))
			for _, a := range addrs {
				add(web.JoinHostPort(strAt(a, "ip"), port))
			}
		}
	}
	s := strings.Join(list, ",")
	if count > max {
		s += " + " + strconv.Itoa(count-max) + " more..."
	}
	return s
}

// Node prints Nodes as kube-apiserver does.
var Node = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Status", Type: "string", Description: descNodeStatus},
		{Name: "Roles", Type: "string", Description: descNodeRoles},
		ageColumn,
		{Name: "Version", Type: "string", Description: descKubeletVersion},
		{Name: "Internal-IP", Type: "string", Priority: 1, Description: descNodeAddresses},
		{Name: "External-IP", Type: "string", Priority: 1, Description: descNodeAddresses},
		{Name: "OS-Image", Type: "string", Priority: 1, Description: descOSImage},
		{Name: "Kernel-Version", Type: "string", Priority: 1, Description: descKernelVersion},
		{Name: "Container-Runtime", Type: "string", Priority: 1, Description: descContainerRuntimeVers},
	},
	cells: nodeCells,
}

func nodeCells(node object.Object, now time.Time) []any {
	// The last Ready condition decides, as printNode's map of conditions by type.
	var status []string
	for _, c := range listAt(node, "status", "conditions") {
		if strAt(c, "type") == "Ready" {
			if strAt(c, "status") == "True" {
				status = []string{"Ready"}
			} else {
				status = []string{"NotReady"}
			}
		}
	}
	if len(status) == 0 {
		status = []string{"Unknown"}
	}
	if boolAt(node, "spec", "unschedulable") {
		status = append(status, "SchedulingDisabled")
	}

	roleSet := map[string]bool{}
	for k, v := range stringMap(object.Path(node, "metadata", "labels")) {
		switch {
		case strings.HasPrefix(k, "node-role.kubernetes.io/"):
			if role := strings.TrimPrefix(k, "node-role.kubernetes.io/"); role != "" {
				roleSet[role] = true
			}
		case k == "kubernetes.io/role" && v != "":
			roleSet[v] = true
		}
	}
	roles := make([]string, 0, len(roleSet))
	for r := range roleSet {
		roles = append(roles, r)
	}
	sort.Strings(roles)

	info := mapAt(node, "status", "nodeInfo")
	address := func(typ string) string {
		for _, a := range listAt(node, "status", "addresses") {
			if strAt(a, "type") == typ {
				return strAt(a, "address")
			}
		}
		return "<none>"
	}
	unknown := func(s string) string {
		if s == "" {
			return "<unknown>"
		}
		return s
	}
	return []any{
		name(node), strings.Join(status, ","), orNone(strings.Join(roles, ",")), created(node, now),
		strAt(info, "kubeletVersion"), address("InternalIP"), address("ExternalIP"),
		unknown(strAt(info, "osImage")), unknown(strAt(info, "kernelVersion")), unknown(strAt(info, "containerRuntimeVersion")),
	}
}

// Event prints Events as kube-apiserver does.
var Event = &Printer{
	columns: []Column{
		{Name: "Last Seen", Type: "string", Description: descEventLastTimestamp},
		{Name: "Type", Type: "string", Description: descEventType},
		{Name: "Reason", Type: "string", Description: descEventReason},
		{Name: "Object", Type: "string", Description: descEventInvolvedObject},
		{Name: "Subobject", Type: "string", Priority: 1, Description: descEventFieldPath},
		{Name: "Source", Type: "string", Priority: 1, Description: descEventSource},
		{Name: "Message", Type: "string", Description: descEventMessage},
		{Name: "First Seen", Type: "string", Priority: 1, Description: descEventFirstTimestamp},
		{Name: "Count", Type: "string", Priority: 1, Description: descEventCount},
		{Name: "Name", Type: "string", Priority: 1, Format: "name", Description: descName},
	},
	cells: eventCells,
}

func eventCells(ev object.Object, now time.Time) []any {
	first := timeAt(ev, "firstTimestamp")
	if first.IsZero() {
		first = timeAt(ev, "eventTime")
	}
	firstSeen := age(first, now)
	lastSeen := firstSeen
	if last := timeAt(ev, "lastTimestamp"); !last.IsZero() {
		lastSeen = age(last, now)
	}
	count := int64(int32(intAt(ev, "count")))
	if has(ev, "series") {
		lastSeen = age(timeAt(ev, "series", "lastObservedTime"), now)
		count = int64(int32(intAt(ev, "series", "count")))
	} else if count == 0 {
		count = 1 // singleton events of the events.k8s.io API have no count
	}
	target := strings.ToLower(strAt(ev, "involvedObject", "kind"))
	if n := strAt(ev, "involvedObject", "name"); n != "" {
		target += "/" + n
	}
	component := strAt(ev, "source", "component")
	if component == "" {
		component = strAt(ev, "reportingComponent")
	}
	instance := strAt(ev, "source", "host")
	if instance == "" {
		instance = strAt(ev, "reportingInstance")
	}
	source := component
	if instance != "" {
		source += ", " + instance
	}
	return []any{
		lastSeen, strAt(ev, "type"), strAt(ev, "reason"), target, strAt(ev, "involvedObject", "fieldPath"),
		source, strings.TrimSpace(strAt(ev, "message")), firstSeen, count, name(ev),
	}
}

// Lease prints Leases as kube-apiserver does.
var Lease = &Printer{
	columns: []Column{nameColumn, {Name: "Holder", Type: "string", Description: descLeaseHolder}, ageColumn},
	cells: func(obj object.Object, now time.Time) []any {
		return []any{name(obj), strAt(obj, "spec", "holderIdentity"), created(obj, now)}
	},
}

// stringMap reads a map of strings (labels, selectors); other values are dropped.
func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, x := range m {
		if s, ok := x.(string); ok {
			out[k] = s
		}
	}
	return out
}

// stringList reads a list of strings; other items are dropped.
func stringList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// EndpointSlice prints EndpointSlices as kube-apiserver does.
var EndpointSlice = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "AddressType", Type: "string", Description: descSliceAddressType},
		{Name: "Ports", Type: "string", Description: descSlicePorts},
		{Name: "Endpoints", Type: "string", Description: descSliceEndpoints},
		ageColumn,
	},
	cells: func(obj object.Object, now time.Time) []any {
		var ports, addresses []string
		for _, p := range listAt(obj, "ports") {
			if object.Path(p, "port") != nil {
				ports = append(ports, strconv.Itoa(int(int32(intAt(p, "port")))))
			} else {
				ports = append(ports, strAt(p, "name")) // defaulted to "" (kube's "*" for neither never shows)
			}
		}
		for _, e := range listAt(obj, "endpoints") {
			for _, a := range listAt(e, "addresses") {
				addresses = append(addresses, object.String(a))
			}
		}
		return []any{name(obj), strAt(obj, "addressType"), listWithMore(ports), listWithMore(addresses), created(obj, now)}
	},
}

// listWithMore is kube's listWithMoreString: the first three, and how many
// more there are; <unset> for none.
func listWithMore(list []string) string {
	const max = 3
	if len(list) == 0 {
		return "<unset>"
	}
	if len(list) > max {
		return strings.Join(list[:max], ",") + " + " + strconv.Itoa(len(list)-max) + " more..."
	}
	return strings.Join(list, ",")
}

// ComponentStatus prints a ComponentStatus's Healthy condition: Healthy or
// Unhealthy (Unknown without one), its message and error.
var ComponentStatus = &Printer{
	columns: []Column{nameColumn, {Name: "Status", Type: "string", Description: "Status of the component conditions"},
		{Name: "Message", Type: "string", Description: "Message of the component conditions"},
		{Name: "Error", Type: "string", Description: "Error of the component conditions"}},
	cells: func(obj object.Object, _ time.Time) []any {
		status, message, errText := "Unknown", "", ""
		conds, _ := obj["conditions"].([]any)
		for _, c := range conds {
			if m, _ := c.(map[string]any); object.String(m["type"]) == "Healthy" {
				status = "Unhealthy"
				if m["status"] == "True" {
					status = "Healthy"
				}
				message, errText = object.String(m["message"]), object.String(m["error"])
				break
			}
		}
		return []any{name(obj), status, message, errText}
	},
}
