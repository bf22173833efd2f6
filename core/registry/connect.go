package registry

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/object"
	"kubeplay/core/podlogs"
)

// Where kube-apiserver would connect the connect subresources (a Pod's exec,
// attach, portforward and proxy, a Service's and a Node's proxy), found as
// kube's registry finds it before anything is dialled: the Pod, its
// container, its node and that node's kubelet address; a Pod's IP and port;
// a Service's endpoint. kube then dials the address; kubeplay's simulated
// nodes and Pods run no process to dial, which the HTTP surface says.

// Location is the address kube-apiserver would dial for a connect request.
type Location struct {
	// Host is HOST:PORT (or a bare host: a Pod proxied without a port).
	Host string
	// Node is the node whose kubelet Host is, for a request the kubelet
	// serves (exec, attach, portforward, a node's proxy at the kubelet's
	// port); "" when Host is a Pod's (or a node's other port).
	Node string
	// Pod is the Pod whose address Host is, as NAMESPACE/NAME, for a
	// Pod's or a Service's proxy.
	Pod string
}

// kubeletPort is kube-apiserver's --kubelet-port: a node's kubelet when its
// status names none.
const kubeletPort = 10250

// preferredAddressTypes are kube-apiserver's --kubelet-preferred-address-types.
var preferredAddressTypes = []string{"Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"}

// StreamLocation is where kube's exec and attach (container is the asked
// one, checked as kube checks it, withContainer true) and portforward
// (withContainer false) go: the kubelet of the Pod's node.
func (s *Store) StreamLocation(namespace, name, container string, withContainer bool) (Location, error) {
	pod, err := s.currentObject("", "pods", namespace, name)
	if err != nil {
		return Location{}, err
	}
	if withContainer {
		if _, refused := podlogs.Container(pod, container); refused != "" {
			return Location{}, apierrors.NewBadRequest(refused)
		}
	}
	node, _ := object.Path(pod, "spec", "nodeName").(string)
	if node == "" {
		return Location{}, apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", name))
	}
	host, port, err := s.kubelet(node)
	if st, ok := err.(*apierrors.Status); ok && st.Code == 404 {
		return Location{}, apierrors.NewNotFound("", "pods", node) // kube's own words for a node it cannot find
	}
	if err != nil {
		return Location{}, err
	}
	return Location{Host: net.JoinHostPort(host, strconv.Itoa(port)), Node: node}, nil
}

// kubelet is the address and port of node's kubelet, as kube's
// NodeConnectionInfoGetter finds them.
func (s *Store) kubelet(name string) (string, int, error) {
	node, err := s.currentObject("", "nodes", "", name)
	if err != nil {
		return "", 0, err
	}
	status, _ := node["status"].(map[string]any)
	addresses := object.Objects(status, "addresses")
	host := ""
	for _, t := range preferredAddressTypes {
		for _, a := range addresses {
			if a["type"] == t && host == "" {
				host, _ = a["address"].(string)
			}
		}
	}
	if host == "" {
		known := make([]string, len(addresses))
		for i, a := range addresses {
			known[i] = fmt.Sprintf("{%v %v}", a["type"], a["address"])
		}
		return "", 0, apierrors.New(500, "", "no preferred addresses found; known addresses: ["+strings.Join(known, " ")+"]", nil)
	}
	port := kubeletPort
	if p := object.Int(object.Path(status, "daemonEndpoints", "kubeletEndpoint", "Port")); p > 0 {
		port = int(p)
	}
	return host, port, nil
}

// ProxyLocation is where kube's proxy subresource of res (pods, services,
// nodes) sends a request for id ("NAME", "NAME:PORT" or "SCHEME:NAME:PORT"):
// a Pod's IP (at the port asked, else its first container port), one of a
// Service's endpoints that is a Pod's, a node's kubelet or another port of
// its address.
func (s *Store) ProxyLocation(res *api.Resource, namespace, id string) (Location, error) {
	_, name, port, ok := splitSchemeNamePort(id)
	if !ok {
		return Location{}, apierrors.NewBadRequest(fmt.Sprintf("invalid %s request %q", res.Singular, id))
	}
	switch res.Plural {
	case "pods":
		return s.podProxy(namespace, name, port)
	case "services":
		return s.serviceProxy(namespace, name, port, id)
	}
	host, kport, err := s.kubelet(name)
	if err != nil {
		return Location{}, err
	}
	if !proxyable(host) {
		return Location{}, apierrors.NewBadRequest("address not allowed")
	}
	if port == "" || port == strconv.Itoa(kport) {
		return Location{Host: net.JoinHostPort(host, strconv.Itoa(kport)), Node: name}, nil
	}
	return Location{Host: net.JoinHostPort(host, port)}, nil
}

func (s *Store) podProxy(namespace, name, port string) (Location, error) {
	pod, err := s.currentObject("", "pods", namespace, name)
	if err != nil {
		return Location{}, err
	}
	spec, _ := pod["spec"].(map[string]any)
	for _, c := range object.Objects(spec, "containers") {
		if ports := object.Objects(c, "ports"); port == "" && len(ports) > 0 {
			port = fmt.Sprint(ports[0]["containerPort"])
		}
	}
	ip, _ := object.Path(pod, "status", "podIP").(string)
	if !proxyable(ip) {
		return Location{}, apierrors.NewBadRequest("address not allowed")
	}
	loc := Location{Host: ip, Pod: namespace + "/" + name}
	if port != "" {
		loc.Host = net.JoinHostPort(ip, port)
	} else if strings.Contains(ip, ":") {
		loc.Host = "[" + ip + "]"
	}
	return loc, nil
}

