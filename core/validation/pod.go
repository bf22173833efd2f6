package validation

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/quantity"
)

// The rules of Pods and pod templates, in the order of
// pkg/apis/core/validation's ValidatePodSpec, so that several errors are
// listed as kube lists them. What is checked: the containers (required,
// names, duplicates, images, ports, environment names, volume mounts, pull
// and termination-message policies, resources, probes and lifecycle
// handlers, host ports), the volumes (names, duplicates, one type, the
// fields required of hostPath, secret, configMap and persistentVolumeClaim
// volumes), restart and DNS policies, node selector, names of the service
// account, node, host, subdomain and priority class, active deadline and
// preemption policy; on update, what may change. Security contexts,
// affinity, tolerations, topology spread, DNS config beyond the None policy,
// resource names and the other volume types are not checked.

// Pod checks a new Pod (ValidatePodCreate).
func Pod(pod object.Object) field.ErrorList {
	spec := fields(pod).obj("spec")
	specPath := field.NewPath("spec")
	errs := podMetadataAndSpec(pod, spec)
	if len(spec.list("ephemeralContainers")) > 0 {
		add(&errs, field.Forbidden(specPath.Child("ephemeralContainers"), "cannot be set on create"))
	}
	if spec.str("nodeName") != "" && len(spec.list("schedulingGates")) != 0 {
		add(&errs, field.Forbidden(specPath.Child("nodeName"), "cannot be set until all schedulingGates have been cleared"))
	}
	return errs
}

// mirrorPodAnnotation marks a kubelet's mirror of a static Pod.
const mirrorPodAnnotation = "kubernetes.io/config.mirror"

// podMetadataAndSpec is what a Pod is checked for on create and update.
func podMetadataAndSpec(pod object.Object, spec fields) field.ErrorList {
	specPath := field.NewPath("spec")
	errs := mirrorPodNode(pod, spec)
	add(&errs, podSpec(spec, specPath, true)...)
	for _, list := range []string{"containers", "initContainers"} {
		for i, c := range spec.list(list) {
			if image := c.str("image"); len(strings.TrimSpace(image)) != len(image) {
				add(&errs, field.Invalid(specPath.Child(list).Index(i).Child("image"), image, "must not have leading or trailing whitespace"))
			}
		}
	}
	return errs
}

