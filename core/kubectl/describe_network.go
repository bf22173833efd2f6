package kubectl

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// This file owns describe's Ingress, NetworkPolicy, Endpoints,
// EndpointSlice, PersistentVolumeClaim, PodDisruptionBudget, ResourceQuota
// and LimitRange.

func init() {
	describers["networking.k8s.io/Ingress"] = describeIngress
	describers["/Endpoints"] = describeEndpoints
	describers["/PersistentVolumeClaim"] = describePVC
	describers["/ResourceQuota"] = describeResourceQuota
	describers["/LimitRange"] = describeLimitRange
	describers["discovery.k8s.io/EndpointSlice"] = describeEndpointSlice
	describers["policy/PodDisruptionBudget"] = describePDB
	describers["networking.k8s.io/NetworkPolicy"] = describeNetworkPolicy
}

func describeIngress(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	ing, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, ing, "Ingress")
	spec := obj(ing, "spec")
	w := newDescribeWriter()
	w.write(0, "Name:\t%v\n", stringAt(ing, "metadata", "name"))
	w.labels("", "Labels", "\t", strMap(ing, "metadata", "labels"))
	w.write(0, "Namespace:\t%v\n", namespace)
	addrs := map[string]bool{}
	for _, i := range list(ing, "status", "loadBalancer", "ingress") {
		if ip := stringAt(i, "ip"); ip != "" {
			addrs[ip] = true
		} else if h := stringAt(i, "hostname"); h != "" {
			addrs[h] = true
		}
	}
	w.write(0, "Address:\t%v\n", strings.Join(sortedKeys(addrs), ","))
	class := "<none>"
	if has(spec, "ingressClassName") {
		class = stringAt(spec, "ingressClassName")
	}
	w.write(0, "Ingress Class:\t%v\n", class)
	def := "<default>"
	if b := obj(spec, "defaultBackend"); b != nil {
		def = c.ingressBackend(namespace, b)
	}
	w.write(0, "Default backend:\t%s\n", def)
	if tls := list(spec, "tls"); len(tls) > 0 {
		w.write(0, "TLS:\n")
		for _, t := range tls {
			if s := stringAt(t, "secretName"); s == "" {
				w.write(1, "SNI routes %v\n", strings.Join(strs(t, "hosts"), ","))
			} else {
				w.write(1, "%v terminates %v\n", s, strings.Join(strs(t, "hosts"), ","))
			}
		}
	}
	w.write(0, "Rules:\n  Host\tPath\tBackends\n")
	w.write(1, "----\t----\t--------\n")
	count := 0
	for _, rule := range list(spec, "rules") {
		if !has(rule, "http") {
			continue
		}
		count++
		host := stringAt(rule, "host")
		if host == "" {
			host = "*"
		}
		w.write(1, "%s\t\n", host)
		for _, p := range list(rule, "http", "paths") {
			w.write(2, "\t%s \t%s\n", stringAt(p, "path"), c.ingressBackend(namespace, obj(p, "backend")))
		}
	}
	if count == 0 {
		w.write(1, "%s\t%s\t%s\n", "*", "*", def)
	}
	w.annotations("Annotations", strMap(ing, "metadata", "annotations"))
	w.events(events)
	return w.String(), nil
}

