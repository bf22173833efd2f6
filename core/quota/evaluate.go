package quota

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/quantity"
)

// kind is which of kube's evaluators counts a resource.
type kind uint8

const (
	countKind   kind = iota // the generic object count
	podKind                 // pods
	serviceKind             // services
	claimKind               // persistentvolumeclaims
)

// Evaluator counts one resource's objects, as kube's quota evaluator for it.
type Evaluator struct {
	kind kind
	// names are the resources it charges by name (the object count, its
	// legacy alias, the kind's own), beyond those matched by form.
	names []string
}

// legacyCounts are the core resources whose objects a quota counts under an
// older name too (kube's legacyObjectCountAliases).
var legacyCounts = map[string]string{"configmaps": "configmaps", "resourcequotas": "resourcequotas",
	"replicationcontrollers": "replicationcontrollers", "secrets": "secrets"}

// ignored are the resources kube's quota never counts (DefaultIgnoredResources):
// events, and what is never stored.
var ignored = map[string]bool{"/events": true, "events.k8s.io/events": true, "/bindings": true, "/componentstatuses": true,
	"authentication.k8s.io/tokenreviews": true, "authentication.k8s.io/selfsubjectreviews": true,
	"authorization.k8s.io/subjectaccessreviews": true, "authorization.k8s.io/selfsubjectaccessreviews": true,
	"authorization.k8s.io/localsubjectaccessreviews": true, "authorization.k8s.io/selfsubjectrulesreviews": true}

// CountName is the resource name of the object count of resource in group:
// count/pods, count/deployments.apps.
func CountName(group, resource string) string {
	if group == "" {
		return "count/" + resource
	}
	return "count/" + resource + "." + group
}

// For is the evaluator of resource in group; false for the resources quota
// ignores.
func For(group, resource string) (Evaluator, bool) {
	if ignored[group+"/"+resource] {
		return Evaluator{}, false
	}
	e := Evaluator{names: []string{CountName(group, resource)}}
	if group != "" {
		return e, true
	}
	switch resource {
	case "pods":
		e.kind = podKind
		e.names = append(e.names, "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
			"limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods")
	case "services":
		e.kind = serviceKind
		e.names = append(e.names, "services", "services.nodeports", "services.loadbalancers")
	case "persistentvolumeclaims":
		e.kind = claimKind
		e.names = append(e.names, "persistentvolumeclaims", "requests.storage")
	default:
		if alias, ok := legacyCounts[resource]; ok {
			e.names = append(e.names, alias)
		}
	}
	return e, true
}

// Counted are the group/resources ("apps/deployments", "/pods") whose
// objects a quota limiting names counts.
func Counted(names []string) []string {
	var out []string
	add := func(gr string) {
		if !slices.Contains(out, gr) {
			out = append(out, gr)
		}
	}
	for _, n := range names {
		if rest, ok := strings.CutPrefix(n, "count/"); ok {
			resource, group, _ := strings.Cut(rest, ".")
			add(group + "/" + resource)
		}
	}
	for _, r := range []string{"pods", "services", "persistentvolumeclaims", "configmaps", "secrets", "resourcequotas", "replicationcontrollers"} {
		if e, _ := For("", r); len(e.Matching(names)) > 0 {
			add("/" + r)
		}
	}
	sort.Strings(out)
	return out
}

// Handles says whether a write (CREATE or UPDATE) to sub ("" for the object
// itself) can change what the evaluator counts.
func (e Evaluator) Handles(op, sub string) bool {
	if sub != "" {
		return false
	}
	switch e.kind {
	case serviceKind, claimKind:
		return op == "CREATE" || op == "UPDATE"
	}
	return op == "CREATE"
}

// Matching are the resources of names the evaluator charges
// (MatchingResources).
func (e Evaluator) Matching(names []string) []string {
	out := intersection(names, e.names)
	for _, n := range names {
		switch e.kind {
		case podKind:
			if strings.HasPrefix(n, "hugepages-") || strings.HasPrefix(n, "requests.hugepages-") || extendedForQuota(n) {
				out = append(out, n)
			}
		case claimKind:
			if strings.HasSuffix(n, storageClassSuffix+"persistentvolumeclaims") || strings.HasSuffix(n, storageClassSuffix+"requests.storage") {
				out = append(out, n)
			}
		}
	}
	return out
}

