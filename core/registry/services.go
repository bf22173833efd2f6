package registry

import (
	"fmt"
	"slices"

	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// serviceStrategy is what kube's Service registry does besides allocating
// (serviceAllocation): clusterIPs follows clusterIP, the IP family policy and
// families are set as on a single-stack IPv4 cluster, an update keeps what
// was allocated unless the type no longer needs it, and the Service rules
// check the result.
type serviceStrategy struct{ resourceStrategy }

// PrepareForCreate: a new Service has an empty load balancer status, and its
// IP fields initialized.
func (serviceStrategy) PrepareForCreate(obj object.Object) {
	obj["status"] = map[string]any{"loadBalancer": map[string]any{}}
	spec := object.Child(obj, "spec")
	if ip, _ := spec["clusterIP"].(string); ip != "" && len(object.Strings(spec, "clusterIPs")) == 0 {
		spec["clusterIPs"] = []any{ip}
	}
	initIPFamilies(spec, nil)
	hideOnRead(spec)
}

// hideOnRead drops what kube stores but drops whenever it reads a Service
// (defaultOnReadService): an ExternalName Service's internalTrafficPolicy,
// which defaulting used to set.
func hideOnRead(spec map[string]any) {
	if !needsClusterIP(spec) {
		delete(spec, "internalTrafficPolicy")
	}
}

func (s serviceStrategy) PrepareForUpdate(obj, old object.Object, sub string) object.Object {
	obj = s.resourceStrategy.PrepareForUpdate(obj, old, sub)
	if sub != "" {
		return obj
	}
	spec := object.Child(obj, "spec")
	oldSpec, _ := old["spec"].(map[string]any)
	keepAllocated(spec, oldSpec)
	normalizeClusterIPs(spec, oldSpec)
	initIPFamilies(spec, oldSpec)
	dropTypeDependent(obj, spec, oldSpec)
	hideOnRead(spec)
	return obj
}

// Validate reports, before the Service rules, what initIPFamilies refused in
// PrepareForCreate (run again, it changes nothing), as kube's allocation
// refuses it before validating.
func (serviceStrategy) Validate(obj object.Object) field.ErrorList {
	if errs := initIPFamilies(object.Child(obj, "spec"), nil); len(errs) > 0 {
		return errs
	}
	return validation.Service(obj)
}

// ValidateUpdate is Validate for an update.
func (serviceStrategy) ValidateUpdate(obj, old object.Object, sub string) field.ErrorList {
	if sub != "" {
		return nil
	}
	oldSpec, _ := old["spec"].(map[string]any)
	if errs := initIPFamilies(object.Child(obj, "spec"), oldSpec); len(errs) > 0 {
		return errs
	}
	return validation.ServiceUpdate(obj, old)
}

// needsClusterIP: every type but ExternalName has a cluster IP (or "None").
func needsClusterIP(spec map[string]any) bool { return spec["type"] != "ExternalName" }

// needsNodePorts: NodePort and LoadBalancer Services have node ports, unless a
// load balancer does without.
func needsNodePorts(spec map[string]any) bool {
	allocate, set := spec["allocateLoadBalancerNodePorts"].(bool)
	return spec["type"] == "NodePort" || spec["type"] == "LoadBalancer" && (!set || allocate)
}

// needsHealthCheck: a LoadBalancer keeping traffic local has a health check
// node port.
func needsHealthCheck(spec map[string]any) bool {
	return spec["type"] == "LoadBalancer" && spec["externalTrafficPolicy"] == "Local"
}

// keepAllocated is patchAllocatedValues: an update that leaves out what kube
// allocated (cluster IPs, node ports) keeps it, so a client can send the same
// body again.
func keepAllocated(spec, old map[string]any) {
	if needsClusterIP(old) && needsClusterIP(spec) {
		if ip, _ := spec["clusterIP"].(string); ip == "" && old["clusterIP"] != nil {
			spec["clusterIP"] = old["clusterIP"]
		}
		if len(object.Strings(spec, "clusterIPs")) == 0 && len(object.Strings(old, "clusterIPs")) > 0 {
			spec["clusterIPs"] = old["clusterIPs"]
		}
	}
	if needsNodePorts(old) && needsNodePorts(spec) {
		used, oldUsed := nodePorts(spec), nodePorts(old)
		byName := map[string]any{}
		for _, p := range object.Objects(old, "ports") {
			name, _ := p["name"].(string)
			byName[name] = p["nodePort"]
		}
		for _, p := range object.Objects(spec, "ports") {
			name, _ := p["name"].(string)
			if n := fmt.Sprint(byName[name]); p["nodePort"] == nil && byName[name] != nil && !(used[n] && oldUsed[n]) {
				p["nodePort"] = byName[name]
			}
		}
	}
	if needsHealthCheck(old) && needsHealthCheck(spec) && spec["healthCheckNodePort"] == nil {
		if v, ok := old["healthCheckNodePort"]; ok {
			spec["healthCheckNodePort"] = v
		}
	}
}

// nodePorts are the node ports a Service's ports use.
func nodePorts(spec map[string]any) map[string]bool {
	used := map[string]bool{}
	for _, p := range object.Objects(spec, "ports") {
		if p["nodePort"] != nil {
			used[fmt.Sprint(p["nodePort"])] = true
		}
	}
	return used
}

// normalizeClusterIPs keeps clusterIPs in step with clusterIP on update, as
// an older client changes only the one.
func normalizeClusterIPs(spec, old map[string]any) {
	ip, _ := spec["clusterIP"].(string)
	oldIP, _ := old["clusterIP"].(string)
	ips, oldIPs := object.Strings(spec, "clusterIPs"), object.Strings(old, "clusterIPs")
	if len(oldIPs) > 0 && len(ips) == 0 && ip == oldIP {
		spec["clusterIPs"] = old["clusterIPs"]
		ips = oldIPs
	}
	if ip == oldIP || !slices.Equal(ips, oldIPs) {
		return
	}
	if oldIP != "" && ip == "" {
		delete(spec, "clusterIPs")
	} else {
		spec["clusterIPs"] = []any{ip}
	}
}

// initIPFamilies sets the IP family policy and families a Service gets on a
// single-stack IPv4 cluster (initIPFamilyFields; old is nil on create), and
// returns what such a cluster refuses.
func initIPFamilies(spec, old map[string]any) field.ErrorList {
	if !needsClusterIP(spec) {
		return nil
	}
	selector, _ := spec["selector"].(map[string]any)
	headlessSelectorless := spec["clusterIP"] == "None" && len(selector) == 0
	if spec["ipFamilyPolicy"] == nil {
		switch {
		case old != nil && old["ipFamilyPolicy"] != nil:
			spec["ipFamilyPolicy"] = old["ipFamilyPolicy"]
		case headlessSelectorless:
			spec["ipFamilyPolicy"] = "RequireDualStack"
		default:
			spec["ipFamilyPolicy"] = "SingleStack"
		}
	}
	policy, _ := spec["ipFamilyPolicy"].(string)
	policyPath, familiesPath, ipsPath := field.NewPath("spec", "ipFamilyPolicy"), field.NewPath("spec", "ipFamilies"), field.NewPath("spec", "clusterIPs")
	ips, families := object.Strings(spec, "clusterIPs"), object.Strings(spec, "ipFamilies")
	var errs field.ErrorList
	if policy == "SingleStack" {
		if len(ips) == 2 {
			errs = append(errs, field.Invalid(policyPath, policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"))
		}
		if len(families) == 2 {
			errs = append(errs, field.Invalid(policyPath, policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"))
		}
	}
	for i, ip := range ips {
		if ip == "None" {
			break
		}
		if i < len(families) {
			continue
		}
		if family := ipFamilyOf(ip); family == "IPv4" {
			families = append(families, family)
		} else {
			errs = append(errs, field.Invalid(ipsPath.Index(i), ips, family+" is not configured on this cluster"))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if headlessSelectorless {
		if len(families) == 0 {
			families = []string{"IPv4"}
		}
		if len(families) < 2 && policy != "SingleStack" {
			families = append(families, map[string]string{"IPv4": "IPv6", "IPv6": "IPv4"}[families[0]])
		}
		setStrings(spec, "ipFamilies", families)
		return nil
	}
	if policy == "RequireDualStack" {
		errs = append(errs, field.Invalid(policyPath, policy, "this cluster is not configured for dual-stack services"))
	}
	for i, family := range families {
		if family != "IPv4" {
			errs = append(errs, field.Invalid(familiesPath.Index(i), family, "not configured on this cluster"))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if len(families) == 0 {
		families = []string{"IPv4"}
	}
	setStrings(spec, "ipFamilies", families)
	return nil
}

func setStrings(m map[string]any, key string, list []string) {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	m[key] = out
}

// ipFamilyOf is the family of an IP address.
func ipFamilyOf(ip string) string {
	if slices.Contains([]byte(ip), ':') {
		return "IPv6"
	}
	return "IPv4"
}

// dropTypeDependent is dropTypeDependentFields: an update to a type that no
// longer has them drops the cluster IPs, node ports, health check port and
// load balancer fields kube set (when the client did not change them too),
// and a Service that is no load balancer has no load balancer status.
func dropTypeDependent(obj, spec, old map[string]any) {
	same := func(f string) bool { return object.Equal(spec[f], old[f]) }
	if needsClusterIP(old) && !needsClusterIP(spec) {
		if same("clusterIP") && same("clusterIPs") {
			delete(spec, "clusterIP")
			delete(spec, "clusterIPs")
		}
		for _, f := range []string{"ipFamilies", "ipFamilyPolicy"} {
			if same(f) {
				delete(spec, f)
			}
		}
	}
	if needsNodePorts(old) && !needsNodePorts(spec) && sameNodePorts(spec, old) {
		for _, p := range object.Objects(spec, "ports") {
			delete(p, "nodePort")
		}
	}
	if needsHealthCheck(old) && !needsHealthCheck(spec) && same("healthCheckNodePort") {
		delete(spec, "healthCheckNodePort")
	}
	if old["type"] == "LoadBalancer" && spec["type"] != "LoadBalancer" && spec["allocateLoadBalancerNodePorts"] != nil && same("allocateLoadBalancerNodePorts") {
		delete(spec, "allocateLoadBalancerNodePorts")
	}
	if old["type"] == "LoadBalancer" && spec["type"] != "LoadBalancer" && same("loadBalancerClass") {
		delete(spec, "loadBalancerClass")
	}
	externally := func(s map[string]any) bool {
		return s["type"] == "LoadBalancer" || s["type"] == "NodePort" || s["type"] == "ClusterIP" && len(object.Strings(s, "externalIPs")) > 0
	}
	if externally(old) && !externally(spec) && same("externalTrafficPolicy") {
		delete(spec, "externalTrafficPolicy")
	}
	if spec["type"] != "LoadBalancer" {
		status, _ := obj["status"].(map[string]any)
		if status == nil {
			status = map[string]any{}
			obj["status"] = status
		}
		status["loadBalancer"] = map[string]any{}
	}
}

// sameNodePorts: the ports' node ports, by position, did not change.
func sameNodePorts(spec, old map[string]any) bool {
	ports, oldPorts := object.Objects(spec, "ports"), object.Objects(old, "ports")
	if len(ports) != len(oldPorts) {
		return false
	}
	for i := range ports {
		if !object.Equal(ports[i]["nodePort"], oldPorts[i]["nodePort"]) {
			return false
		}
	}
	return true
}