// serviceProxy is kube's service ResourceLocation: a port number names the
// Service's port of that number; the endpoints' port of that name on an
// address that is a Pod's IP is the one.
func (s *Store) serviceProxy(namespace, name, port, id string) (Location, error) {
	if n, err := strconv.ParseInt(port, 10, 64); err == nil {
		svc, err := s.currentObject("", "services", namespace, name)
		if err != nil {
			return Location{}, err
		}
		spec, _ := svc["spec"].(map[string]any)
		found := false
		for _, p := range object.Objects(spec, "ports") {
			if object.Int(p["port"]) == n && !found {
				port, _ = p["name"].(string)
				found = true
			}
		}
		if !found {
			return Location{}, apierrors.NewServiceUnavailable(fmt.Sprintf("no service port %d found for service %q", n, name))
		}
	}
	eps, err := s.currentObject("", "endpoints", namespace, name)
	if err != nil {
		if st, ok := err.(*apierrors.Status); ok && st.Code == 404 {
			return Location{}, apierrors.NewNotFound("", "services", name)
		}
		return Location{}, err
	}
	subsets := object.Objects(eps, "subsets")
	if len(subsets) == 0 {
		return Location{}, apierrors.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", name))
	}
	for _, ss := range subsets {
		for _, p := range object.Objects(ss, "ports") {
			if pn, _ := p["name"].(string); pn != port {
				continue
			}
			for _, a := range object.Objects(ss, "addresses") {
				if pod, ok := s.endpointPod(namespace, a); ok {
					ip, _ := a["ip"].(string)
					return Location{Host: net.JoinHostPort(ip, fmt.Sprint(p["port"])), Pod: pod}, nil
				}
			}
		}
	}
	return Location{}, apierrors.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", id))
}

// endpointPod is the Pod (NAMESPACE/NAME) an endpoint address is, when it
// names a Pod of namespace that has its IP: kube proxies to no other.
func (s *Store) endpointPod(namespace string, address map[string]any) (string, bool) {
	ref, _ := address["targetRef"].(map[string]any)
	if ref == nil || ref["namespace"] != namespace {
		return "", false
	}
	name, _ := ref["name"].(string)
	pod, err := s.currentObject("", "pods", namespace, name)
	if err != nil {
		return "", false
	}
	status, _ := pod["status"].(map[string]any)
	for _, ip := range object.Objects(status, "podIPs") {
		if ip["ip"] == address["ip"] {
			return namespace + "/" + name, true
		}
	}
	return "", false
}

// proxyable is kube's check of an address it would proxy to: a global
// unicast IP (a host name is taken as it is).
func proxyable(host string) bool {
	if host == "" {
		return false
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return true
	}
	return ip.IsGlobalUnicast()
}

// splitSchemeNamePort splits kube's "NAME", "NAME:PORT" or
// "SCHEME:NAME:PORT" (the scheme http or https), as its
// utilnet.SplitSchemeNamePort does.
func splitSchemeNamePort(id string) (scheme, name, port string, ok bool) {
	parts := strings.Split(id, ":")
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		name, port = parts[0], parts[1]
	case 3:
		scheme, name, port = parts[0], parts[1], parts[2]
	default:
		return "", "", "", false
	}
	if name == "" || (scheme != "" && scheme != "http" && scheme != "https") {
		return "", "", "", false
	}
	return scheme, name, port, true
}

// Dial is the answer to a connect request for sub (exec, attach,
// portforward, proxy) at l, upgrade saying whether it asks to be upgraded: a
// stream that does not is refused as kube's upgrade-aware proxy refuses it;
// otherwise kube would dial l's address, and the answer is what a cluster
// answers when nothing answers there (an upgrade: 500, no reason, "error
// dialing backend"; a proxied request: 503 "error trying to reach
// service"), naming why nothing answers in kubeplay.
func (l Location) Dial(sub string, upgrade bool) *apierrors.Status {
	if sub != "proxy" && !upgrade {
		return apierrors.NewBadRequest("Upgrade request required")
	}
	why := unreachable(l, sub)
	if upgrade {
		return apierrors.New(500, "", fmt.Sprintf("error dialing backend: dial tcp %s: %s", l.Host, why), nil)
	}
	return apierrors.NewServiceUnavailable(fmt.Sprintf("error trying to reach service: dial tcp %s: %s", l.Host, why))
}

// unreachable says why nothing answers at loc in kubeplay, where kube's
// dial would have said "connect: connection refused".
func unreachable(loc Location, sub string) string {
	switch {
	case loc.Node != "" && sub == "proxy":
		return fmt.Sprintf("kubeplay simulates node %q: no kubelet listens there", loc.Node)
	case loc.Node != "":
		return fmt.Sprintf("kubeplay simulates node %q: a kubeplay sandbox runs no containers, so there is nothing to %s; read the simulated output with kubectl logs and the Pod's state in its status (kubectl describe pod)", loc.Node, streamVerb[sub])
	case loc.Pod != "":
		return fmt.Sprintf("kubeplay simulates Pod %q: nothing listens in it", loc.Pod)
	}
	return "kubeplay simulates this node: nothing listens there"
}

// streamVerb is what a stream subresource would have done in a container.
var streamVerb = map[string]string{"exec": "exec into", "attach": "attach to", "portforward": "forward a port to"}
