package validation

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// The rules of Services (ValidateService, ValidateServiceUpdate): ports
// (required but for headless and ExternalName services, named when several,
// numbers, protocols, target ports, unique), type, session affinity, cluster
// IPs and IP families, external name, traffic policies, node ports only where
// the type has them; on update, cluster IPs that do not change. What comes
// from allocation (cluster IPs and node ports in range and free) is not
// checked: kubeplay allocates none.

// The Service types and policies kube knows.
var (
	serviceTypes                     = []string{"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}
	sessionAffinities                = []string{"ClientIP", "None"}
	ipFamilies                       = []string{"IPv4", "IPv6"}
	ipFamilyPolicies                 = []string{"PreferDualStack", "RequireDualStack", "SingleStack"}
	trafficPolicyValues              = []string{"Cluster", "Local"}
	maxClientIPAffinitySeconds int64 = 86400
)

// kubeletPort is the port a LoadBalancer may not expose.
const kubeletPort = 10250

// Service checks a Service.
func Service(svc object.Object) field.ErrorList {
	spec, p := fields(svc).obj("spec"), field.NewPath("spec")
	typ, ports := spec.str("type"), spec.list("ports")
	headless := isHeadless(spec)
	var errs field.ErrorList
	if len(ports) == 0 && !headless && typ != "ExternalName" {
		add(&errs, field.Required(p.Child("ports"), ""))
	}
	switch typ {
	case "LoadBalancer":
		for i, port := range ports {
			if port.num("port") == kubeletPort {
				add(&errs, field.Invalid(p.Child("ports").Index(i), int64(kubeletPort), fmt.Sprintf("may not expose port %d externally since it is used by kubelet", kubeletPort)))
			}
		}
		if headless {
			add(&errs, field.Invalid(p.Child("clusterIPs").Index(0), "None", "may not be set to 'None' for LoadBalancer services"))
		}
	case "NodePort":
		if headless {
			add(&errs, field.Invalid(p.Child("clusterIPs").Index(0), "None", "may not be set to 'None' for NodePort services"))
		}
	case "ExternalName":
		for _, f := range []string{"clusterIPs", "ipFamilies"} {
			if len(spec.strs(f)) > 0 {
				add(&errs, field.Forbidden(p.Child(f), "may not be set for ExternalName services"))
			}
		}
		if spec.has("ipFamilyPolicy") {
			add(&errs, field.Forbidden(p.Child("ipFamilyPolicy"), "may not be set for ExternalName services"))
		}
		if cname := strings.TrimSuffix(spec.str("externalName"), "."); cname != "" {
			addInvalid(&errs, p.Child("externalName"), cname, DNS1123Subdomain(cname))
		} else {
			add(&errs, field.Required(p.Child("externalName"), ""))
		}
	}
	names := map[string]bool{}
	for i, port := range ports {
		add(&errs, servicePort(port, len(ports) > 1, names, p.Child("ports").Index(i))...)
	}
	if spec.has("selector") {
		add(&errs, Labels(spec.strMap("selector"), p.Child("selector"))...)
	}
	add(&errs, sessionAffinity(spec, p)...)
	add(&errs, clusterIPs(spec, p)...)
	for i, ip := range spec.strs("externalIPs") {
		add(&errs, validIP(ip, p.Child("externalIPs").Index(i))...)
	}
	if typ == "" {
		add(&errs, field.Required(p.Child("type"), ""))
	} else if !slices.Contains(serviceTypes, typ) {
		add(&errs, field.NotSupported(p.Child("type"), typ, serviceTypes))
	}
	add(&errs, servicePortsByType(spec, p)...)
	if spec.has("allocateLoadBalancerNodePorts") && typ != "LoadBalancer" {
		add(&errs, field.Forbidden(p.Child("allocateLoadBalancerNodePorts"), "may only be used when `type` is 'LoadBalancer'"))
	}
	if typ == "LoadBalancer" && !spec.has("allocateLoadBalancerNodePorts") {
		add(&errs, field.Required(field.NewPath("allocateLoadBalancerNodePorts"), ""))
	}
	return append(errs, trafficPolicies(spec, p)...)
}

// ServiceUpdate checks an update of a Service: its cluster IPs do not change
// once set, and it is a valid Service.
func ServiceUpdate(svc, old object.Object) field.ErrorList {
	spec, oldSpec := fields(svc).obj("spec"), fields(old).obj("spec")
	var errs field.ErrorList
	if spec.str("type") != "ExternalName" && oldSpec.str("type") != "ExternalName" && !(isHeadless(spec) && isHeadless(oldSpec)) {
		errs = clusterIPsChange(spec.strs("clusterIPs"), oldSpec.strs("clusterIPs"), spec)
	}
	return append(errs, Service(svc)...)
}

// isHeadless: the service has no cluster IP ("None").
func isHeadless(spec fields) bool {
	ips := spec.strs("clusterIPs")
	return len(ips) > 0 && ips[0] == "None"
}

// servicePort is validateServicePort.
func servicePort(port fields, requireName bool, names map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	name := port.str("name")
	if requireName && name == "" {
		add(&errs, field.Required(p.Child("name"), ""))
	} else if name != "" {
		addInvalid(&errs, p.Child("name"), name, DNS1123Label(name))
		if names[name] {
			add(&errs, field.Duplicate(p.Child("name"), name))
		}
		names[name] = true
	}
	addInvalid(&errs, p.Child("port"), port.num("port"), PortNumber(port.num("port")))
	add(&errs, oneOf(port.str("protocol"), p.Child("protocol"), protocols...)...)
	add(&errs, portNumOrName(port["targetPort"], p.Child("targetPort"))...)
	if port.has("appProtocol") {
		addInvalid(&errs, p.Child("appProtocol"), port.str("appProtocol"), QualifiedName(port.str("appProtocol")))
	}
	return errs
}

// sessionAffinity checks the affinity and its ClientIP timeout.
func sessionAffinity(spec fields, p *field.Path) field.ErrorList {
	affinity, cp := spec.str("sessionAffinity"), p.Child("sessionAffinityConfig")
	switch {
	case affinity == "":
		return field.ErrorList{field.Required(p.Child("sessionAffinity"), "")}
	case !slices.Contains(sessionAffinities, affinity):
		return field.ErrorList{field.NotSupported(p.Child("sessionAffinity"), affinity, sessionAffinities)}
	case affinity == "None" && spec.has("sessionAffinityConfig"):
		return field.ErrorList{field.Forbidden(cp, "must not be set when session affinity is None")}
	case affinity == "ClientIP":
		const when = "when session affinity type is ClientIP"
		config := spec.obj("sessionAffinityConfig")
		switch {
		case config == nil:
			return field.ErrorList{field.Required(cp, when)}
		case !config.has("clientIP"):
			return field.ErrorList{field.Required(cp.Child("clientIP"), when)}
		case !config.obj("clientIP").has("timeoutSeconds"):
			return field.ErrorList{field.Required(cp.Child("clientIP").Child("timeoutSeconds"), when)}
		}
		if t := config.obj("clientIP").num("timeoutSeconds"); t <= 0 || t > maxClientIPAffinitySeconds {
			return field.ErrorList{field.Invalid(cp.Child("clientIP").Child("timeoutSeconds"), t, fmt.Sprintf("must be greater than 0 and less than %d", maxClientIPAffinitySeconds))}
		}
	}
	return nil
}

// clusterIPs is ValidateServiceClusterIPsRelatedFields: clusterIP and
// clusterIPs agree, the IPs and families are valid and match.
func clusterIPs(spec fields, p *field.Path) field.ErrorList {
	if spec.str("type") == "ExternalName" {
		return nil
	}
	var errs field.ErrorList
	ipsPath := p.Child("clusterIPs")
	ips := spec.strs("clusterIPs")
	if ip := spec.str("clusterIP"); ip != "" {
		if len(ips) == 0 {
			add(&errs, field.Required(ipsPath, ""))
		} else if ips[0] != ip {
			add(&errs, field.Invalid(ipsPath, ips, "first value must match `clusterIP`"))
		}
	} else if len(ips) != 0 {
		add(&errs, field.Invalid(ipsPath, ips, "must be empty when `clusterIP` is not specified"))
	}
	families := spec.strs("ipFamilies")
	seen := map[string]bool{}
	for i, family := range families {
		if !slices.Contains(ipFamilies, family) {
			add(&errs, field.NotSupported(p.Child("ipFamilies").Index(i), family, ipFamilies))
		}
		if seen[family] {
			add(&errs, field.Duplicate(p.Child("ipFamilies").Index(i), family))
		}
		seen[family] = true
	}
	if policy := spec.str("ipFamilyPolicy"); spec.has("ipFamilyPolicy") && !slices.Contains(ipFamilyPolicies, policy) {
		add(&errs, field.NotSupported(p.Child("ipFamilyPolicy"), policy, ipFamilyPolicies))
	}
	invalid := false
	for i, ip := range ips {
		if i == 0 && ip == "None" {
			if len(ips) > 1 {
				invalid = true
				add(&errs, field.Invalid(ipsPath, ips, "'None' must be the first and only value"))
			}
			continue
		}
		ipErrs := validIP(ip, ipsPath.Index(i))
		invalid = invalid || len(ipErrs) > 0
		add(&errs, ipErrs...)
	}
	if len(ips) > 2 {
		add(&errs, field.Invalid(ipsPath, ips, "may only hold up to 2 values"))
	}
	if invalid {
		return errs
	}
	if len(ips) > 1 && (len(ips) > 2 || ipFamily(ips[0]) == ipFamily(ips[1])) {
		add(&errs, field.Invalid(ipsPath, ips, "may specify no more than one IP for each IP family"))
	}
	if !isHeadless(spec) {
		for i := 0; i < len(ips) && i < len(families); i++ {
			if got := ipFamily(ips[i]); got != families[i] && (families[i] == "IPv4" || families[i] == "IPv6") {
				add(&errs, field.Invalid(ipsPath.Index(i), ips[i], fmt.Sprintf("expected an %s value as indicated by `ipFamilies[%d]`", families[i], i)))
			}
		}
	}
	return errs
}

// validIP is IsValidIP.
func validIP(ip string, p *field.Path) field.ErrorList {
	if _, err := netip.ParseAddr(ip); err != nil && !sloppyIPv4(ip) {
		return field.ErrorList{field.Invalid(p, ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")}
	}
	return nil
}

// sloppyIPv4: an IPv4 address with leading zeros, which kube still reads.
func sloppyIPv4(ip string) bool {
	parts := strings.Split(ip, ".")
	if len(parts) != 4 {
		return false
	}
	for _, part := range parts {
		if part == "" || len(part) > 3 || strings.Trim(part, "0123456789") != "" {
			return false
		}
		if n, _ := strconv.Atoi(part); n > 255 {
			return false
		}
	}
	return true
}

// ipFamily is the family of an IP address.
func ipFamily(ip string) string {
	if strings.Contains(ip, ":") {
		return "IPv6"
	}
	return "IPv4"
}

// clusterIPsChange is validateUpgradeDowngradeClusterIPs: the cluster IPs
// set may not change; a secondary one may be added, or released by a
// single-stack service.
func clusterIPsChange(ips, old []string, spec fields) field.ErrorList {
	p := field.NewPath("spec", "clusterIPs").Index(0)
	var errs field.ErrorList
	switch {
	case len(old) == len(ips):
		for i := range old {
			if old[i] != ips[i] {
				add(&errs, field.Invalid(field.NewPath("spec", "clusterIPs").Index(i), ips, "may not change once set"))
			}
		}
	case len(old) > len(ips):
		if len(ips) == 0 {
			add(&errs, field.Invalid(p, ips, "primary clusterIP can not be unset"))
		}
		if len(old) > 0 && len(ips) > 0 && ips[0] != old[0] {
			add(&errs, field.Invalid(p, ips, "may not change once set"))
		}
		if len(ips) == 1 && spec.str("ipFamilyPolicy") != "SingleStack" {
			var policy any
			if spec.has("ipFamilyPolicy") {
				policy = spec.str("ipFamilyPolicy")
			}
			add(&errs, field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), policy, "must be set to 'SingleStack' when releasing the secondary clusterIP"))
		}
	case len(old) > 0 && ips[0] != old[0]:
		add(&errs, field.Invalid(p, ips, "may not change once set"))
	}
	return errs
}

// servicePortsByType: node ports only where the type has them, and no port
// or node port twice for one protocol.
func servicePortsByType(spec fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	ports := spec.list("ports")
	if spec.str("type") == "ClusterIP" {
		for i, port := range ports {
			if port.num("nodePort") != 0 {
				add(&errs, field.Forbidden(p.Child("ports").Index(i).Child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
			}
		}
	}
	nodePorts := map[string]bool{}
	for i, port := range ports {
		np := port.num("nodePort")
		if np == 0 {
			continue
		}
		key := fmt.Sprint(port.str("protocol"), "/", np)
		if nodePorts[key] {
			add(&errs, field.Duplicate(p.Child("ports").Index(i).Child("nodePort"), np))
		}
		nodePorts[key] = true
	}
	seen := map[servicePortKey]bool{}
	for i, port := range ports {
		key := servicePortKey{port.str("protocol"), port.num("port")}
		if seen[key] {
			add(&errs, field.Duplicate(p.Child("ports").Index(i), key))
		}
		seen[key] = true
	}
	return errs
}

// servicePortKey is a port's protocol and number, shown as kube shows the
// core.ServicePort it compares.
type servicePortKey struct {
	protocol string
	port     int64
}

func (k servicePortKey) String() string {
	return fmt.Sprintf(`core.ServicePort{Name:"", Protocol:%q, AppProtocol:(*string)(nil), Port:%d, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`, k.protocol, k.port)
}

// trafficPolicies checks the external and internal traffic policies and the
// health check's node port.
func trafficPolicies(spec fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	typ := spec.str("type")
	external := typ == "LoadBalancer" || typ == "NodePort" || typ == "ClusterIP" && len(spec.strs("externalIPs")) > 0
	etp := spec.str("externalTrafficPolicy")
	switch {
	case !external && etp != "":
		add(&errs, field.Invalid(p.Child("externalTrafficPolicy"), etp, "may only be set for externally-accessible services"))
	case external:
		add(&errs, oneOf(etp, p.Child("externalTrafficPolicy"), trafficPolicyValues...)...)
	}
	if hc := spec.num("healthCheckNodePort"); hc != 0 {
		if typ != "LoadBalancer" || etp != "Local" {
			add(&errs, field.Invalid(p.Child("healthCheckNodePort"), hc, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
		} else {
			addInvalid(&errs, p.Child("healthCheckNodePort"), hc, PortNumber(hc))
		}
	}
	itp := p.Child("internalTrafficPolicy")
	switch policy := spec.str("internalTrafficPolicy"); {
	case !spec.has("internalTrafficPolicy"):
		if typ == "NodePort" || typ == "LoadBalancer" || typ == "ClusterIP" {
			add(&errs, field.Required(itp, ""))
		}
	case !slices.Contains(trafficPolicyValues, policy):
		add(&errs, field.NotSupported(itp, policy, trafficPolicyValues))
	}
	if spec.has("trafficDistribution") && spec.str("trafficDistribution") != "PreferClose" {
		add(&errs, field.NotSupported(p.Child("trafficDistribution"), spec.str("trafficDistribution"), []string{"PreferClose"}))
	}
	return errs
}
