package kubectl

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// This file owns describe's Pod: the Pod describer and the parts it shares
// with the workloads' pod templates (containers, volumes, tolerations).

func init() { describers["/Pod"] = describePod }

func describePod(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	pod, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		if o.showEvents {
			events, err2 := c.searchEvents(o, namespace, name, "", "")
			if err2 == nil && len(events) > 0 {
				w := newDescribeWriter()
				w.write(0, "Pod '%v': error '%v', but found events.\n", name, err)
				w.events(events)
				return w.String(), nil
			}
		}
		return "", err
	}
	var events []map[string]any
	if o.showEvents {
		uid := stringAt(pod, "metadata", "uid")
		if mirror, ok := strMap(pod, "metadata", "annotations")["kubernetes.io/config.mirror"]; ok {
			uid = mirror
		}
		events, err = c.searchEvents(o, namespace, name, "", uid)
		if err != nil || events == nil {
			events = []map[string]any{}
		}
	}
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", stringAt(pod, "metadata", "name"))
	w.write(0, "Namespace:\t%s\n", stringAt(pod, "metadata", "namespace"))
	spec, status := obj(pod, "spec"), obj(pod, "status")
	if has(spec, "priority") {
		w.write(0, "Priority:\t%d\n", num(spec, "priority"))
	}
	if s := stringAt(spec, "priorityClassName"); s != "" {
		w.write(0, "Priority Class Name:\t%s\n", s)
	}
	if s := stringAt(spec, "runtimeClassName"); s != "" {
		w.write(0, "Runtime Class Name:\t%s\n", s)
	}
	if s := stringAt(spec, "serviceAccountName"); s != "" {
		w.write(0, "Service Account:\t%s\n", s)
	}
	if node := stringAt(spec, "nodeName"); node == "" {
		w.write(0, "Node:\t<none>\n")
	} else {
		w.write(0, "Node:\t%s\n", node+"/"+stringAt(status, "hostIP"))
	}
	if has(status, "startTime") {
		w.write(0, "Start Time:\t%s\n", rfc1123(stringAt(status, "startTime")))
	}
	w.labels("", "Labels", "\t", strMap(pod, "metadata", "labels"))
	w.annotations("Annotations", strMap(pod, "metadata", "annotations"))
	phase := stringAt(status, "phase")
	if has(pod, "metadata", "deletionTimestamp") && phase != "Failed" && phase != "Succeeded" {
		w.write(0, "Status:\tTerminating (lasts %s)\n", since(stringAt(pod, "metadata", "deletionTimestamp")))
		w.write(0, "Termination Grace Period:\t%ds\n", num(pod, "metadata", "deletionGracePeriodSeconds"))
	} else {
		w.write(0, "Status:\t%s\n", phase)
	}
	if s := stringAt(status, "reason"); s != "" {
		w.write(0, "Reason:\t%s\n", s)
	}
	if s := stringAt(status, "message"); s != "" {
		w.write(0, "Message:\t%s\n", s)
	}
	if sp := obj(spec, "securityContext", "seccompProfile"); sp != nil {
		w.write(0, "SeccompProfile:\t%s\n", stringAt(sp, "type"))
		if stringAt(sp, "type") == "Localhost" {
			w.write(0, "LocalhostProfile:\t%s\n", stringAt(sp, "localhostProfile"))
		}
	}
	w.write(0, "IP:\t%s\n", stringAt(status, "podIP"))
	if ips := list(status, "podIPs"); len(ips) == 0 {
		w.write(0, "IPs:\t<none>\n")
	} else {
		w.write(0, "IPs:\n")
		for _, ip := range ips {
			w.write(1, "IP:\t%s\n", stringAt(ip, "ip"))
		}
	}
	if ref := controllerOf(pod); ref != nil {
		w.write(0, "Controlled By:\t%s/%s\n", stringAt(ref, "kind"), stringAt(ref, "name"))
	}
	if s := stringAt(status, "nominatedNodeName"); s != "" {
		w.write(0, "NominatedNodeName:\t%s\n", s)
	}
	if res := obj(spec, "resources"); res != nil {
		w.write(0, "Resources:\n")
		w.resources(res, 1)
	}
	resolve := func(e any) string { return podFieldValue(pod, stringAt(e, "valueFrom", "fieldRef", "fieldPath")) }
	if init := list(spec, "initContainers"); len(init) > 0 {
		w.containers("Init Containers", init, list(status, "initContainerStatuses"), resolve, "")
	}
	w.containers("Containers", list(spec, "containers"), list(status, "containerStatuses"), resolve, "")
	if eph := list(spec, "ephemeralContainers"); len(eph) > 0 {
		w.containers("Ephemeral Containers", eph, list(status, "ephemeralContainerStatuses"), resolve, "")
	}
	conditions := list(status, "conditions")
	if gates := list(spec, "readinessGates"); len(gates) > 0 {
		w.write(0, "Readiness Gates:\n  Type\tStatus\n")
		for _, g := range gates {
			st := "<none>"
			for _, c := range conditions {
				if stringAt(c, "type") == stringAt(g, "conditionType") {
					st = stringAt(c, "status")
					break
				}
			}
			w.write(1, "%v \t%v \n", stringAt(g, "conditionType"), st)
		}
	}
	if len(conditions) > 0 {
		w.write(0, "Conditions:\n  Type\tStatus\n")
		for _, c := range conditions {
			w.write(1, "%v \t%v \n", stringAt(c, "type"), stringAt(c, "status"))
		}
	}
	w.volumes(list(spec, "volumes"), "")
	qos := stringAt(status, "qosClass")
	if qos == "" {
		qos = computeQOS(spec)
	}
	w.write(0, "QoS Class:\t%s\n", qos)
	w.labels("", "Node-Selectors", "\t", strMap(spec, "nodeSelector"))
	w.tolerations("", "Tolerations", "\t", list(spec, "tolerations"))
	w.topologySpread(list(spec, "topologySpreadConstraints"), "")
	w.events(events)
	return w.String(), nil
}