// extendedForQuota: a quota of an extended resource ("requests.example.com/gpu").
func extendedForQuota(n string) bool {
	return strings.HasPrefix(n, "requests.") && !native(n)
}

// native: a resource of kubernetes.io (unqualified, or in its domain).
func native(n string) bool { return !strings.Contains(n, "/") || strings.Contains(n, "kubernetes.io/") }

// Matches says whether q applies to obj: it limits something the evaluator
// charges, and obj is in all its scopes.
func (e Evaluator) Matches(q Quota, obj object.Object) bool {
	if len(e.Matching(q.StatusHard.Names())) == 0 {
		return false
	}
	for _, r := range q.Scopes {
		if !e.InScope(r, obj) {
			return false
		}
	}
	return true
}

// InScope says whether obj is in scope r. Only Pods have scopes: nothing
// else is in any.
func (e Evaluator) InScope(r Requirement, obj object.Object) bool {
	if e.kind != podKind {
		return false
	}
	spec, _ := obj["spec"].(map[string]any)
	switch r.Scope {
	case "Terminating", "NotTerminating":
		deadline, ok := spec["activeDeadlineSeconds"]
		return (ok && deadline != nil && object.Int(deadline) >= 0) == (r.Scope == "Terminating")
	case "BestEffort", "NotBestEffort":
		return bestEffort(spec) == (r.Scope == "BestEffort")
	case "PriorityClass":
		class, has := spec["priorityClassName"].(string)
		has = has && class != ""
		switch r.Operator {
		case "Exists":
			return has
		case "DoesNotExist":
			return !has
		case "In":
			return has && slices.Contains(r.Values, class)
		case "NotIn":
			return !has || !slices.Contains(r.Values, class)
		}
	case "CrossNamespacePodAffinity":
		return crossNamespaceAffinity(spec)
	}
	return false
}

// bestEffort: no container asks for or is limited in cpu or memory (kube's
// BestEffort QoS class).
func bestEffort(spec map[string]any) bool {
	for _, c := range append(object.Objects(spec, "containers"), object.Objects(spec, "initContainers")...) {
		res, _ := c["resources"].(map[string]any)
		for _, list := range []List{ReadList(res, "requests"), ReadList(res, "limits")} {
			for _, r := range []string{"cpu", "memory"} {
				if v, ok := list[r]; ok && quantity.Compare(v, "0") != 0 {
					return false
				}
			}
		}
	}
	return true
}

// crossNamespaceAffinity: a pod (anti-)affinity term names namespaces or
// selects them.
func crossNamespaceAffinity(spec map[string]any) bool {
	for _, a := range []string{"podAffinity", "podAntiAffinity"} {
		affinity, _ := object.Path(spec, "affinity", a).(map[string]any)
		terms := object.Objects(affinity, "requiredDuringSchedulingIgnoredDuringExecution")
		for _, w := range object.Objects(affinity, "preferredDuringSchedulingIgnoredDuringExecution") {
			if t, ok := w["podAffinityTerm"].(map[string]any); ok {
				terms = append(terms, t)
			}
		}
		for _, t := range terms {
			if len(object.Strings(t, "namespaces")) > 0 || t["namespaceSelector"] != nil {
				return true
			}
		}
	}
	return false
}

// storageClassSuffix joins a class and a claim resource in a quota's name:
// gold.storageclass.storage.k8s.io/requests.storage.
const storageClassSuffix = ".storageclass.storage.k8s.io/"

