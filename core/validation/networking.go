package validation

import (
	"fmt"
	"net"
	"net/netip"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// The rules of networking.k8s.io/v1's NetworkPolicy, Ingress and
// IngressClass, as k8s.io/kubernetes's pkg/apis/networking/validation
// judges them.

// NetworkPolicy is ValidateNetworkPolicySpec (the metadata aside).
func NetworkPolicy(np object.Object) field.ErrorList {
	spec := fields(np).obj("spec")
	p := field.NewPath("spec")
	errs := selectorErrors(spec.obj("podSelector"), p.Child("podSelector"))
	for _, dir := range []struct{ list, peers string }{{"ingress", "from"}, {"egress", "to"}} {
		for i, rule := range spec.list(dir.list) {
			rp := p.Child(dir.list).Index(i)
			for j, port := range rule.list("ports") {
				errs = append(errs, networkPolicyPort(port, rp.Child("ports").Index(j))...)
			}
			for j, peer := range rule.list(dir.peers) {
				errs = append(errs, networkPolicyPeer(peer, rp.Child(dir.peers).Index(j))...)
			}
		}
	}
	types := spec.strs("policyTypes")
	if len(types) > 2 {
		return append(errs, field.Invalid(p.Child("policyTypes"), rawName(strings.Replace(fmt.Sprintf("%#v", types), "[]string", "[]networking.PolicyType", 1)), "may not specify more than two policyTypes"))
	}
	for i, t := range types {
		if t != "Ingress" && t != "Egress" {
			add(&errs, field.NotSupported(p.Child("policyTypes").Index(i), t, []string{"Ingress", "Egress"}))
		}
	}
	return errs
}

// networkPolicyPort is ValidateNetworkPolicyPort.
func networkPolicyPort(port fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if proto, ok := port["protocol"].(string); ok && proto != "TCP" && proto != "UDP" && proto != "SCTP" {
		add(&errs, field.NotSupported(p.Child("protocol"), proto, []string{"TCP", "UDP", "SCTP"}))
	}
	end, hasEnd := toInt(port["endPort"])
	switch v := port["port"].(type) {
	case nil:
		if hasEnd {
			add(&errs, field.Invalid(p.Child("endPort"), end, "may not be specified when `port` is not specified"))
		}
	case string:
		if hasEnd {
			add(&errs, field.Invalid(p.Child("endPort"), end, "may not be specified when `port` is non-numeric"))
		}
		addInvalid(&errs, p.Child("port"), v, PortName(v))
	default:
		n, _ := toInt(v)
		addInvalid(&errs, p.Child("port"), n, PortNumber(n))
		if hasEnd {
			if end < n {
				add(&errs, field.Invalid(p.Child("endPort"), n, "must be greater than or equal to `port`"))
			}
			addInvalid(&errs, p.Child("endPort"), end, PortNumber(end))
		}
	}
	return errs
}

// networkPolicyPeer is ValidateNetworkPolicyPeer: exactly one kind of peer,
// or the two selectors together.
func networkPolicyPeer(peer fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	for _, sel := range []string{"podSelector", "namespaceSelector"} {
		if peer.has(sel) {
			n++
			errs = append(errs, selectorErrors(peer.obj(sel), p.Child(sel))...)
		}
	}
	if peer.has("ipBlock") {
		n++
		errs = append(errs, ipBlock(peer.obj("ipBlock"), p.Child("ipBlock"))...)
	}
	if n == 0 {
		add(&errs, field.Required(p, "must specify a peer"))
	} else if n > 1 && peer.has("ipBlock") {
		add(&errs, field.Forbidden(p, "may not specify both ipBlock and another peer"))
	}
	return errs
}

// ipBlock is ValidateIPBlock: a CIDR, and exceptions strictly within it.
func ipBlock(block fields, p *field.Path) field.ErrorList {
	cidr := block.str("cidr")
	if cidr == "" {
		return field.ErrorList{field.Required(p.Child("cidr"), "")}
	}
	errs := validCIDR(cidr, p.Child("cidr"))
	_, outer, err := net.ParseCIDR(cidr)
	if err != nil {
		return errs
	}
	outerLen, _ := outer.Mask.Size()
	for i, except := range block.strs("except") {
		ep := p.Child("except").Index(i)
		errs = append(errs, validCIDR(except, ep)...)
		_, inner, err := net.ParseCIDR(except)
		if err != nil {
			continue
		}
		if innerLen, _ := inner.Mask.Size(); !outer.Contains(inner.IP) || outerLen >= innerLen {
			add(&errs, field.Invalid(ep, except, "must be a strict subset of `cidr`"))
		}
	}
	return errs
}

// validCIDR is IsValidCIDR.
func validCIDR(cidr string, p *field.Path) field.ErrorList {
	if _, _, err := net.ParseCIDR(cidr); err != nil {
		return field.ErrorList{field.Invalid(p, cidr, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")}
	}
	return nil
}

// Ingress is ValidateIngressCreate (the metadata aside).
func Ingress(ing object.Object) field.ErrorList {
	errs := ingressSpec(fields(ing).obj("spec"), false)
	class, hasClass := fields(ing).obj("spec")["ingressClassName"].(string)
	if annotation, ok := object.StringMap(object.Meta(ing), "annotations")[ingressClassAnnotation]; ok && hasClass && annotation != class {
		add(&errs, field.Invalid(field.NewPath("annotations").Child(ingressClassAnnotation), annotation, "must match `ingressClassName` when both are specified"))
	}
	return errs
}

// IngressUpdate is ValidateIngressUpdate (the metadata aside): a TLS secret
// name or wildcard rule kube once let in is let in again.
func IngressUpdate(ing, old object.Object) field.ErrorList {
	oldSpec := fields(old).obj("spec")
	allowBadSecret := false
	for _, tls := range oldSpec.list("tls") {
		if name := tls.str("secretName"); name != "" && len(DNS1123Subdomain(name)) > 0 {
			allowBadSecret = true
		}
	}
	return ingressSpec(fields(ing).obj("spec"), allowBadSecret)
}

// IngressStatus is ValidateIngressStatusUpdate (the metadata aside).
func IngressStatus(ing object.Object) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("status", "loadBalancer")
	for i, in := range fields(ing).obj("status").obj("loadBalancer").list("ingress") {
		ip := p.Child("ingress").Index(i)
		if addr := in.str("ip"); addr != "" {
			errs = append(errs, validIP(addr, ip.Child("ip"))...)
		}
		if host := in.str("hostname"); host != "" {
			addInvalid(&errs, ip.Child("hostname"), host, DNS1123Subdomain(host))
			if isIP(host) {
				add(&errs, field.Invalid(ip.Child("hostname"), host, "must be a DNS name, not an IP address"))
			}
		}
	}
	return errs
}

const ingressClassAnnotation = "kubernetes.io/ingress.class"

// IngressWarnings is the ingress strategy's warning of the deprecated class
// annotation.
func IngressWarnings(ing object.Object) []string {
	_, annotated := object.StringMap(object.Meta(ing), "annotations")[ingressClassAnnotation]
	if annotated && !fields(ing).obj("spec").has("ingressClassName") {
		return []string{fmt.Sprintf("annotation %q is deprecated, please use 'spec.ingressClassName' instead", ingressClassAnnotation)}
	}
	return nil
}

// isIP is ParseIPSloppy's success.
func isIP(s string) bool {
	_, err := netip.ParseAddr(s)
	return err == nil || sloppyIPv4(s)
}

// ingressSpec is ValidateIngressSpec (a wildcard rule's paths always
// checked: kube skips them only for rules an old object already had wrong,
// which kubeplay never stored).
func ingressSpec(spec fields, allowBadSecret bool) field.ErrorList {
	p := field.NewPath("spec")
	var errs field.ErrorList
	rules := spec.list("rules")
	if len(rules) == 0 && !spec.has("defaultBackend") {
		value := rawName("[]networking.IngressRule(nil)")
		if spec["rules"] != nil {
			value = "[]networking.IngressRule{}"
		}
		add(&errs, field.Invalid(p, value, "either `defaultBackend` or `rules` must be specified"))
	}
	if spec.has("defaultBackend") {
		errs = append(errs, ingressBackend(spec.obj("defaultBackend"), p.Child("defaultBackend"))...)
	}
	for i, rule := range rules {
		rp := p.Child("rules").Index(i)
		if host := rule.str("host"); host != "" {
			if isIP(host) {
				add(&errs, field.Invalid(rp.Child("host"), host, "must be a DNS name, not an IP address"))
			}
			if strings.Contains(host, "*") {
				addInvalid(&errs, rp.Child("host"), host, wildcardSubdomain(host))
			} else {
				addInvalid(&errs, rp.Child("host"), host, DNS1123Subdomain(host))
			}
		}
		if http := rule.obj("http"); http != nil {
			hp := rp.Child("http")
			paths := http.list("paths")
			if len(paths) == 0 {
				add(&errs, field.Required(hp.Child("paths"), ""))
			}
			for j, path := range paths {
				errs = append(errs, ingressPath(path, hp.Child("paths").Index(j))...)
			}
		}
	}
	for i, tls := range spec.list("tls") {
		tp := p.Child("tls").Index(i)
		for j, host := range tls.strs("hosts") {
			if strings.Contains(host, "*") {
				addInvalid(&errs, tp.Child("hosts").Index(j), host, wildcardSubdomain(host))
			} else {
				addInvalid(&errs, tp.Child("hosts").Index(j), host, DNS1123Subdomain(host))
			}
		}
		if name := tls.str("secretName"); name != "" && !allowBadSecret {
			addInvalid(&errs, tp.Child("secretName"), name, DNS1123Subdomain(name))
		}
	}
	if class, ok := spec["ingressClassName"].(string); ok {
		addInvalid(&errs, p.Child("ingressClassName"), class, DNS1123Subdomain(class))
	}
	return errs
}

// ingressPath is validateHTTPIngressPath.
func ingressPath(path fields, p *field.Path) field.ErrorList {
	pathType, ok := path["pathType"].(string)
	if !ok {
		return field.ErrorList{field.Required(p.Child("pathType"), "pathType must be specified")}
	}
	var errs field.ErrorList
	value := path.str("path")
	switch pathType {
	case "Exact", "Prefix":
		if !strings.HasPrefix(value, "/") {
			add(&errs, field.Invalid(p.Child("path"), value, "must be an absolute path"))
		}
		for _, seq := range []string{"//", "/./", "/../", "%2f", "%2F"} {
			if strings.Contains(value, seq) {
				add(&errs, field.Invalid(p.Child("path"), value, fmt.Sprintf("must not contain '%s'", seq)))
			}
		}
		for _, suffix := range []string{"/..", "/."} {
			if strings.HasSuffix(value, suffix) {
				add(&errs, field.Invalid(p.Child("path"), value, fmt.Sprintf("cannot end with '%s'", suffix)))
			}
		}
	case "ImplementationSpecific":
		if value != "" && !strings.HasPrefix(value, "/") {
			add(&errs, field.Invalid(p.Child("path"), value, "must be an absolute path"))
		}
	default:
		add(&errs, field.NotSupported(p.Child("pathType"), pathType, []string{"Exact", "ImplementationSpecific", "Prefix"}))
	}
	return append(errs, ingressBackend(path.obj("backend"), p.Child("backend"))...)
}

// ingressBackend is validateIngressBackend: a resource or a service, by
// port name or number.
func ingressBackend(backend fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch resource, service := backend.obj("resource"), backend.obj("service"); {
	case resource != nil && service != nil:
		return field.ErrorList{field.Invalid(p, "", "cannot set both resource and service backends")}
	case resource != nil:
		errs = typedReference(resource, p.Child("resource"))
	case service != nil:
		if name := service.str("name"); name == "" {
			add(&errs, field.Required(p.Child("service").Child("name"), ""))
		} else {
			addInvalid(&errs, p.Child("service").Child("name"), name, DNS1035Label(name))
		}
		port := service.obj("port")
		name, number := port.str("name"), port.num("number")
		switch {
		case name != "" && number != 0:
			add(&errs, field.Invalid(p, "", "cannot set both port name & port number"))
		case name != "":
			addInvalid(&errs, p.Child("service").Child("port").Child("name"), name, PortName(name))
		case number != 0:
			addInvalid(&errs, p.Child("service").Child("port").Child("number"), number, PortNumber(number))
		default:
			add(&errs, field.Required(p, "port name or number is required"))
		}
	default:
		add(&errs, field.Invalid(p, "", "resource or service backend is required"))
	}
	return errs
}

// typedReference is validateIngressTypedLocalObjectReference.
func typedReference(ref fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if group, ok := ref["apiGroup"].(string); ok {
		addInvalid(&errs, p.Child("apiGroup"), group, DNS1123Subdomain(group))
	}
	for _, key := range []string{"kind", "name"} {
		if v := ref.str(key); v == "" {
			add(&errs, field.Required(p.Child(key), key+" is required"))
		} else {
			addInvalid(&errs, p.Child(key), v, PathSegmentName(v))
		}
	}
	return errs
}

// wildcardSubdomain is IsWildcardDNS1123Subdomain.
func wildcardSubdomain(v string) []string {
	var errs []string
	if len(v) > DNS1123SubdomainMaxLength {
		errs = append(errs, maxLen(DNS1123SubdomainMaxLength))
	}
	if rest, ok := strings.CutPrefix(v, "*."); !ok || !matchDNS1123Subdomain(rest) {
		errs = append(errs, regexError("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character", "\\*\\."+dns1123SubdomainFmt, "*.example.com"))
	}
	return errs
}

// IngressClass is ValidateIngressClass's spec checks.
func IngressClass(ic object.Object) field.ErrorList {
	spec := fields(ic).obj("spec")
	p := field.NewPath("spec")
	var errs field.ErrorList
	controller := spec.str("controller")
	if len(controller) > 250 {
		add(&errs, field.TooLong(p.Child("controller"), 250))
	}
	errs = append(errs, domainPrefixedPath(controller, p.Child("controller"))...)
	params := spec.obj("parameters")
	if params == nil {
		return errs
	}
	pp := p.Child("parameters")
	errs = append(errs, typedReference(params, pp)...)
	scope, ok := params["scope"].(string)
	if !ok {
		return append(errs, field.Required(pp.Child("scope"), ""))
	}
	switch scope {
	case "Namespace":
		if ns, ok := params["namespace"].(string); !ok {
			add(&errs, field.Required(pp.Child("namespace"), "`parameters.scope` is set to 'Namespace'"))
		} else {
			addInvalid(&errs, pp.Child("namespace"), ns, DNS1123Label(ns))
		}
	case "Cluster":
		if params.has("namespace") {
			add(&errs, field.Forbidden(pp.Child("namespace"), "`parameters.scope` is set to 'Cluster'"))
		}
	default:
		add(&errs, field.NotSupported(pp.Child("scope"), scope, []string{"Cluster", "Namespace"}))
	}
	return errs
}

// IngressClassUpdate is ValidateIngressClassUpdate's: the controller may
// not change, and the class is checked as a new one.
func IngressClassUpdate(ic, old object.Object) field.ErrorList {
	var errs field.ErrorList
	if c, was := fields(ic).obj("spec").str("controller"), fields(old).obj("spec").str("controller"); c != was {
		add(&errs, field.Invalid(field.NewPath("spec", "controller"), c, "field is immutable"))
	}
	return append(errs, IngressClass(ic)...)
}

// domainPrefixedPath is IsDomainPrefixedPath.
func domainPrefixedPath(v string, p *field.Path) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	host, path, ok := strings.Cut(v, "/")
	if !ok || host == "" || path == "" {
		return field.ErrorList{field.Invalid(p, v, "must be a domain-prefixed path (such as \"acme.io/foo\")")}
	}
	var errs field.ErrorList
	addInvalid(&errs, p, host, DNS1123Subdomain(host))
	if strings.Trim(path, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-._~%!$&'()*+,;=:") != "" {
		add(&errs, field.Invalid(p, path, regexError("Invalid path", `[A-Za-z0-9/\-._~%!$&'()*+,;=:]+`)))
	}
	return errs
}