// podFieldValue is an env var's fieldRef resolved against the pod as kubectl
// resolves it (only the metadata it can read; "" for the rest).
func podFieldValue(pod map[string]any, path string) string {
	if p, key, ok := strings.Cut(path, "['"); ok && strings.HasSuffix(key, "']") {
		key = strings.TrimSuffix(key, "']")
		switch p {
		case "metadata.annotations":
			return strMap(pod, "metadata", "annotations")[key]
		case "metadata.labels":
			return strMap(pod, "metadata", "labels")[key]
		}
		return ""
	}
	switch path {
	case "metadata.name", "metadata.namespace", "metadata.uid":
		return stringAt(pod, "metadata", strings.TrimPrefix(path, "metadata."))
	case "metadata.labels", "metadata.annotations":
		m := strMap(pod, "metadata", strings.TrimPrefix(path, "metadata."))
		var lines []string
		for _, k := range sortedKeys(m) {
			lines = append(lines, fmt.Sprintf("%s=%q", k, m[k]))
		}
		return strings.Join(lines, "\n")
	}
	return ""
}

// computeQOS is a pod's QoS class from its resources when its status has
// none (kubectl's ComputePodQOS).
func computeQOS(spec map[string]any) string {
	requests, limits := map[string]string{}, map[string]string{}
	guaranteed := true
	add := func(res map[string]any) {
		for k, v := range strMap(res, "requests") {
			if isQOSResource(k) && quantityMilli(v) > 0 {
				if old, ok := requests[k]; ok {
					v = quantityAdd(old, v)
				}
				requests[k] = v
			}
		}
		lim := strMap(res, "limits")
		for k, v := range lim {
			if isQOSResource(k) && quantityMilli(v) > 0 {
				if old, ok := limits[k]; ok {
					v = quantityAdd(old, v)
				}
				limits[k] = v
			}
		}
		if !(quantityMilli(lim["cpu"]) > 0 && quantityMilli(lim["memory"]) > 0) {
			guaranteed = false
		}
	}
	if res := obj(spec, "resources"); res != nil {
		add(res)
	} else {
		for _, c := range append(list(spec, "containers"), list(spec, "initContainers")...) {
			add(obj(c, "resources"))
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return "BestEffort"
	}
	if guaranteed {
		for k, req := range requests {
			if lim, ok := limits[k]; !ok || quantityMilli(lim) != quantityMilli(req) {
				guaranteed = false
				break
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return "Guaranteed"
	}
	return "Burstable"
}

// isQOSResource says whether a resource counts for QoS: cpu and memory (and
// hugepages are not).
func isQOSResource(name string) bool { return name == "cpu" || name == "memory" }

// resources prints limits and requests, each resource in name order.
func (w *describeWriter) resources(res map[string]any, level int) {
	for _, kind := range []string{"limits", "requests"} {
		m := strMap(res, kind)
		if len(m) == 0 {
			continue
		}
		w.write(level, "%s:\n", strings.ToUpper(kind[:1])+kind[1:])
		for _, k := range sortedKeys(m) {
			w.write(level+1, "%s:\t%s\n", k, quantityString(m[k]))
		}
	}
}

// containers prints a list of containers with their statuses (a pod's) or
// without (a template's), under label (describeContainers).
func (w *describeWriter) containers(label string, containers, statuses []any, resolve func(any) string, space string) {
	byName := map[string]any{}
	for _, s := range statuses {
		byName[stringAt(s, "name")] = s
	}
	none := ""
	if len(containers) == 0 {
		none = " <none>"
	}
	w.write(0, "%s%s:%s\n", space, label, none)
	nameIndent := ""
	if space != "" {
		nameIndent = " "
	}
	for _, ct := range containers {
		st, ok := byName[stringAt(ct, "name")]
		w.write(1, "%s%v:\n", nameIndent, stringAt(ct, "name"))
		if ok {
			w.write(2, "Container ID:\t%s\n", stringAt(st, "containerID"))
		}
		w.write(2, "Image:\t%s\n", stringAt(ct, "image"))
		if ok {
			w.write(2, "Image ID:\t%s\n", stringAt(st, "imageID"))
		}
		var ports, hostPorts []string
		for _, p := range list(ct, "ports") {
			proto := stringAt(p, "protocol")
			ports = append(ports, fmt.Sprintf("%d/%s", num(p, "containerPort"), proto))
			hostPorts = append(hostPorts, fmt.Sprintf("%d/%s", num(p, "hostPort"), proto))
		}
		if s := strings.Join(ports, ", "); strings.Contains(s, ",") {
			w.write(2, "Ports:\t%s\n", s)
		} else {
			w.write(2, "Port:\t%s\n", orNone(s))
		}
		if s := strings.Join(hostPorts, ", "); strings.Contains(s, ",") {
			w.write(2, "Host Ports:\t%s\n", s)
		} else {
			w.write(2, "Host Port:\t%s\n", orNone(s))
		}
		if sp := obj(ct, "securityContext", "seccompProfile"); sp != nil {
			w.write(2, "SeccompProfile:\t%s\n", stringAt(sp, "type"))
			if stringAt(sp, "type") == "Localhost" {
				w.write(3, "LocalhostProfile:\t%s\n", stringAt(sp, "localhostProfile"))
			}
		}
		for _, part := range []struct{ key, title string }{{"command", "Command"}, {"args", "Args"}} {
			if cmd := strs(ct, part.key); len(cmd) > 0 {
				w.write(2, "%s:\n", part.title)
				for _, c := range cmd {
					for _, s := range strings.Split(c, "\n") {
						w.write(3, "%s\n", s)
					}
				}
			}
		}
		if ok {
			w.containerState("State", obj(st, "state"))
			if has(st, "lastState", "terminated") {
				w.containerState("Last State", obj(st, "lastState"))
			}
			ready := "False"
			if boolean(st, "ready") {
				ready = "True"
			}
			w.write(2, "Ready:\t%v\n", ready)
			w.write(2, "Restart Count:\t%d\n", num(st, "restartCount"))
		}
		w.resources(obj(ct, "resources"), 2)
		for _, p := range []struct{ key, title string }{{"livenessProbe", "Liveness"}, {"readinessProbe", "Readiness"}, {"startupProbe", "Startup"}} {
			if probe := obj(ct, p.key); probe != nil {
				w.write(2, "%s:\t%s\n", p.title, describeProbe(probe))
			}
		}
		if envFrom := list(ct, "envFrom"); len(envFrom) > 0 {
			w.write(2, "Environment Variables from:\n")
			for _, e := range envFrom {
				from, ref := "ConfigMap", obj(e, "configMapRef")
				if ref == nil {
					from, ref = "Secret", obj(e, "secretRef")
				}
				if p := stringAt(e, "prefix"); p == "" {
					w.write(3, "%s\t%s\tOptional: %t\n", stringAt(ref, "name"), from, boolean(ref, "optional"))
				} else {
					w.write(3, "%s\t%s with prefix '%s'\tOptional: %t\n", stringAt(ref, "name"), from, p, boolean(ref, "optional"))
				}
			}
		}
		w.env(ct, resolve)
		w.mounts(ct)
	}
}

// joinHostPort is net.JoinHostPort: an IPv6 host in brackets.
func joinHostPort(host, port string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + port
	}
	return host + ":" + port
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// containerState prints a container's state (describeStatus).
func (w *describeWriter) containerState(title string, state map[string]any) {
	switch {
	case has(state, "running"):
		w.write(2, "%s:\tRunning\n", title)
		w.write(3, "Started:\t%v\n", rfc1123(stringAt(state, "running", "startedAt")))
	case has(state, "waiting"):
		w.write(2, "%s:\tWaiting\n", title)
		if s := stringAt(state, "waiting", "reason"); s != "" {
			w.write(3, "Reason:\t%s\n", s)
		}
	case has(state, "terminated"):
		t := obj(state, "terminated")
		w.write(2, "%s:\tTerminated\n", title)
		if s := stringAt(t, "reason"); s != "" {
			w.write(3, "Reason:\t%s\n", s)
		}
		if s := stringAt(t, "message"); s != "" {
			w.write(3, "Message:\t%s\n", s)
		}
		w.write(3, "Exit Code:\t%d\n", num(t, "exitCode"))
		if num(t, "signal") > 0 {
			w.write(3, "Signal:\t%d\n", num(t, "signal"))
		}
		w.write(3, "Started:\t%s\n", rfc1123(stringAt(t, "startedAt")))
		w.write(3, "Finished:\t%s\n", rfc1123(stringAt(t, "finishedAt")))
	default:
		w.write(2, "%s:\tWaiting\n", title)
	}
}

// describeProbe is a probe on one line (DescribeProbe).
func describeProbe(p map[string]any) string {
	attrs := fmt.Sprintf("delay=%ds timeout=%ds period=%ds #success=%d #failure=%d", num(p, "initialDelaySeconds"), num(p, "timeoutSeconds"),
		num(p, "periodSeconds"), num(p, "successThreshold"), num(p, "failureThreshold"))
	switch {
	case has(p, "exec"):
		return fmt.Sprintf("exec [%s] %s", strings.Join(strs(p, "exec", "command"), " "), attrs)
	case has(p, "httpGet"):
		g := obj(p, "httpGet")
		u := &url.URL{Scheme: strings.ToLower(stringAt(g, "scheme")), Path: stringAt(g, "path")}
		if port := stringAt(g, "port"); port != "" {
			u.Host = joinHostPort(stringAt(g, "host"), port)
		} else {
			u.Host = stringAt(g, "host")
		}
		return fmt.Sprintf("http-get %s %s", u.String(), attrs)
	case has(p, "tcpSocket"):
		return fmt.Sprintf("tcp-socket %s:%s %s", stringAt(p, "tcpSocket", "host"), stringAt(p, "tcpSocket", "port"), attrs)
	case has(p, "grpc"):
		return fmt.Sprintf("grpc <pod>:%d %s %s", num(p, "grpc", "port"), stringAt(p, "grpc", "service"), attrs)
	}
	return "unknown " + attrs
}

// env prints a container's environment (describeContainerEnvVars).
func (w *describeWriter) env(ct any, resolve func(any) string) {
	env := list(ct, "env")
	if len(env) == 0 {
		w.write(2, "Environment:\t<none>\n")
		return
	}
	w.write(2, "Environment:\n")
	for _, e := range env {
		name := stringAt(e, "name")
		vf := obj(e, "valueFrom")
		switch {
		case vf == nil:
			for i, s := range strings.Split(stringAt(e, "value"), "\n") {
				if i == 0 {
					w.write(3, "%s:\t%s\n", name, s)
				} else {
					w.write(3, "\t%s\n", s)
				}
			}
		case has(vf, "fieldRef"):
			v := ""
			if resolve != nil {
				v = resolve(e)
			}
			w.write(3, "%s:\t%s (%s:%s)\n", name, v, stringAt(vf, "fieldRef", "apiVersion"), stringAt(vf, "fieldRef", "fieldPath"))
		case has(vf, "resourceFieldRef"):
			res := stringAt(vf, "resourceFieldRef", "resource")
			v := containerResourceValue(ct, obj(vf, "resourceFieldRef"))
			if v == "0" && (res == "limits.cpu" || res == "limits.memory") {
				v = "node allocatable"
			}
			w.write(3, "%s:\t%s (%s)\n", name, v, res)
		case has(vf, "secretKeyRef"):
			r := obj(vf, "secretKeyRef")
			w.write(3, "%s:\t<set to the key '%s' in secret '%s'>\tOptional: %t\n", name, stringAt(r, "key"), stringAt(r, "name"), boolean(r, "optional"))
		case has(vf, "configMapKeyRef"):
			r := obj(vf, "configMapKeyRef")
			w.write(3, "%s:\t<set to the key '%s' of config map '%s'>\tOptional: %t\n", name, stringAt(r, "key"), stringAt(r, "name"), boolean(r, "optional"))
		}
	}
}

// containerResourceValue is a resourceFieldRef's value from the container's
// own resources, in the divisor's units rounded up (kubectl's
// ExtractContainerResourceValue); "0" when it has none.
func containerResourceValue(ct any, ref map[string]any) string {
	kind, res, _ := strings.Cut(stringAt(ref, "resource"), ".")
	v := stringAt(ct, "resources", kind, res)
	if v == "" {
		return "0"
	}
	divisor := stringAt(ref, "divisor")
	if divisor == "" || quantityMilli(divisor) == 0 {
		divisor = "1"
	}
	if res == "cpu" {
		m, d := quantityMilli(v), quantityMilli(divisor)
		return fmt.Sprint((m + d - 1) / d)
	}
	n, d := quantityValue(v), quantityValue(divisor)
	if d == 0 {
		d = 1
	}
	return fmt.Sprint((n + d - 1) / d)
}

// mounts prints a container's volume mounts and devices, by path.
func (w *describeWriter) mounts(ct any) {
	ms := list(ct, "volumeMounts")
	none := ""
	if len(ms) == 0 {
		none = "\t<none>"
	}
	w.write(2, "Mounts:%s\n", none)
	sort.SliceStable(ms, func(i, j int) bool { return stringAt(ms[i], "mountPath") < stringAt(ms[j], "mountPath") })
	for _, m := range ms {
		flags := []string{"rw"}
		if boolean(m, "readOnly") {
			flags[0] = "ro"
		}
		if sp := stringAt(m, "subPath"); sp != "" {
			flags = append(flags, fmt.Sprintf("path=%q", sp))
		}
		w.write(3, "%s from %s (%s)\n", stringAt(m, "mountPath"), stringAt(m, "name"), strings.Join(flags, ","))
	}
	if ds := list(ct, "volumeDevices"); len(ds) > 0 {
		w.write(2, "Devices:%s\n", none)
		sort.SliceStable(ds, func(i, j int) bool { return stringAt(ds[i], "devicePath") < stringAt(ds[j], "devicePath") })
		for _, d := range ds {
			w.write(3, "%s from %s\n", stringAt(d, "devicePath"), stringAt(d, "name"))
		}
	}
}

// volumes prints a pod's volumes (describeVolumes) for the sources
// workloads use; others print as "<unknown>".
func (w *describeWriter) volumes(vols []any, space string) {
	if len(vols) == 0 {
		w.write(0, "%sVolumes:\t<none>\n", space)
		return
	}
	w.write(0, "%sVolumes:\n", space)
	nameIndent := ""
	if space != "" {
		nameIndent = " "
	}
	for _, v := range vols {
		w.write(1, "%s%v:\n", nameIndent, stringAt(v, "name"))
		w.volumeSource(v)
	}
}

// volumeSource prints a volume's (or a PersistentVolume's) source: the
// kinds workloads use; others print as "<unknown>".
func (w *describeWriter) volumeSource(v any) {
	switch {
	case has(v, "hostPath"):
		t := stringAt(v, "hostPath", "type")
		if !has(v, "hostPath", "type") {
			t = "<none>"
		}
		w.write(2, "Type:\tHostPath (bare host directory volume)\n    Path:\t%v\n    HostPathType:\t%v\n", stringAt(v, "hostPath", "path"), t)
	case has(v, "emptyDir"):
		limit := stringAt(v, "emptyDir", "sizeLimit")
		if limit == "" || quantityMilli(limit) <= 0 {
			limit = "<unset>"
		} else {
			limit = quantityString(limit)
		}
		w.write(2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:\t%v\n    SizeLimit:\t%v\n", stringAt(v, "emptyDir", "medium"), limit)
	case has(v, "secret"):
		w.write(2, "Type:\tSecret (a volume populated by a Secret)\n    SecretName:\t%v\n    Optional:\t%v\n", stringAt(v, "secret", "secretName"), boolean(v, "secret", "optional"))
	case has(v, "configMap"):
		w.write(2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t%v\n    Optional:\t%v\n", stringAt(v, "configMap", "name"), boolean(v, "configMap", "optional"))
	case has(v, "persistentVolumeClaim"):
		w.write(2, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n    ClaimName:\t%v\n    ReadOnly:\t%v\n",
			stringAt(v, "persistentVolumeClaim", "claimName"), boolean(v, "persistentVolumeClaim", "readOnly"))
	case has(v, "local"):
		w.write(2, "Type:\tLocalVolume (a persistent volume backed by local storage on a node)\n    Path:\t%v\n", stringAt(v, "local", "path"))
	case has(v, "nfs"):
		w.write(2, "Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n    Server:\t%v\n    Path:\t%v\n    ReadOnly:\t%v\n",
			stringAt(v, "nfs", "server"), stringAt(v, "nfs", "path"), boolean(v, "nfs", "readOnly"))
	case has(v, "downwardAPI"):
		w.write(2, "Type:\tDownwardAPI (a volume populated by information about the pod)\n    Items:\n")
		for _, it := range list(v, "downwardAPI", "items") {
			if has(it, "fieldRef") {
				w.write(3, "%v -> %v\n", stringAt(it, "fieldRef", "fieldPath"), stringAt(it, "path"))
			}
			if has(it, "resourceFieldRef") {
				w.write(3, "%v -> %v\n", stringAt(it, "resourceFieldRef", "resource"), stringAt(it, "path"))
			}
		}
	case has(v, "projected"):
		w.write(2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n")
		for _, s := range list(v, "projected", "sources") {
			switch {
			case has(s, "secret"):
				w.write(2, "SecretName:\t%v\n    SecretOptionalName:\t%v\n", stringAt(s, "secret", "name"), optionalBool(s, "secret"))
			case has(s, "downwardAPI"):
				w.write(2, "DownwardAPI:\ttrue\n")
			case has(s, "configMap"):
				w.write(2, "ConfigMapName:\t%v\n    ConfigMapOptional:\t%v\n", stringAt(s, "configMap", "name"), optionalBool(s, "configMap"))
			case has(s, "serviceAccountToken"):
				w.write(2, "TokenExpirationSeconds:\t%d\n", num(s, "serviceAccountToken", "expirationSeconds"))
			}
		}
	default:
		w.write(1, "<unknown>\n")
	}
}

// optionalBool is a projected source's optional as kubectl prints the
// *bool: "<nil>" when unset.
func optionalBool(s any, source string) any {
	if !has(s, source, "optional") {
		return "<nil>"
	}
	return boolean(s, source, "optional")
}

// tolerations prints tolerations sorted by key (printTolerationsMultilineWithIndent).
func (w *describeWriter) tolerations(initialIndent, title, innerIndent string, tols []any) {
	w.write(0, "%s%s:%s", initialIndent, title, innerIndent)
	if len(tols) == 0 {
		w.line("<none>")
		return
	}
	tols = append([]any(nil), tols...)
	sort.SliceStable(tols, func(i, j int) bool { return stringAt(tols[i], "key") < stringAt(tols[j], "key") })
	for i, t := range tols {
		if i != 0 {
			w.write(0, "%s", initialIndent)
			w.write(0, "%s", innerIndent)
		}
		key, value, effect := stringAt(t, "key"), stringAt(t, "value"), stringAt(t, "effect")
		w.write(0, "%s", key)
		if value != "" {
			w.write(0, "=%s", value)
		}
		if effect != "" {
			w.write(0, ":%s", effect)
		}
		if stringAt(t, "operator") == "Exists" && value == "" {
			if key != "" || effect != "" {
				w.write(0, " op=Exists")
			} else {
				w.write(0, "op=Exists")
			}
		}
		if has(t, "tolerationSeconds") {
			w.write(0, " for %ds", num(t, "tolerationSeconds"))
		}
		w.write(0, "\n")
	}
}

// topologySpread prints a pod's topology spread constraints, by key.
func (w *describeWriter) topologySpread(tscs []any, space string) {
	if len(tscs) == 0 {
		return
	}
	tscs = append([]any(nil), tscs...)
	sort.SliceStable(tscs, func(i, j int) bool { return stringAt(tscs[i], "topologyKey") < stringAt(tscs[j], "topologyKey") })
	w.write(0, "%sTopology Spread Constraints:\t", space)
	for i, t := range tscs {
		if i != 0 {
			w.write(0, "%s", space)
			w.write(0, "%s", "\t")
		}
		w.write(0, "%s:", stringAt(t, "topologyKey"))
		w.write(0, "%v", stringAt(t, "whenUnsatisfiable"))
		w.write(0, " when max skew %d is exceeded", num(t, "maxSkew"))
		if sel := obj(t, "labelSelector"); sel != nil {
			w.write(0, " for selector %s", formatLabelSelector(sel))
		}
		w.write(0, "\n")
	}
}

// podTemplate prints a workload's pod template (DescribePodTemplate).
func (w *describeWriter) podTemplate(tpl map[string]any) {
	w.write(0, "Pod Template:\n")
	if tpl == nil {
		w.write(1, "<unset>")
		return
	}
	w.labels("", "  Labels", "\t", strMap(tpl, "metadata", "labels"))
	if a := strMap(tpl, "metadata", "annotations"); len(a) > 0 {
		w.annotations("  Annotations", a)
	}
	spec := obj(tpl, "spec")
	if s := stringAt(spec, "serviceAccountName"); s != "" {
		w.write(1, "Service Account:\t%s\n", s)
	}
	if init := list(spec, "initContainers"); len(init) > 0 {
		w.containers("Init Containers", init, nil, nil, "  ")
	}
	w.containers("Containers", list(spec, "containers"), nil, nil, "  ")
	w.volumes(list(spec, "volumes"), "  ")
	w.topologySpread(list(spec, "topologySpreadConstraints"), "  ")
	if s := stringAt(spec, "priorityClassName"); s != "" {
		w.write(1, "Priority Class Name:\t%s\n", s)
	}
	w.labels("", "  Node-Selectors", "\t", strMap(spec, "nodeSelector"))
	w.tolerations("", "  Tolerations", "\t", list(spec, "tolerations"))
}