// Usage is what obj is charged. A Pod that has finished, or whose grace
// period has passed (at now), is charged its object count only.
func (e Evaluator) Usage(obj object.Object, now time.Time) List {
	spec, _ := obj["spec"].(map[string]any)
	switch e.kind {
	case podKind:
		usage := List{"count/pods": "1"}
		if !Charged(obj, now) {
			return usage
		}
		requests, limits := podResources(spec)
		return Add(usage, computeUsage(requests, limits))
	case serviceKind:
		usage := List{"count/services": "1", "services": "1", "services.loadbalancers": "0", "services.nodeports": "0"}
		ports := object.Objects(spec, "ports")
		nodePorts := len(ports)
		switch object.String(spec["type"]) {
		case "LoadBalancer":
			usage["services.loadbalancers"] = "1"
			if allocate, ok := spec["allocateLoadBalancerNodePorts"].(bool); ok && !allocate {
				nodePorts = 0
				for _, p := range ports {
					if object.Int(p["nodePort"]) != 0 {
						nodePorts++
					}
				}
			}
		case "NodePort":
		default:
			return usage
		}
		usage["services.nodeports"] = strconv.Itoa(nodePorts)
		return usage
	case claimKind:
		usage := List{"count/persistentvolumeclaims": "1", "persistentvolumeclaims": "1"}
		annotations, _ := object.Path(obj, "metadata", "annotations").(map[string]any)
		class, hasClass := annotations["volume.beta.kubernetes.io/storage-class"].(string)
		if !hasClass {
			class = object.String(spec["storageClassName"])
		}
		if class != "" {
			usage[class+storageClassSuffix+"persistentvolumeclaims"] = "1"
		}
		if storage, ok := claimStorage(obj, spec); ok {
			usage["requests.storage"] = storage
			if class != "" {
				usage[class+storageClassSuffix+"requests.storage"] = storage
			}
		}
		return usage
	}
	usage := List{}
	for _, n := range e.names {
		usage[n] = "1"
	}
	return usage
}

// claimStorage is the storage a claim is charged: what it requests, or what
// was allocated to it when that is more (kube's RecoverVolumeExpansionFailure,
// on in 1.32), rounded up to whole units.
func claimStorage(obj object.Object, spec map[string]any) (string, bool) {
	storage, ok := object.Path(spec, "resources", "requests", "storage").(string)
	if !ok {
		return "", false
	}
	if allocated, ok := object.Path(obj, "status", "allocatedResources", "storage").(string); ok && quantity.Compare(allocated, storage) > 0 {
		storage = allocated
	}
	return quantity.RoundUp(storage, 0), true
}

// Charged says whether a Pod is charged its compute resources: it has not
// finished, and is not past the grace period of its deletion (at now).
func Charged(pod object.Object, now time.Time) bool {
	if phase := object.String(object.Path(pod, "status", "phase")); phase == "Succeeded" || phase == "Failed" {
		return false
	}
	meta, _ := pod["metadata"].(map[string]any)
	deleted, err := time.Parse(time.RFC3339, object.String(meta["deletionTimestamp"]))
	if grace, ok := meta["deletionGracePeriodSeconds"]; ok && grace != nil && err == nil {
		return !now.After(deleted.Add(time.Duration(object.Int(grace)) * time.Second))
	}
	return true
}

// podResources are what a Pod is charged for its requests and limits: its
// containers' (Containers), and for requests, and the limits that are set,
// its overhead.
func podResources(spec map[string]any) (requests, limits List) {
	requests, limits = Containers(spec)
	overhead := ReadList(spec, "overhead")
	requests = Add(requests, overhead)
	for k, v := range overhead {
		if l, ok := limits[k]; ok && quantity.Compare(l, "0") != 0 {
			limits[k] = quantity.Add(l, v)
		}
	}
	return requests, limits
}

// Containers are the requests and limits of a Pod's containers as kube's
// resource helpers sum them: its containers', its restartable init
// containers' (sidecars) added, and the largest of each other init
// container's (with the sidecars started before it).
func Containers(spec map[string]any) (requests, limits List) {
	sum := func(field string) List {
		total := List{}
		for _, c := range object.Objects(spec, "containers") {
			total = Add(total, readResources(c, field))
		}
		sidecars, init := List{}, List{}
		for _, c := range object.Objects(spec, "initContainers") {
			own := readResources(c, field)
			if object.String(c["restartPolicy"]) == "Always" {
				total = Add(total, own)
				sidecars = Add(sidecars, own)
				own = sidecars
			} else {
				own = Add(own, sidecars)
			}
			init = maxList(init, own)
		}
		return maxList(total, init)
	}
	return sum("requests"), sum("limits")
}