// ingressBackend is a backend as describe shows it: "svc:port (endpoints)"
// from the Service's EndpointSlices, or a resource backend.
func (c *Cmd) ingressBackend(namespace string, b map[string]any) string {
	if svc := obj(b, "service"); svc != nil {
		port := stringAt(svc, "port", "name")
		if n := num(svc, "port", "number"); n != 0 {
			port = fmt.Sprint(n)
		}
		sb := stringAt(svc, "name") + ":" + port
		slices, err := c.listAll("/apis/discovery.k8s.io/v1/namespaces/"+namespace+"/endpointslices",
			url.Values{"labelSelector": {"kubernetes.io/service-name=" + stringAt(svc, "name")}}, acceptTyped, 0)
		if err != nil {
			return fmt.Sprintf("%v (<error: %v>)", sb, err)
		}
		s, err := c.getTyped("/api/v1/namespaces/" + namespace + "/services/" + stringAt(svc, "name"))
		if err != nil {
			return fmt.Sprintf("%v (<error: %v>)", sb, err)
		}
		spName := ""
		for _, sp := range list(s, "spec", "ports") {
			if n := num(svc, "port", "number"); n != 0 && n == num(sp, "port") {
				spName = stringAt(sp, "name")
			} else if pn := stringAt(svc, "port", "name"); pn != "" && pn == stringAt(sp, "name") {
				spName = stringAt(sp, "name")
			}
		}
		return fmt.Sprintf("%s (%s)", sb, formatEndpointSlices(slices, spName))
	}
	if res := obj(b, "resource"); res != nil {
		group := "<none>"
		if has(res, "apiGroup") {
			group = stringAt(res, "apiGroup")
		}
		return fmt.Sprintf("APIGroup: %v, Kind: %v, Name: %v", group, stringAt(res, "kind"), stringAt(res, "name"))
	}
	return ""
}

func describeEndpoints(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	ep, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, ep, "Endpoints")
	w := newDescribeWriter()
	w.objectMeta(ep)
	w.write(0, "Subsets:\n")
	ips := func(addrs []any) string {
		var out []string
		for _, a := range addrs {
			out = append(out, stringAt(a, "ip"))
		}
		if len(out) == 0 {
			return "<none>"
		}
		return strings.Join(out, ",")
	}
	for _, s := range list(ep, "subsets") {
		w.write(1, "Addresses:\t%s\n", ips(list(s, "addresses")))
		w.write(1, "NotReadyAddresses:\t%s\n", ips(list(s, "notReadyAddresses")))
		if ports := list(s, "ports"); len(ports) > 0 {
			w.write(1, "Ports:\n")
			w.write(2, "Name\tPort\tProtocol\n")
			w.write(2, "----\t----\t--------\n")
			for _, p := range ports {
				n := stringAt(p, "name")
				if n == "" {
					n = "<unset>"
				}
				w.write(2, "%s\t%d\t%s\n", n, num(p, "port"), stringAt(p, "protocol"))
			}
		}
		w.write(0, "\n")
	}
	w.events(events)
	return w.String(), nil
}