// updatablePodSpecFields are what a Pod's update may change.
const updatablePodSpecFields = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`," +
	"`spec.tolerations` (only additions to existing tolerations)," +
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

// PodUpdate checks an update of a Pod (ValidatePodUpdate): its spec is
// checked again, and only images, the active deadline (down), tolerations
// (added) and a negative grace period (to 1) may change. kube's message for
// another change goes on with a diff of its internal types, which is not
// reproduced here.
func PodUpdate(pod, old object.Object) field.ErrorList {
	spec, oldSpec := fields(pod).obj("spec"), fields(old).obj("spec")
	specPath := field.NewPath("spec")
	errs := podMetadataAndSpec(pod, spec)
	mirror, wasMirror := annotation(pod, mirrorPodAnnotation), annotation(old, mirrorPodAnnotation)
	annotationsPath := field.NewPath("metadata", "annotations").Key(mirrorPodAnnotation)
	switch {
	case wasMirror != nil && (mirror == nil || *mirror != *wasMirror):
		add(&errs, field.Forbidden(annotationsPath, "may not remove or update mirror pod annotation"))
	case wasMirror == nil && mirror != nil:
		add(&errs, field.Forbidden(annotationsPath, "may not add mirror pod annotation"))
	}
	add(&errs, mirrorPodNode(pod, spec)...)
	for _, list := range []string{"containers", "initContainers"} {
		containers, oldContainers := spec.list(list), oldSpec.list(list)
		if len(containers) != len(oldContainers) {
			return append(errs, field.Forbidden(specPath.Child(list), "pod updates may not add or remove containers"))
		}
		for i, c := range containers {
			image := c.str("image")
			if image == "" {
				add(&errs, field.Required(specPath.Child(list).Index(i).Child("image"), ""))
			}
			if len(strings.TrimSpace(image)) != len(image) {
				add(&errs, field.Invalid(specPath.Child(list).Index(i).Child("image"), image, "must not have leading or trailing whitespace"))
			}
		}
	}
	deadlinePath := specPath.Child("activeDeadlineSeconds")
	switch deadline, oldDeadline := spec.num("activeDeadlineSeconds"), oldSpec.num("activeDeadlineSeconds"); {
	case spec.has("activeDeadlineSeconds") && (deadline < 0 || deadline > math.MaxInt32):
		return append(errs, field.Invalid(deadlinePath, deadline, inclusiveRange(0, math.MaxInt32)))
	case spec.has("activeDeadlineSeconds") && oldSpec.has("activeDeadlineSeconds") && oldDeadline < deadline:
		return append(errs, field.Invalid(deadlinePath, deadline, "must be less than or equal to previous value"))
	case !spec.has("activeDeadlineSeconds") && oldSpec.has("activeDeadlineSeconds"):
		add(&errs, field.Invalid(deadlinePath, nil, "must not update from a positive integer to nil value"))
	}
	add(&errs, onlyAddedTolerations(spec.list("tolerations"), oldSpec.list("tolerations"), specPath.Child("tolerations"))...)
	if !semanticEqual(map[string]any(mungedPodSpec(spec, oldSpec)), map[string]any(oldSpec)) {
		add(&errs, field.Forbidden(specPath, "pod updates may not change fields other than "+updatablePodSpecFields))
	}
	return errs
}

// annotation is the value of obj's annotation key, nil when it has none.
func annotation(obj object.Object, key string) *string {
	annotations, _ := object.Path(obj, "metadata", "annotations").(map[string]any)
	v, ok := annotations[key].(string)
	if !ok {
		return nil
	}
	return &v
}

// mirrorPodNode: a mirror Pod is on a node.
func mirrorPodNode(pod object.Object, spec fields) field.ErrorList {
	if v := annotation(pod, mirrorPodAnnotation); v != nil && spec.str("nodeName") == "" {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations").Key(mirrorPodAnnotation), *v, "must set spec.nodeName if mirror pod annotation is set")}
	}
	return nil
}

// mungedPodSpec is spec with what an update may change taken from old.
func mungedPodSpec(spec, old fields) fields {
	munged := fields(object.DeepCopy(spec))
	for _, list := range []string{"containers", "initContainers"} {
		oldContainers := old.list(list)
		for i, c := range munged.list(list) {
			if c != nil && i < len(oldContainers) {
				c["image"] = oldContainers[i]["image"]
			}
		}
	}
	for _, f := range []string{"activeDeadlineSeconds", "schedulingGates", "tolerations"} {
		if v, ok := old[f]; ok {
			munged[f] = v
		} else {
			delete(munged, f)
		}
	}
	if old.num("terminationGracePeriodSeconds") < 0 && munged.num("terminationGracePeriodSeconds") == 1 {
		munged["terminationGracePeriodSeconds"] = old["terminationGracePeriodSeconds"]
	}
	return munged
}

// onlyAddedTolerations: every old toleration is still there (but for its
// tolerationSeconds).
func onlyAddedTolerations(tolerations, old []fields, p *field.Path) field.ErrorList {
	for _, o := range old {
		found := false
		for _, t := range tolerations {
			clone := fields(object.DeepCopy(o))
			if v, ok := t["tolerationSeconds"]; ok {
				clone["tolerationSeconds"] = v
			} else {
				delete(clone, "tolerationSeconds")
			}
			if semanticEqual(map[string]any(clone), map[string]any(t)) {
				found = true
				break
			}
		}
		if !found {
			return field.ErrorList{field.Forbidden(p, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return nil
}

// semanticEqual is apiequality.Semantic.DeepEqual on the JSON form: an empty
// list or map equals an absent one (which, unlike kube, also takes an empty
// struct for an unset pointer), numbers compare by value.
func semanticEqual(a, b any) bool {
	return isEmpty(a) && isEmpty(b) || object.Equal(withoutEmpty(a), withoutEmpty(b))
}

// withoutEmpty is v without the empty lists and maps in its maps.
func withoutEmpty(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if e = withoutEmpty(e); !isEmpty(e) {
				out[k] = e
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = withoutEmpty(e)
		}
		return out
	}
	return v
}

// isEmpty: nothing, or an empty list or map.
func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}

// podSpec is ValidatePodSpec; inPod: the spec is a Pod's, not a template's.
func podSpec(spec fields, p *field.Path, inPod bool) field.ErrorList {
	var errs field.ErrorList
	if !spec.has("terminationGracePeriodSeconds") {
		add(&errs, field.Required(p.Child("terminationGracePeriodSeconds"), ""))
	}
	vols, volErrs := volumes(spec.list("volumes"), p.Child("volumes"))
	add(&errs, volErrs...)
	add(&errs, containers(spec.list("containers"), vols, p.Child("containers"))...)
	add(&errs, initContainers(spec.list("initContainers"), spec.list("containers"), vols, p.Child("initContainers"))...)
	add(&errs, ephemeralContainers(spec.list("ephemeralContainers"), spec.list("containers"), spec.list("initContainers"), vols, p.Child("ephemeralContainers"))...)
	add(&errs, hostNetworkPorts(spec, p, inPod)...)
	add(&errs, oneOf(spec.str("restartPolicy"), p.Child("restartPolicy"), "Always", "OnFailure", "Never")...)
	add(&errs, oneOf(spec.str("dnsPolicy"), p.Child("dnsPolicy"), "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")...)
	add(&errs, Labels(spec.strMap("nodeSelector"), p.Child("nodeSelector"))...)
	if spec.str("dnsPolicy") == "None" && !spec.has("dnsConfig") {
		add(&errs, field.Required(p.Child("dnsConfig"), "must provide `dnsConfig` when `dnsPolicy` is None"))
	}
	for _, f := range []struct {
		name  string
		check func(string) []string
	}{{"serviceAccountName", DNS1123Subdomain}, {"nodeName", DNS1123Subdomain}} {
		if v := spec.str(f.name); v != "" {
			addInvalid(&errs, p.Child(f.name), v, f.check(v))
		}
	}
	if spec.has("activeDeadlineSeconds") {
		if v := spec.num("activeDeadlineSeconds"); v < 1 || v > math.MaxInt32 {
			add(&errs, field.Invalid(p.Child("activeDeadlineSeconds"), v, inclusiveRange(1, math.MaxInt32)))
		}
	}
	for _, f := range []struct {
		name  string
		check func(string) []string
	}{{"hostname", DNS1123Label}, {"subdomain", DNS1123Label}, {"priorityClassName", DNS1123Subdomain}} {
		if v := spec.str(f.name); v != "" {
			addInvalid(&errs, p.Child(f.name), v, f.check(v))
		}
	}
	if spec.has("preemptionPolicy") {
		add(&errs, oneOf(spec.str("preemptionPolicy"), p.Child("preemptionPolicy"), "PreemptLowerPriority", "Never")...)
	}
	return errs
}

// volumeTypes are a VolumeSource's fields, in the order kube checks them.
var volumeTypes = []string{
	"emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs", "iscsi",
	"glusterfs", "flocker", "persistentVolumeClaim", "rbd", "cinder", "cephfs", "quobyte", "downwardAPI", "fc",
	"flexVolume", "configMap", "azureFile", "vsphereVolume", "photonPersistentDisk", "portworxVolume", "azureDisk",
	"storageos", "projected", "scaleIO", "csi", "ephemeral", "image",
}

// fileModeErrorMsg is kube's word on a volume's file mode.
const fileModeErrorMsg = "must be a number between 0 and 0777 (octal), both inclusive"

// volumes checks the volumes (ValidateVolumes) and returns the names of the
// valid ones.
func volumes(vols []fields, p *field.Path) (map[string]bool, field.ErrorList) {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, vol := range vols {
		idx := p.Index(i)
		el := volumeSource(vol, idx)
		name := vol.str("name")
		if name == "" {
			el = append(el, field.Required(idx.Child("name"), ""))
		} else {
			for _, msg := range DNS1123Label(name) {
				el = append(el, field.Invalid(idx.Child("name"), name, msg))
			}
		}
		if names[name] {
			el = append(el, field.Duplicate(idx.Child("name"), name))
		}
		if len(el) == 0 {
			names[name] = true
		}
		add(&errs, el...)
	}
	return names, errs
}

// volumeSource checks that a volume has one type, and the fields some types
// require.
func volumeSource(vol fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	for _, typ := range volumeTypes {
		if !vol.has(typ) {
			continue
		}
		if n++; n > 1 {
			add(&errs, field.Forbidden(p.Child(typ), "may not specify more than 1 volume type"))
			continue
		}
		src, sp := vol.obj(typ), p.Child(typ)
		switch typ {
		case "hostPath":
			add(&errs, hostPathSource(src, sp)...)
		case "secret", "configMap":
			name := map[string]string{"secret": "secretName", "configMap": "name"}[typ]
			if src.str(name) == "" {
				add(&errs, field.Required(sp.Child(name), ""))
			}
			if mode := src.num("defaultMode"); src.has("defaultMode") && (mode < 0 || mode > 0o777) {
				add(&errs, field.Invalid(sp.Child("defaultMode"), mode, fileModeErrorMsg))
			}
			for j, item := range src.list("items") {
				ip := sp.Child("items").Index(j)
				if item.str("key") == "" {
					add(&errs, field.Required(ip.Child("key"), ""))
				}
				if item.str("path") == "" {
					add(&errs, field.Required(ip.Child("path"), ""))
				}
			}
		case "persistentVolumeClaim":
			if src.str("claimName") == "" {
				add(&errs, field.Required(sp.Child("claimName"), ""))
			}
		}
	}
	if n == 0 {
		add(&errs, field.Required(p, "must specify a volume type"))
	}
	return errs
}

// containers checks a spec's containers (validateContainers).
func containers(list []fields, vols map[string]bool, p *field.Path) field.ErrorList {
	if len(list) == 0 {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	names := map[string]bool{}
	for i, c := range list {
		idx := p.Index(i)
		add(&errs, containerCommon(c, vols, idx)...)
		if name := c.str("name"); names[name] {
			add(&errs, field.Duplicate(idx.Child("name"), name))
		} else {
			names[name] = true
		}
		if lc := c.obj("lifecycle"); lc != nil {
			add(&errs, lifecycle(lc, idx.Child("lifecycle"))...)
		}
		add(&errs, probes(c, idx)...)
		if c.has("restartPolicy") {
			add(&errs, field.Forbidden(idx.Child("restartPolicy"), "may not be set for non-init containers"))
		}
	}
	return append(errs, hostPortConflicts(list, p)...)
}

// initContainers checks a spec's init containers (validateInitContainers).
func initContainers(list, regular []fields, vols map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for _, c := range regular {
		names[c.str("name")] = true
	}
	for i, c := range list {
		idx := p.Index(i)
		add(&errs, containerCommon(c, vols, idx)...)
		restartAlways := false
		if c.has("restartPolicy") {
			restartAlways = c.str("restartPolicy") == "Always"
			if !restartAlways {
				add(&errs, field.NotSupported(idx.Child("restartPolicy"), c.str("restartPolicy"), []string{"Always"}))
			}
		}
		if name := c.str("name"); names[name] {
			add(&errs, field.Duplicate(idx.Child("name"), name))
		} else if name != "" {
			names[name] = true
		}
		add(&errs, hostPortConflicts([]fields{c}, p)...)
		if restartAlways {
			if lc := c.obj("lifecycle"); lc != nil {
				add(&errs, lifecycle(lc, idx.Child("lifecycle"))...)
			}
			add(&errs, probes(c, idx)...)
			continue
		}
		for _, f := range []string{"lifecycle", "livenessProbe", "readinessProbe", "startupProbe"} {
			if c.has(f) {
				add(&errs, field.Forbidden(idx.Child(f), "may not be set for init containers without restartPolicy=Always"))
			}
		}
	}
	return errs
}

// containerCommon is what every container is checked for
// (validateContainerCommon).
func containerCommon(c fields, vols map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name := c.str("name"); name == "" {
		add(&errs, field.Required(p.Child("name"), ""))
	} else {
		addInvalid(&errs, p.Child("name"), name, DNS1123Label(name))
	}
	if c.str("image") == "" {
		add(&errs, field.Required(p.Child("image"), ""))
	}
	add(&errs, oneOf(c.str("terminationMessagePolicy"), p.Child("terminationMessagePolicy"), "File", "FallbackToLogsOnError")...)
	add(&errs, containerPorts(c.list("ports"), p.Child("ports"))...)
	add(&errs, env(c.list("env"), p.Child("env"))...)
	add(&errs, volumeMounts(c.list("volumeMounts"), vols, p.Child("volumeMounts"))...)
	add(&errs, oneOf(c.str("imagePullPolicy"), p.Child("imagePullPolicy"), "Always", "IfNotPresent", "Never")...)
	return append(errs, resources(c.obj("resources"), p.Child("resources"))...)
}

// protocols are the ports' protocols.
var protocols = []string{"SCTP", "TCP", "UDP"}

// containerPorts is validateContainerPorts.
func containerPorts(ports []fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		idx := p.Index(i)
		if name := port.str("name"); name != "" {
			if msgs := PortName(name); len(msgs) > 0 {
				addInvalid(&errs, idx.Child("name"), name, msgs)
			} else if names[name] {
				add(&errs, field.Duplicate(idx.Child("name"), name))
			} else {
				names[name] = true
			}
		}
		if cp := port.num("containerPort"); cp == 0 {
			add(&errs, field.Required(idx.Child("containerPort"), ""))
		} else {
			addInvalid(&errs, idx.Child("containerPort"), cp, PortNumber(cp))
		}
		if hp := port.num("hostPort"); hp != 0 {
			addInvalid(&errs, idx.Child("hostPort"), hp, PortNumber(hp))
		}
		add(&errs, oneOf(port.str("protocol"), idx.Child("protocol"), protocols...)...)
	}
	return errs
}

// env is ValidateEnv, without the sources of values.
func env(vars []fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, v := range vars {
		idx := p.Index(i).Child("name")
		name := v.str("name")
		if name == "" {
			add(&errs, field.Required(idx, ""))
		}
		addInvalid(&errs, idx, name, envVarName(name))
	}
	return errs
}

// volumeMounts is ValidateVolumeMounts, without sub-paths and propagation.
func volumeMounts(mounts []fields, vols map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	paths := map[string]bool{}
	for i, m := range mounts {
		idx := p.Index(i)
		name, path := m.str("name"), m.str("mountPath")
		if name == "" {
			add(&errs, field.Required(idx.Child("name"), ""))
		}
		if !vols[name] {
			add(&errs, field.NotFound(idx.Child("name"), name))
		}
		if path == "" {
			add(&errs, field.Required(idx.Child("mountPath"), ""))
		}
		if paths[path] {
			add(&errs, field.Invalid(idx.Child("mountPath"), path, "must be unique"))
		}
		paths[path] = true
		if expr := m.str("subPathExpr"); expr != "" && m.str("subPath") != "" {
			add(&errs, field.Invalid(idx.Child("subPathExpr"), expr, "subPathExpr and subPath are mutually exclusive"))
		}
	}
	return errs
}

// resources checks a container's resources (validateResourceRequirements):
// names, quantities not negative, requests not over limits (equal to them for
// resources that cannot be overcommitted), and no huge pages without CPU or
// memory. The rule that extended resources are whole numbers is not checked:
// kube words it with its internal representation of the quantity.
func resources(res fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	limits, requests := res.strMap("limits"), res.strMap("requests")
	cpuOrMemory, hugePages := false, false
	for _, k := range sortedKeys(limits) {
		kp := p.Child("limits").Key(k)
		add(&errs, resourceName(k, kp)...)
		if strings.HasPrefix(limits[k], "-") {
			add(&errs, field.Invalid(kp, limits[k], isNegativeErrorMsg))
		}
		hugePages = hugePages || strings.HasPrefix(k, "hugepages-")
		cpuOrMemory = cpuOrMemory || k == "cpu" || k == "memory"
	}
	for _, k := range sortedKeys(requests) {
		kp := p.Child("requests").Key(k)
		add(&errs, resourceName(k, kp)...)
		if strings.HasPrefix(requests[k], "-") {
			add(&errs, field.Invalid(kp, requests[k], isNegativeErrorMsg))
		}
		overcommit := (!strings.Contains(k, "/") || strings.Contains(k, "kubernetes.io/")) && !strings.HasPrefix(k, "hugepages-")
		switch limit, ok := limits[k]; {
		case ok && !overcommit && quantity.Compare(requests[k], limit) != 0:
			add(&errs, field.Invalid(p.Child("requests"), requests[k], "must be equal to "+k+" limit of "+limit))
		case ok && quantity.Compare(requests[k], limit) > 0:
			add(&errs, field.Invalid(p.Child("requests"), requests[k], "must be less than or equal to "+k+" limit of "+limit))
		case !ok && !overcommit:
			add(&errs, field.Required(p.Child("limits"), "Limit must be set for non overcommitable resources"))
		}
		hugePages = hugePages || strings.HasPrefix(k, "hugepages-")
		cpuOrMemory = cpuOrMemory || k == "cpu" || k == "memory"
	}
	if hugePages && !cpuOrMemory {
		add(&errs, field.Forbidden(p, "HugePages require cpu or memory"))
	}
	return errs
}

// rawName is a resource name, which kube shows unquoted.
type rawName string

func (n rawName) String() string { return string(n) }

// standardResources are the resource names of kube's own (IsStandardResourceName).
var standardResources = []string{
	"cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
	"limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services",
	"replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage",
	"services.nodeports", "services.loadbalancers",
}

// resourceName is validateContainerResourceName: a qualified name, one of
// kube's for containers (cpu, memory, ephemeral-storage, huge pages) or an
// extended resource ("example.com/gpu").
func resourceName(name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	addInvalid(&errs, p, rawName(name), QualifiedName(name))
	if !strings.Contains(name, "/") { // kube's own names are not prefixed
		if len(errs) == 0 && !slices.Contains(standardResources, name) && !strings.HasPrefix(name, "hugepages-") && !strings.HasPrefix(name, "requests.hugepages-") {
			add(&errs, field.Invalid(p, rawName(name), "must be a standard resource type or fully qualified"))
		}
		if !slices.Contains([]string{"cpu", "memory", "ephemeral-storage"}, name) && !strings.HasPrefix(name, "hugepages-") {
			add(&errs, field.Invalid(p, rawName(name), "must be a standard resource for containers"))
		}
	} else if !strings.Contains(name, "kubernetes.io/") && (strings.HasPrefix(name, "requests.") || len(QualifiedName("requests."+name)) > 0) {
		add(&errs, field.Invalid(p, rawName(name), "doesn't follow extended resource name standard"))
	}
	return errs
}

// probes checks a container's probes (validateLivenessProbe and the others).
func probes(c fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, name := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		probe := c.obj(name)
		if probe == nil {
			continue
		}
		pp := p.Child(name)
		add(&errs, handler(probe, []string{"exec", "httpGet", "tcpSocket", "grpc"}, pp)...)
		for _, f := range []string{"initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"} {
			add(&errs, nonNegative(probe.num(f), pp.Child(f))...)
		}
		if grace := probe.num("terminationGracePeriodSeconds"); probe.has("terminationGracePeriodSeconds") && grace <= 0 {
			add(&errs, field.Invalid(pp.Child("terminationGracePeriodSeconds"), grace, "must be greater than 0"))
		}
		switch name {
		case "readinessProbe":
			if probe.has("terminationGracePeriodSeconds") {
				add(&errs, field.Invalid(pp.Child("terminationGracePeriodSeconds"), probe.num("terminationGracePeriodSeconds"), "must not be set for readinessProbes"))
			}
		default:
			if s := probe.num("successThreshold"); s != 1 {
				add(&errs, field.Invalid(pp.Child("successThreshold"), s, "must be 1"))
			}
		}
	}
	return errs
}

// lifecycle checks a container's lifecycle hooks.
func lifecycle(lc fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, hook := range []string{"postStart", "preStop"} {
		if h := lc.obj(hook); h != nil {
			add(&errs, handler(h, []string{"exec", "httpGet", "tcpSocket", "sleep"}, p.Child(hook))...)
		}
	}
	return errs
}

// handler is validateHandler: exactly one of kinds, each checked.
func handler(h fields, kinds []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	for _, kind := range kinds {
		if !h.has(kind) {
			continue
		}
		kp := p.Child(kind)
		if n++; n > 1 {
			add(&errs, field.Forbidden(kp, "may not specify more than 1 handler type"))
			continue
		}
		a := h.obj(kind)
		switch kind {
		case "exec":
			if len(a.strs("command")) == 0 {
				add(&errs, field.Required(kp.Child("command"), ""))
			}
		case "httpGet":
			if a.str("path") == "" {
				add(&errs, field.Required(kp.Child("path"), ""))
			}
			add(&errs, portNumOrName(a["port"], kp.Child("port"))...)
			if scheme := a.str("scheme"); scheme != "HTTP" && scheme != "HTTPS" {
				add(&errs, field.NotSupported(kp.Child("scheme"), scheme, []string{"HTTP", "HTTPS"}))
			}
		case "tcpSocket":
			add(&errs, portNumOrName(a["port"], kp.Child("port"))...)
		case "grpc":
			add(&errs, portNumOrName(a.num("port"), kp.Child("port"))...)
		}
	}
	if n == 0 {
		add(&errs, field.Required(p, "must specify a handler type"))
	}
	return errs
}

// hostPortConflicts is checkHostPortConflicts: a host port, protocol and IP
// used twice.
func hostPortConflicts(list []fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, c := range list {
		for j, port := range c.list("ports") {
			hp := port.num("hostPort")
			if hp == 0 {
				continue
			}
			key := port.str("protocol") + "/" + port.str("hostIP") + "/" + strconv.FormatInt(hp, 10)
			if seen[key] {
				add(&errs, field.Duplicate(p.Index(i).Child("ports").Index(j).Child("hostPort"), key))
			}
			seen[key] = true
		}
	}
	return errs
}

// hostNetworkPorts: with the host's network, a Pod's host ports are its
// container ports (a template's may be left unset).
func hostNetworkPorts(spec fields, p *field.Path, inPod bool) field.ErrorList {
	if hostNetwork, _ := spec["hostNetwork"].(bool); !hostNetwork {
		return nil
	}
	var errs field.ErrorList
	for i, c := range spec.list("containers") {
		for j, port := range c.list("ports") {
			if hp, cp := port.num("hostPort"), port.num("containerPort"); (inPod || hp != 0) && hp != cp {
				add(&errs, field.Invalid(p.Child("containers").Index(i).Child("ports").Index(j).Child("hostPort"), hp, "must match `containerPort` when `hostNetwork` is true"))
			}
		}
	}
	return errs
}

// podTemplate checks a Deployment's or ReplicaSet's pod template
// (ValidatePodTemplateSpec): its labels (kube names them .labels, not
// .metadata.labels) and spec.
func podTemplate(template fields, p *field.Path) field.ErrorList {
	errs := Labels(template.obj("metadata").strMap("labels"), p.Child("labels"))
	spec := template.obj("spec")
	add(&errs, podSpec(spec, p.Child("spec"), false)...)
	if len(spec.list("ephemeralContainers")) > 0 {
		add(&errs, field.Forbidden(p.Child("spec").Child("ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return errs
}

// PodTemplate checks a pod template (a PodTemplateSpec) at p, as
// ValidatePodTemplateSpec does, for the kinds whose own rules are their
// descriptors' (core/kinds).
func PodTemplate(template map[string]any, p *field.Path) field.ErrorList {
	return podTemplate(fields(template), p)
}