// readResources is a container's resources.requests or .limits.
func readResources(c map[string]any, field string) List {
	res, _ := c["resources"].(map[string]any)
	return ReadList(res, field)
}

// maxList is a with b's quantities that are larger, or that a lacks.
func maxList(a, b List) List {
	for k, v := range b {
		if cur, ok := a[k]; !ok || quantity.Compare(v, cur) > 0 {
			a[k] = v
		}
	}
	return a
}

// computeUsage is what requests and limits charge (podComputeUsageHelper):
// the pod, cpu, memory and ephemeral storage requested (also under their
// bare names) and limited, huge pages and extended resources requested.
func computeUsage(requests, limits List) List {
	usage := List{"pods": "1"}
	for _, r := range []string{"cpu", "memory", "ephemeral-storage"} {
		if v, ok := requests[r]; ok {
			usage[r], usage["requests."+r] = v, v
		}
		if v, ok := limits[r]; ok {
			usage["limits."+r] = v
		}
	}
	for r, v := range requests {
		switch {
		case strings.HasPrefix(r, "hugepages-"):
			usage[r], usage["requests."+r] = v, v
		case !native(r) && !strings.HasPrefix(r, "requests."):
			usage["requests."+r] = v
		}
	}
	return usage
}

// mustSpecify are the compute resources that a Pod in a quota limiting them
// must request or limit in every container (kube's validationSet).
var mustSpecify = []string{"cpu", "limits.cpu", "limits.memory", "memory", "requests.cpu", "requests.memory"}

// Constraints is why a Pod does not meet what a quota limiting required
// asks of it ("must specify limits.cpu for: app; memory for: app,init"),
// or "": each container must ask for the cpu and memory quotas limit.
func (e Evaluator) Constraints(required []string, obj object.Object) string {
	if e.kind != podKind {
		return ""
	}
	required = intersection(required, mustSpecify)
	missing := map[string][]string{}
	spec, _ := obj["spec"].(map[string]any)
	for _, c := range append(object.Objects(spec, "containers"), object.Objects(spec, "initContainers")...) {
		res, _ := c["resources"].(map[string]any)
		usage := computeUsage(ReadList(res, "requests"), ReadList(res, "limits"))
		for _, r := range required {
			if _, ok := usage[r]; !ok {
				missing[r] = append(missing[r], object.String(c["name"]))
			}
		}
	}
	var msgs []string
	for _, r := range required {
		if names := missing[r]; len(names) > 0 {
			sort.Strings(names)
			msgs = append(msgs, r+" for: "+strings.Join(dedupe(names), ","))
		}
	}
	if len(msgs) == 0 {
		return ""
	}
	return "must specify " + strings.Join(msgs, "; ")
}

// dedupe drops repeats from a sorted list.
func dedupe(sorted []string) []string {
	out := sorted[:0]
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// Frees says whether an update of old to obj may lower what quotas count
// of it (kube's DefaultUpdateFilter, which tells the resource quota
// controller to count again): a Pod that finishes or outlives the grace
// period of its deletion (at now), a Service that changes type, any update
// of a claim.
func (e Evaluator) Frees(old, obj object.Object, now time.Time) bool {
	switch e.kind {
	case podKind:
		return Charged(old, now) && !Charged(obj, now)
	case serviceKind:
		return quotaServiceType(old) != quotaServiceType(obj)
	case claimKind:
		return true // kube compares two fresh pointers: always different
	}
	return false
}

// quotaServiceType is a Service's type as quota tells them apart: NodePort,
// LoadBalancer, or neither.
func quotaServiceType(svc object.Object) string {
	switch t := object.String(object.Path(svc, "spec", "type")); t {
	case "NodePort", "LoadBalancer":
		return t
	}
	return ""
}