func describePVC(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	pvc, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	nsPods, err := c.listAll("/api/v1/namespaces/"+namespace+"/pods", url.Values{}, acceptTyped, o.chunkSize)
	if err != nil {
		return "", err
	}
	var users []map[string]any
	for _, p := range nsPods {
		for _, v := range list(p, "spec", "volumes") {
			if has(v, "persistentVolumeClaim") && stringAt(v, "persistentVolumeClaim", "claimName") == name {
				users = append(users, p)
			}
		}
	}
owners:
	for _, ref := range list(pvc, "metadata", "ownerReferences") {
		if stringAt(ref, "kind") != "Pod" {
			continue
		}
		for _, p := range nsPods {
			if stringAt(p, "metadata", "uid") != stringAt(ref, "uid") {
				continue
			}
			for _, u := range users {
				if stringAt(u, "metadata", "uid") == stringAt(p, "metadata", "uid") {
					continue owners
				}
			}
			users = append(users, p)
			break
		}
	}
	events := c.objectEvents(o, pvc, "PersistentVolumeClaim")
	spec := obj(pvc, "spec")
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", name)
	w.write(0, "Namespace:\t%s\n", namespace)
	class := stringAt(spec, "storageClassName")
	if a, ok := strMap(pvc, "metadata", "annotations")["volume.beta.kubernetes.io/storage-class"]; ok {
		class = a
	}
	w.write(0, "StorageClass:\t%s\n", class)
	if has(pvc, "metadata", "deletionTimestamp") {
		w.write(0, "Status:\tTerminating (lasts %s)\n", since(stringAt(pvc, "metadata", "deletionTimestamp")))
	} else {
		w.write(0, "Status:\t%v\n", stringAt(pvc, "status", "phase"))
	}
	w.write(0, "Volume:\t%s\n", stringAt(spec, "volumeName"))
	w.labels("", "Labels", "\t", strMap(pvc, "metadata", "labels"))
	w.annotations("Annotations", strMap(pvc, "metadata", "annotations"))
	w.write(0, "Finalizers:\t%v\n", fmt.Sprint(strs(pvc, "metadata", "finalizers")))
	capacity, modes := "", ""
	if stringAt(spec, "volumeName") != "" {
		modes = accessModes(strs(pvc, "status", "accessModes"))
		capacity = orZero(stringAt(pvc, "status", "capacity", "storage"))
	}
	w.write(0, "Capacity:\t%s\n", capacity)
	w.write(0, "Access Modes:\t%s\n", modes)
	if has(spec, "volumeMode") {
		w.write(0, "VolumeMode:\t%v\n", stringAt(spec, "volumeMode"))
	}
	if ds := obj(spec, "dataSource"); ds != nil {
		w.write(0, "DataSource:\n")
		if has(ds, "apiGroup") {
			w.write(1, "APIGroup:\t%v\n", stringAt(ds, "apiGroup"))
		}
		w.write(1, "Kind:\t%v\n", stringAt(ds, "kind"))
		w.write(1, "Name:\t%v\n", stringAt(ds, "name"))
	}
	w.write(0, "%s:%s", "Used By", "\t")
	if len(users) == 0 {
		w.line("<none>")
	} else {
		sort.SliceStable(users, func(i, j int) bool {
			return stringAt(users[i], "metadata", "name") < stringAt(users[j], "metadata", "name")
		})
		for i, p := range users {
			if i != 0 {
				w.write(0, "\t")
			}
			w.write(0, "%s\n", stringAt(p, "metadata", "name"))
		}
	}
	if conds := list(pvc, "status", "conditions"); len(conds) > 0 {
		w.write(0, "Conditions:\n")
		w.write(1, "Type\tStatus\tLastProbeTime\tLastTransitionTime\tReason\tMessage\n")
		w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n")
		for _, cd := range conds {
			w.write(1, "%v \t%v \t%s \t%s \t%v \t%v\n", stringAt(cd, "type"), stringAt(cd, "status"), rfc1123(stringAt(cd, "lastProbeTime")),
				rfc1123(stringAt(cd, "lastTransitionTime")), stringAt(cd, "reason"), stringAt(cd, "message"))
		}
	}
	w.events(events)
	return w.String(), nil
}

func describeResourceQuota(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	q, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", stringAt(q, "metadata", "name"))
	w.write(0, "Namespace:\t%s\n", stringAt(q, "metadata", "namespace"))
	if scopes := strs(q, "spec", "scopes"); len(scopes) > 0 {
		sort.Strings(scopes)
		w.write(0, "Scopes:\t%s\n", strings.Join(scopes, ", "))
		for _, s := range scopes {
			if h := quotaScopeHelp[s]; h != "" {
				w.write(0, " * %s\n", h)
			}
		}
	}
	w.write(0, "Resource\tUsed\tHard\n")
	w.write(0, "--------\t----\t----\n")
	hard, used := strMap(q, "status", "hard"), strMap(q, "status", "used")
	for _, res := range sortedKeys(hard) {
		w.write(0, "%v\t%v\t%v\n", res, orZero(used[res]), quantityString(hard[res]))
	}
	return w.String(), nil
}

