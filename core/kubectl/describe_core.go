package kubectl

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// This file owns describe's Service, Node, Namespace, ConfigMap and Secret.

func init() {
	describers["/Service"] = describeService
	describers["/Node"] = describeNode
	describers["/Namespace"] = describeNamespace
	describers["/ConfigMap"] = describeConfigMap
	describers["/Secret"] = describeSecret
}

func describeService(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	svc, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	slices, _ := c.listAll("/apis/discovery.k8s.io/v1/namespaces/"+namespace+"/endpointslices",
		url.Values{"labelSelector": {"kubernetes.io/service-name=" + name}}, acceptTyped, 0)
	events := c.objectEvents(o, svc, "Service")
	spec := obj(svc, "spec")
	w := newDescribeWriter()
	w.objectMeta(svc)
	w.write(0, "Selector:\t%s\n", formatLabels(obj(spec, "selector")))
	w.write(0, "Type:\t%s\n", stringAt(spec, "type"))
	if has(spec, "ipFamilyPolicy") {
		w.write(0, "IP Family Policy:\t%s\n", stringAt(spec, "ipFamilyPolicy"))
	}
	if fams := strs(spec, "ipFamilies"); len(fams) > 0 {
		w.write(0, "IP Families:\t%s\n", strings.Join(fams, ","))
	} else {
		w.write(0, "IP Families:\t%s\n", "<none>")
	}
	w.write(0, "IP:\t%s\n", stringAt(spec, "clusterIP"))
	if ips := strs(spec, "clusterIPs"); len(ips) > 0 {
		w.write(0, "IPs:\t%s\n", strings.Join(ips, ","))
	} else {
		w.write(0, "IPs:\t%s\n", "<none>")
	}
	if ips := strs(spec, "externalIPs"); len(ips) > 0 {
		w.write(0, "External IPs:\t%v\n", strings.Join(ips, ","))
	}
	if s := stringAt(spec, "loadBalancerIP"); s != "" {
		w.write(0, "Desired LoadBalancer IP:\t%s\n", s)
	}
	if s := stringAt(spec, "externalName"); s != "" {
		w.write(0, "External Name:\t%s\n", s)
	}
	if ing := list(svc, "status", "loadBalancer", "ingress"); len(ing) > 0 {
		var parts []string
		for _, i := range ing {
			if ip := stringAt(i, "ip"); ip != "" {
				if mode := stringAt(i, "ipMode"); mode != "" {
					ip += " (" + mode + ")"
				}
				parts = append(parts, ip)
			} else {
				parts = append(parts, stringAt(i, "hostname"))
			}
		}
		w.write(0, "LoadBalancer Ingress:\t%s\n", strings.Join(parts, ", "))
	}
	for _, p := range list(spec, "ports") {
		pname := stringAt(p, "name")
		if pname == "" {
			pname = "<unset>"
		}
		proto := stringAt(p, "protocol")
		w.write(0, "Port:\t%s\t%d/%s\n", pname, num(p, "port"), proto)
		w.write(0, "TargetPort:\t%s/%s\n", stringAt(p, "targetPort"), proto)
		if np := num(p, "nodePort"); np != 0 {
			w.write(0, "NodePort:\t%s\t%d/%s\n", pname, np, proto)
		}
		w.write(0, "Endpoints:\t%s\n", formatEndpointSlices(slices, stringAt(p, "name")))
	}
	w.write(0, "Session Affinity:\t%s\n", stringAt(spec, "sessionAffinity"))
	if s := stringAt(spec, "externalTrafficPolicy"); s != "" {
		w.write(0, "External Traffic Policy:\t%s\n", s)
	}
	if has(spec, "internalTrafficPolicy") {
		w.write(0, "Internal Traffic Policy:\t%s\n", stringAt(spec, "internalTrafficPolicy"))
	}
	if n := num(spec, "healthCheckNodePort"); n != 0 {
		w.write(0, "HealthCheck NodePort:\t%d\n", n)
	}
	if r := strs(spec, "loadBalancerSourceRanges"); len(r) > 0 {
		w.write(0, "LoadBalancer Source Ranges:\t%v\n", strings.Join(r, ","))
	}
	w.events(events)
	return w.String(), nil
}

