package kinds

import (
	"fmt"
	"slices"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// service is v1 Service. What kube's Service registry does besides
// allocating (core/registry's serviceAllocation): clusterIPs follows
// clusterIP, the IP family policy and families are set as on a single-stack
// IPv4 cluster, an update keeps what was allocated unless the type no longer
// needs it, and the Service rules check the result.
func service() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "Service", Plural: "services", Singular: "service",
		Namespaced: true, ShortNames: []string{"svc"}, Categories: []string{"all"},
		Verbs: allVerbs, Names: api.DNS1035Label, CreateOnUpdate: true, ReturnDeleted: true,
		Subs: []api.Subresource{
			{Name: "proxy", Kind: "ServiceProxyOptions", Verbs: connectProxy},
			{Name: "status", Kind: "Service", Verbs: statusVerbs},
		},
		Fields: map[string]func(object.Object) string{
			"spec.clusterIP": str("spec", "clusterIP"),
			"spec.type":      str("spec", "type"),
		},
		Defaults: defaultService,
		Hooks: api.Hooks{
			LabelChecksOnUpdate: 4,
			PrepareForCreate:    prepareNewService,
			PrepareForUpdate:    prepareServiceUpdate,
			Validate:            validateService,
			ValidateUpdate:      validateServiceUpdate,
		},
		Printer: table.Service,
	}
}

// defaultService is SetDefaults_Service.
func defaultService(m map[string]any) {
	spec := object.Child(m, "spec")
	defaults.SetString(spec, "sessionAffinity", "None")
	switch spec["sessionAffinity"] {
	case "None":
		delete(spec, "sessionAffinityConfig")
	case "ClientIP":
		if object.Path(spec, "sessionAffinityConfig", "clientIP", "timeoutSeconds") == nil {
			spec["sessionAffinityConfig"] = map[string]any{"clientIP": map[string]any{"timeoutSeconds": defaults.Number("10800")}}
		}
	}
	defaults.SetString(spec, "type", "ClusterIP")
	for _, p := range object.Objects(spec, "ports") {
		defaults.SetString(p, "protocol", "TCP")
		if t := p["targetPort"]; defaults.IsZero(t) || t == "" {
			p["targetPort"] = p["port"]
			if p["port"] == nil {
				p["targetPort"] = defaults.Number("0")
			}
		}
	}
	typ := spec["type"]
	externalIPs, _ := spec["externalIPs"].([]any)
	if typ == "LoadBalancer" || typ == "NodePort" || typ == "ClusterIP" && len(externalIPs) > 0 {
		defaults.SetString(spec, "externalTrafficPolicy", "Cluster")
	}
	if typ == "NodePort" || typ == "LoadBalancer" || typ == "ClusterIP" {
		defaults.SetUnset(spec, "internalTrafficPolicy", "Cluster")
	}
	if typ == "LoadBalancer" {
		defaults.SetUnset(spec, "allocateLoadBalancerNodePorts", true)
		ingress, _ := object.Path(m, "status", "loadBalancer").(map[string]any)
		for _, in := range object.Objects(ingress, "ingress") {
			if ip, _ := in["ip"].(string); ip != "" {
				defaults.SetUnset(in, "ipMode", "VIP")
			}
		}
	}
}

// prepareNewService: a new Service has an empty load balancer status, and its
// IP fields initialized.
func prepareNewService(obj object.Object, _ time.Time) {
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
	if !ServiceNeedsClusterIP(spec) {
		delete(spec, "internalTrafficPolicy")
	}
}

// prepareServiceUpdate: an update keeps what was allocated unless the type
// no longer needs it, and keeps the IP fields in step.
func prepareServiceUpdate(u api.Update) object.Object {
	obj, old := u.Generic(), u.Old
	if u.Sub != "" {
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

// validateService reports, before the Service rules, what initIPFamilies refused in
// PrepareForCreate (run again, it changes nothing), as kube's allocation
// refuses it before validating.
func validateService(obj object.Object) field.ErrorList {
	if errs := initIPFamilies(object.Child(obj, "spec"), nil); len(errs) > 0 {
		return errs
	}
	return validation.Service(obj)
}

// validateServiceUpdate is validateService for an update.
func validateServiceUpdate(obj, old object.Object, sub string) field.ErrorList {
	if sub != "" {
		return nil
	}
	oldSpec, _ := old["spec"].(map[string]any)
	if errs := initIPFamilies(object.Child(obj, "spec"), oldSpec); len(errs) > 0 {
		return errs
	}
	return validation.ServiceUpdate(obj, old)
}

// ServiceNeedsClusterIP: every type but ExternalName has a cluster IP (or "None").
func ServiceNeedsClusterIP(spec map[string]any) bool { return spec["type"] != "ExternalName" }

// ServiceNeedsNodePorts: NodePort and LoadBalancer Services have node ports, unless a
// load balancer does without.
func ServiceNeedsNodePorts(spec map[string]any) bool {
	allocate, set := spec["allocateLoadBalancerNodePorts"].(bool)
	return spec["type"] == "NodePort" || spec["type"] == "LoadBalancer" && (!set || allocate)
}

// ServiceNeedsHealthCheck: a LoadBalancer keeping traffic local has a health check
// node port.
func ServiceNeedsHealthCheck(spec map[string]any) bool {
	return spec["type"] == "LoadBalancer" && spec["externalTrafficPolicy"] == "Local"
}

// keepAllocated is patchAllocatedValues: an update that leaves out what kube
// allocated (cluster IPs, node ports) keeps it, so a client can send the same
// body again.
func keepAllocated(spec, old map[string]any) {
	if ServiceNeedsClusterIP(old) && ServiceNeedsClusterIP(spec) {
		if ip, _ := spec["clusterIP"].(string); ip == "" && old["clusterIP"] != nil {
			spec["clusterIP"] = old["clusterIP"]
		}
		if len(object.Strings(spec, "clusterIPs")) == 0 && len(object.Strings(old, "clusterIPs")) > 0 {
			spec["clusterIPs"] = old["clusterIPs"]
		}
	}
	if ServiceNeedsNodePorts(old) && ServiceNeedsNodePorts(spec) {
		used, oldUsed := ServiceNodePorts(spec), ServiceNodePorts(old)
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
	if ServiceNeedsHealthCheck(old) && ServiceNeedsHealthCheck(spec) && spec["healthCheckNodePort"] == nil {
		if v, ok := old["healthCheckNodePort"]; ok {
			spec["healthCheckNodePort"] = v
		}
	}
}

// ServiceNodePorts are the node ports a Service's ports use.
func ServiceNodePorts(spec map[string]any) map[string]bool {
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
	if !ServiceNeedsClusterIP(spec) {
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
		object.SetStrings(spec, "ipFamilies", families)
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
	object.SetStrings(spec, "ipFamilies", families)
	return nil
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
	if ServiceNeedsClusterIP(old) && !ServiceNeedsClusterIP(spec) {
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
	if ServiceNeedsNodePorts(old) && !ServiceNeedsNodePorts(spec) && sameNodePorts(spec, old) {
		for _, p := range object.Objects(spec, "ports") {
			delete(p, "nodePort")
		}
	}
	if ServiceNeedsHealthCheck(old) && !ServiceNeedsHealthCheck(spec) && same("healthCheckNodePort") {
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