func describeLimitRange(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	lr, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", stringAt(lr, "metadata", "name"))
	w.write(0, "Namespace:\t%s\n", stringAt(lr, "metadata", "namespace"))
	w.write(0, "Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n")
	w.write(0, "----\t--------\t---\t---\t---------------\t-------------\t-----------------------\n")
	w.limitRangeItems(lr, "")
	return w.String(), nil
}

func describeEndpointSlice(c *Cmd, o *describeOptions, _ Resource, namespace, name string) (string, error) {
	eps, err := c.getTyped("/apis/discovery.k8s.io/v1/namespaces/" + namespace + "/endpointslices/" + name)
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, eps, "EndpointSlice")
	orUnset := func(v any, path ...string) string {
		if !has(v, path...) {
			return "<unset>"
		}
		return stringAt(v, path...)
	}
	w := newDescribeWriter()
	w.objectMeta(eps)
	w.write(0, "AddressType:\t%s\n", stringAt(eps, "addressType"))
	if ports := list(eps, "ports"); len(ports) == 0 {
		w.write(0, "Ports: <unset>\n")
	} else {
		w.write(0, "Ports:\n")
		w.write(1, "Name\tPort\tProtocol\n")
		w.write(1, "----\t----\t--------\n")
		for _, p := range ports {
			pname := stringAt(p, "name")
			if pname == "" {
				pname = "<unset>"
			}
			w.write(1, "%s\t%s\t%s\n", pname, orUnset(p, "port"), stringAt(p, "protocol"))
		}
	}
	if eps := list(eps, "endpoints"); len(eps) == 0 {
		w.write(0, "Endpoints: <none>\n")
	} else {
		w.write(0, "Endpoints:\n")
		for _, e := range eps {
			addrs := strings.Join(strs(e, "addresses"), ", ")
			if addrs == "" {
				addrs = "<none>"
			}
			w.write(1, "- Addresses:\t%s\n", addrs)
			w.write(2, "Conditions:\n")
			w.write(3, "Ready:\t%s\n", orUnset(e, "conditions", "ready"))
			w.write(2, "Hostname:\t%s\n", orUnset(e, "hostname"))
			if ref := obj(e, "targetRef"); ref != nil {
				w.write(2, "TargetRef:\t%s/%s\n", stringAt(ref, "kind"), stringAt(ref, "name"))
			}
			w.write(2, "NodeName:\t%s\n", orUnset(e, "nodeName"))
			w.write(2, "Zone:\t%s\n", orUnset(e, "zone"))
		}
	}
	w.events(events)
	return w.String(), nil
}

func describePDB(c *Cmd, o *describeOptions, _ Resource, namespace, name string) (string, error) {
	pdb, err := c.getTyped("/apis/policy/v1/namespaces/" + namespace + "/poddisruptionbudgets/" + name)
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, pdb, "PodDisruptionBudget")
	spec, st := obj(pdb, "spec"), obj(pdb, "status")
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", name)
	w.write(0, "Namespace:\t%s\n", namespace)
	if has(spec, "minAvailable") {
		w.write(0, "Min available:\t%s\n", stringAt(spec, "minAvailable"))
	} else if has(spec, "maxUnavailable") {
		w.write(0, "Max unavailable:\t%s\n", stringAt(spec, "maxUnavailable"))
	}
	if sel := obj(spec, "selector"); sel != nil {
		w.write(0, "Selector:\t%s\n", formatLabelSelector(sel))
	} else {
		w.write(0, "Selector:\t<unset>\n")
	}
	w.write(0, "Status:\n")
	w.write(2, "Allowed disruptions:\t%d\n", num(st, "disruptionsAllowed"))
	w.write(2, "Current:\t%d\n", num(st, "currentHealthy"))
	w.write(2, "Desired:\t%d\n", num(st, "desiredHealthy"))
	w.write(2, "Total:\t%d\n", num(st, "expectedPods"))
	w.events(events)
	return w.String(), nil
}