// formatEndpointSlices is a Service port's ready endpoints, at most three
// and how many more (kubectl's formatEndpointSlices for one port name).
func formatEndpointSlices(slices []map[string]any, port string) string {
	if len(slices) == 0 {
		return "<none>"
	}
	const max = 3
	var out []string
	more, count := false, 0
	add := func(e any, addr string) {
		if len(out) == max {
			more = true
		}
		if has(e, "conditions", "ready") && !boolean(e, "conditions", "ready") {
			return
		}
		if !more {
			out = append(out, addr)
		}
		count++
	}
	for _, s := range slices {
		ports := list(s, "ports")
		if len(ports) == 0 {
			for _, e := range list(s, "endpoints") {
				add(e, strs(e, "addresses")[0])
			}
			continue
		}
		for _, p := range ports {
			if stringAt(p, "name") != port {
				continue
			}
			for _, e := range list(s, "endpoints") {
				add(e, joinHostPort(strs(e, "addresses")[0], stringAt(p, "port")))
			}
		}
	}
	ret := strings.Join(out, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", ret, count-max)
	}
	return ret
}

func describeNode(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	node, err := c.getTyped(r.Path("", name))
	if err != nil {
		return "", err
	}
	podsPath := "/api/v1/pods"
	if namespace != "" {
		podsPath = "/api/v1/namespaces/" + namespace + "/pods"
	}
	pods, err := c.listAll(podsPath, url.Values{"fieldSelector": {"spec.nodeName=" + name + ",status.phase!=Succeeded,status.phase!=Failed"}}, acceptTyped, o.chunkSize)
	canViewPods := true
	if err != nil {
		var se *StatusError
		if !errors.As(err, &se) || se.Code != 403 {
			return "", err
		}
		canViewPods = false
	}
	var events []map[string]any
	if o.showEvents {
		events, _ = c.searchEvents(o, "", name, "Node", stringAt(node, "metadata", "uid"))
		byName, _ := c.searchEvents(o, "", name, "Node", name)
		events = append(append([]map[string]any{}, events...), byName...)
	}
	spec, st := obj(node, "spec"), obj(node, "status")
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", name)
	labels := strMap(node, "metadata", "labels")
	roles := map[string]bool{}
	for k, v := range labels {
		if role, ok := strings.CutPrefix(k, "node-role.kubernetes.io/"); ok && role != "" {
			roles[role] = true
		} else if k == "kubernetes.io/role" && v != "" {
			roles[v] = true
		}
	}
	if len(roles) > 0 {
		w.write(0, "Roles:\t%s\n", strings.Join(sortedKeys(roles), ","))
	} else {
		w.write(0, "Roles:\t%s\n", "<none>")
	}
	w.labels("", "Labels", "\t", labels)
	w.annotations("Annotations", strMap(node, "metadata", "annotations"))
	w.write(0, "CreationTimestamp:\t%s\n", rfc1123(stringAt(node, "metadata", "creationTimestamp")))
	w.taints(list(spec, "taints"))
	w.write(0, "Unschedulable:\t%v\n", boolean(spec, "unschedulable"))
	if lease, err := c.getTyped("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/" + name); err == nil {
		w.write(0, "Lease:\n")
		for _, f := range []struct{ key, title string }{{"holderIdentity", "HolderIdentity"}, {"acquireTime", "AcquireTime"}, {"renewTime", "RenewTime"}} {
			v := "<unset>"
			if has(lease, "spec", f.key) {
				v = stringAt(lease, "spec", f.key)
				if f.key != "holderIdentity" {
					v = rfc1123(v)
				}
			}
			w.write(1, "%s:\t%s\n", f.title, v)
		}
	} else {
		w.write(0, "Lease:\tFailed to get lease: %s\n", err)
	}
	if conds := list(st, "conditions"); len(conds) > 0 {
		w.write(0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n")
		w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n")
		for _, cd := range conds {
			w.write(1, "%v \t%v \t%s \t%s \t%v \t%v\n", stringAt(cd, "type"), stringAt(cd, "status"), rfc1123(stringAt(cd, "lastHeartbeatTime")),
				rfc1123(stringAt(cd, "lastTransitionTime")), stringAt(cd, "reason"), stringAt(cd, "message"))
		}
	}
	w.write(0, "Addresses:\n")
	for _, a := range list(st, "addresses") {
		w.write(1, "%s:\t%s\n", stringAt(a, "type"), stringAt(a, "address"))
	}
	for _, f := range []struct{ key, title string }{{"capacity", "Capacity"}, {"allocatable", "Allocatable"}} {
		if m := strMap(st, f.key); len(m) > 0 {
			w.write(0, "%s:\n", f.title)
			for _, k := range sortedKeys(m) {
				w.write(0, "  %s:\t%s\n", k, quantityString(m[k]))
			}
		}
	}
	info := obj(st, "nodeInfo")
	w.write(0, "System Info:\n")
	for _, f := range []struct{ key, title string }{{"machineID", "Machine ID"}, {"systemUUID", "System UUID"}, {"bootID", "Boot ID"},
		{"kernelVersion", "Kernel Version"}, {"osImage", "OS Image"}, {"operatingSystem", "Operating System"}, {"architecture", "Architecture"},
		{"containerRuntimeVersion", "Container Runtime Version"}, {"kubeletVersion", "Kubelet Version"}, {"kubeProxyVersion", "Kube-Proxy Version"}} {
		w.write(0, "  %s:\t%s\n", f.title, stringAt(info, f.key))
	}
	if s := stringAt(spec, "podCIDR"); s != "" {
		w.write(0, "PodCIDR:\t%s\n", s)
	}
	if s := strs(spec, "podCIDRs"); len(s) > 0 {
		w.write(0, "PodCIDRs:\t%s\n", strings.Join(s, ","))
	}
	if s := stringAt(spec, "providerID"); s != "" {
		w.write(0, "ProviderID:\t%s\n", s)
	}
	if canViewPods {
		w.nodeResources(node, pods)
	} else {
		w.write(0, "Pods:\tnot authorized\n")
	}
	w.events(events)
	return w.String(), nil
}

// taints prints a node's taints sorted by effect and key.
func (w *describeWriter) taints(taints []any) {
	w.write(0, "Taints:\t")
	if len(taints) == 0 {
		w.line("<none>")
		return
	}
	taints = append([]any(nil), taints...)
	key := func(t any) string { return stringAt(t, "effect") + "," + stringAt(t, "key") }
	sort.SliceStable(taints, func(i, j int) bool { return key(taints[i]) < key(taints[j]) })
	for i, t := range taints {
		if i != 0 {
			w.write(0, "\t")
		}
		k, v, e := stringAt(t, "key"), stringAt(t, "value"), stringAt(t, "effect")
		switch {
		case e == "" && v == "":
			w.write(0, "%s\n", k)
		case e == "":
			w.write(0, "%s=%s:\n", k, v)
		case v == "":
			w.write(0, "%s:%s\n", k, e)
		default:
			w.write(0, "%s=%s:%s\n", k, v, e)
		}
	}
}

// podRequestsAndLimits are a pod's effective requests and limits: its
// containers' sums, at least each init container's, plus its overhead.
func podRequestsAndLimits(pod map[string]any) (reqs, limits map[string]string) {
	reqs, limits = map[string]string{}, map[string]string{}
	sum := func(dst map[string]string, add map[string]string) {
		for k, v := range add {
			if old, ok := dst[k]; ok {
				dst[k] = quantityAdd(old, v)
			} else {
				dst[k] = v
			}
		}
	}
	max := func(dst map[string]string, other map[string]string) {
		for k, v := range other {
			if old, ok := dst[k]; !ok || quantityMilli(v) > quantityMilli(old) {
				dst[k] = v
			}
		}
	}
	for _, ct := range list(pod, "spec", "containers") {
		sum(reqs, strMap(ct, "resources", "requests"))
		sum(limits, strMap(ct, "resources", "limits"))
	}
	for _, ct := range list(pod, "spec", "initContainers") {
		max(reqs, strMap(ct, "resources", "requests"))
		max(limits, strMap(ct, "resources", "limits"))
	}
	if oh := strMap(pod, "spec", "overhead"); len(oh) > 0 {
		sum(reqs, oh)
		for k, v := range oh {
			if _, ok := limits[k]; ok {
				limits[k] = quantityAdd(limits[k], v)
			}
		}
	}
	return reqs, limits
}

// orZero is a quantity as Quantity.String prints it, "0" when empty.
func orZero(q string) string {
	if q == "" {
		return "0"
	}
	return quantityString(q)
}

// percent is part of whole in whole percent, truncated; 0 of nothing.
func percent(part, whole int64) int64 {
	if whole == 0 {
		return 0
	}
	return int64(float64(part) / float64(whole) * 100)
}

// nodeResources prints a node's non-terminated pods and its allocated
// resources (describeNodeResource).
func (w *describeWriter) nodeResources(node map[string]any, pods []map[string]any) {
	w.write(0, "Non-terminated Pods:\t(%d in total)\n", len(pods))
	w.write(1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n")
	w.write(1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n")
	alloc := strMap(node, "status", "capacity")
	if a := strMap(node, "status", "allocatable"); len(a) > 0 {
		alloc = a
	}
	for _, p := range pods {
		req, lim := podRequestsAndLimits(p)
		w.write(1, "%s\t%s\t\t%s (%d%%)\t%s (%d%%)\t%s (%d%%)\t%s (%d%%)\t%s\n", stringAt(p, "metadata", "namespace"), stringAt(p, "metadata", "name"),
			orZero(req["cpu"]), percent(quantityMilli(req["cpu"]), quantityMilli(alloc["cpu"])), orZero(lim["cpu"]), percent(quantityMilli(lim["cpu"]), quantityMilli(alloc["cpu"])),
			orZero(req["memory"]), percent(quantityValue(req["memory"]), quantityValue(alloc["memory"])), orZero(lim["memory"]), percent(quantityValue(lim["memory"]), quantityValue(alloc["memory"])),
			since(stringAt(p, "metadata", "creationTimestamp")))
	}
	w.write(0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n")
	w.write(1, "Resource\tRequests\tLimits\n")
	w.write(1, "--------\t--------\t------\n")
	reqs, limits := map[string]string{}, map[string]string{}
	for _, p := range pods {
		r, l := podRequestsAndLimits(p)
		for k, v := range r {
			reqs[k] = quantityAdd(orZero(reqs[k]), v)
		}
		for k, v := range l {
			limits[k] = quantityAdd(orZero(limits[k]), v)
		}
	}
	w.write(1, "%s\t%s (%d%%)\t%s (%d%%)\n", "cpu", orZero(reqs["cpu"]), percent(quantityMilli(reqs["cpu"]), quantityMilli(alloc["cpu"])),
		orZero(limits["cpu"]), percent(quantityMilli(limits["cpu"]), quantityMilli(alloc["cpu"])))
	for _, res := range []string{"memory", "ephemeral-storage"} {
		w.write(1, "%s\t%s (%d%%)\t%s (%d%%)\n", res, orZero(reqs[res]), percent(quantityValue(reqs[res]), quantityValue(alloc[res])),
			orZero(limits[res]), percent(quantityValue(limits[res]), quantityValue(alloc[res])))
	}
	var huge, ext []string
	for _, res := range sortedKeys(alloc) {
		switch {
		case strings.HasPrefix(res, "hugepages-"):
			huge = append(huge, res)
		case res != "cpu" && res != "memory" && res != "ephemeral-storage" && res != "pods":
			ext = append(ext, res)
		}
	}
	for _, res := range huge {
		w.write(1, "%s\t%s (%d%%)\t%s (%d%%)\n", res, orZero(reqs[res]), percent(quantityValue(reqs[res]), quantityValue(alloc[res])),
			orZero(limits[res]), percent(quantityValue(limits[res]), quantityValue(alloc[res])))
	}
	for _, res := range ext {
		w.write(1, "%s\t%s\t%s\n", res, orZero(reqs[res]), orZero(limits[res]))
	}
}

func describeNamespace(c *Cmd, o *describeOptions, r Resource, _, name string) (string, error) {
	ns, err := c.getTyped(r.Path("", name))
	if err != nil {
		return "", err
	}
	listOrNil := func(resource string) ([]map[string]any, bool, error) {
		items, err := c.listAll("/api/v1/namespaces/"+name+"/"+resource, url.Values{}, acceptTyped, o.chunkSize)
		var se *StatusError
		if errors.As(err, &se) && se.Code == 404 {
			return nil, false, nil
		}
		return items, err == nil, err
	}
	quotas, haveQuotas, err := listOrNil("resourcequotas")
	if err != nil {
		return "", err
	}
	limitRanges, haveLimits, err := listOrNil("limitranges")
	if err != nil {
		return "", err
	}
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", name)
	w.labels("", "Labels", "\t", strMap(ns, "metadata", "labels"))
	w.annotations("Annotations", strMap(ns, "metadata", "annotations"))
	w.write(0, "Status:\t%s\n", stringAt(ns, "status", "phase"))
	if conds := list(ns, "status", "conditions"); len(conds) > 0 {
		w.write(0, "Conditions:\n")
		w.write(1, "Type\tStatus\tLastTransitionTime\tReason\tMessage\n")
		w.write(1, "----\t------\t------------------\t------\t-------\n")
		for _, cd := range conds {
			w.write(1, "%v\t%v\t%s\t%v\t%v\n", stringAt(cd, "type"), stringAt(cd, "status"), rfc1123(stringAt(cd, "lastTransitionTime")), stringAt(cd, "reason"), stringAt(cd, "message"))
		}
	}
	if haveQuotas {
		w.write(0, "\n")
		w.resourceQuotas(quotas)
	}
	if haveLimits {
		w.write(0, "\n")
		w.limitRanges(limitRanges)
	}
	return w.String(), nil
}

// quotaScopeHelp is the line describe prints under a quota scope.
var quotaScopeHelp = map[string]string{
	"Terminating":    "Matches all pods that have an active deadline. These pods have a limited lifespan on a node before being actively terminated by the system.",
	"NotTerminating": "Matches all pods that do not have an active deadline. These pods usually include long running pods whose container command is not expected to terminate.",
	"BestEffort":     "Matches all pods that do not have resource requirements set. These pods have a best effort quality of service.",
	"NotBestEffort":  "Matches all pods that have at least one resource requirement set. These pods have a burstable or guaranteed quality of service.",
}

// resourceQuotas prints a namespace's quotas (DescribeResourceQuotas).
func (w *describeWriter) resourceQuotas(quotas []map[string]any) {
	if len(quotas) == 0 {
		w.write(0, "No resource quota.\n")
		return
	}
	sort.SliceStable(quotas, func(i, j int) bool {
		return stringAt(quotas[i], "metadata", "name") < stringAt(quotas[j], "metadata", "name")
	})
	w.write(0, "Resource Quotas\n")
	for _, q := range quotas {
		w.write(1, "Name:\t%s\n", stringAt(q, "metadata", "name"))
		if scopes := strs(q, "spec", "scopes"); len(scopes) > 0 {
			sort.Strings(scopes)
			w.write(1, "Scopes:\t%s\n", strings.Join(scopes, ", "))
			for _, s := range scopes {
				if h := quotaScopeHelp[s]; h != "" {
					w.write(1, "* %s\n", h)
				}
			}
		}
		w.write(1, "Resource\tUsed\tHard\n")
		w.write(1, "--------\t---\t---\n")
		hard, used := strMap(q, "status", "hard"), strMap(q, "status", "used")
		for _, res := range sortedKeys(hard) {
			w.write(1, "%s\t%s\t%s\n", res, orZero(used[res]), quantityString(hard[res]))
		}
	}
}

// limitRanges prints a namespace's limit ranges (DescribeLimitRanges).
func (w *describeWriter) limitRanges(lrs []map[string]any) {
	if len(lrs) == 0 {
		w.write(0, "No LimitRange resource.\n")
		return
	}
	w.write(0, "Resource Limits\n Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n")
	w.write(0, " ----\t--------\t---\t---\t---------------\t-------------\t-----------------------\n")
	for _, lr := range lrs {
		w.limitRangeItems(lr, " ")
	}
}

// limitRangeItems prints a limit range's items, one line a resource
// (describeLimitRangeSpec); an item's resources in name order (kubectl's
// come in map order).
func (w *describeWriter) limitRangeItems(lr map[string]any, prefix string) {
	for _, item := range list(lr, "spec", "limits") {
		cols := []string{"min", "max", "defaultRequest", "default", "maxLimitRequestRatio"}
		names := map[string]bool{}
		for _, col := range cols {
			for k := range strMap(item, col) {
				names[k] = true
			}
		}
		for _, res := range sortedKeys(names) {
			vals := []any{prefix, stringAt(item, "type"), res}
			for _, col := range cols {
				if v, ok := strMap(item, col)[res]; ok {
					vals = append(vals, quantityString(v))
				} else {
					vals = append(vals, "-")
				}
			}
			w.write(0, "%s%s\t%v\t%v\t%v\t%v\t%v\t%v\n", vals...)
		}
	}
}

func describeConfigMap(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	cm, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	w := newDescribeWriter()
	w.objectMeta(cm)
	w.write(0, "\nData\n====\n")
	data := strMap(cm, "data")
	for _, k := range sortedKeys(data) {
		w.write(0, "%s:\n----\n", k)
		w.write(0, "%s\n", data[k])
		w.write(0, "\n")
	}
	w.write(0, "\nBinaryData\n====\n")
	bin := strMap(cm, "binaryData")
	for _, k := range sortedKeys(bin) {
		b, _ := base64.StdEncoding.DecodeString(bin[k])
		w.write(0, "%s: %d bytes\n", k, len(b))
	}
	w.write(0, "\n")
	if o.showEvents {
		events, err := c.searchEvents(o, namespace, name, "ConfigMap", stringAt(cm, "metadata", "uid"))
		if err != nil {
			return "", err
		}
		w.events(append([]map[string]any{}, events...))
	}
	return w.String(), nil
}

func describeSecret(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	s, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	w := newDescribeWriter()
	w.objectMeta(s)
	typ := stringAt(s, "type")
	w.write(0, "\nType:\t%s\n", typ)
	w.write(0, "\nData\n====\n")
	data := strMap(s, "data")
	for _, k := range sortedKeys(data) {
		b, _ := base64.StdEncoding.DecodeString(data[k])
		if k == "token" && typ == "kubernetes.io/service-account-token" {
			w.write(0, "%s:\t%s\n", k, string(b))
		} else {
			w.write(0, "%s:\t%d bytes\n", k, len(b))
		}
	}
	return w.String(), nil
}