func describeNetworkPolicy(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	np, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	spec := obj(np, "spec")
	created := ""
	if t, ok := parseTime(stringAt(np, "metadata", "creationTimestamp")); ok {
		created = t.Local().String()
	}
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", name)
	w.write(0, "Namespace:\t%s\n", namespace)
	w.write(0, "Created on:\t%s\n", created)
	w.labels("", "Labels", "\t", strMap(np, "metadata", "labels"))
	w.annotations("Annotations", strMap(np, "metadata", "annotations"))
	w.write(0, "Spec:\n")
	w.write(1, "PodSelector: ")
	if sel := obj(spec, "podSelector"); len(obj(sel, "matchLabels")) == 0 && len(list(sel, "matchExpressions")) == 0 {
		w.write(2, "<none> (Allowing the specific traffic to all pods in this namespace)\n")
	} else {
		w.write(2, "%s\n", formatLabelSelector(sel))
	}
	types := strs(spec, "policyTypes")
	for _, d := range []struct{ policy, key, peers, title, isolated, any string }{
		{"Ingress", "ingress", "from", "From", "<none> (Selected pods are isolated for ingress connectivity)", "From: <any> (traffic not restricted by source)"},
		{"Egress", "egress", "to", "To", "<none> (Selected pods are isolated for egress connectivity)", "To: <any> (traffic not restricted by destination)"},
	} {
		if !containsString(types, d.policy) {
			w.write(1, "Not affecting %s traffic\n", d.key)
			continue
		}
		w.write(1, "Allowing %s traffic:\n", d.key)
		const indent = "    "
		rules := list(spec, d.key)
		if len(rules) == 0 {
			w.write(0, "%s%s\n", indent, d.isolated)
		}
		for i, rule := range rules {
			if ports := list(rule, "ports"); len(ports) == 0 {
				w.write(0, "%s%s\n", indent, "To Port: <any> (traffic allowed to all ports)")
			} else {
				for _, p := range ports {
					proto := stringAt(p, "protocol")
					if proto == "" {
						proto = "TCP"
					}
					port := "<nil>"
					if has(p, "port") {
						port = stringAt(p, "port")
					}
					if has(p, "endPort") {
						w.write(0, "%s%s: %s-%d/%s\n", indent, "To Port Range", port, num(p, "endPort"), proto)
					} else {
						w.write(0, "%s%s: %s/%s\n", indent, "To Port", port, proto)
					}
				}
			}
			if peers := list(rule, d.peers); len(peers) == 0 {
				w.write(0, "%s%s\n", indent, d.any)
			} else {
				for _, peer := range peers {
					w.write(0, "%s%s:\n", indent, d.title)
					pod, ns := obj(peer, "podSelector"), obj(peer, "namespaceSelector")
					switch {
					case has(peer, "podSelector") && has(peer, "namespaceSelector"):
						w.write(1, "%s%s: %s\n", indent, "NamespaceSelector", formatLabelSelector(ns))
						w.write(1, "%s%s: %s\n", indent, "PodSelector", formatLabelSelector(pod))
					case has(peer, "podSelector"):
						w.write(1, "%s%s: %s\n", indent, "PodSelector", formatLabelSelector(pod))
					case has(peer, "namespaceSelector"):
						w.write(1, "%s%s: %s\n", indent, "NamespaceSelector", formatLabelSelector(ns))
					case has(peer, "ipBlock"):
						w.write(1, "%sIPBlock:\n", indent)
						w.write(2, "%sCIDR: %s\n", indent, stringAt(peer, "ipBlock", "cidr"))
						w.write(2, "%sExcept: %v\n", indent, strings.Join(strs(peer, "ipBlock", "except"), ", "))
					}
				}
			}
			if i != len(rules)-1 {
				w.write(0, "%s%s\n", indent, "----------")
			}
		}
	}
	w.write(1, "Policy Types: %v\n", orNone(strings.Join(types, ", ")))
	return w.String(), nil
}
