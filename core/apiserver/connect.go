package apiserver

import (
	"fmt"
	"strings"

	"kubeplay/core/apierrors"
	"kubeplay/core/registry"
	"kubeplay/core/web"
)

// connectSubresources are kube's connect subresources: a Pod's exec,
// attach and portforward (streams upgraded to SPDY or WebSocket, which
// kube-apiserver relays to the node's kubelet) and the proxy of Pods,
// Services and Nodes (HTTP passed on to their address).
var connectSubresources = map[string]bool{"exec": true, "attach": true, "portforward": true, "proxy": true}

// connect answers a connect subresource as kube-apiserver does up to the
// moment it dials (registry.Store's StreamLocation and ProxyLocation: the
// object, the container, the node, the address, with kube's refusals), then
// as a real cluster answers when nothing answers there, naming why: the
// simulated cluster's kubelets run no process and its Pods listen on no
// port. A stream that does not ask to be upgraded is refused first, as
// kube's upgrade-aware proxy refuses it.
func (s *Server) connect(w web.ResponseWriter, r *web.Request, t target) {
	q := r.URL.Query()
	var loc registry.Location
	var err error
	switch t.sub {
	case "exec", "attach":
		loc, err = s.store.StreamLocation(t.namespace, t.name, q.Get("container"), true)
	case "portforward":
		loc, err = s.store.StreamLocation(t.namespace, t.name, "", false)
	default:
		loc, err = s.store.ProxyLocation(t.res, t.namespace, t.name)
	}
	if err != nil {
		writeEarlyStatus(w, r, apierrors.As(err))
		return
	}
	upgrade := isUpgrade(r)
	if t.sub != "proxy" && !upgrade {
		writeEarlyStatus(w, r, apierrors.NewBadRequest("Upgrade request required"))
		return
	}
	why := unreachable(loc, t.sub)
	if upgrade {
		// kube's upgrade-aware proxy, failing to dial: a Status of an
		// error that is no API error (code 500, no reason).
		writeEarlyStatus(w, r, apierrors.New(web.StatusInternalServerError, "", fmt.Sprintf("error dialing backend: dial tcp %s: %s", loc.Host, why), nil))
		return
	}
	writeEarlyStatus(w, r, apierrors.NewServiceUnavailable(fmt.Sprintf("error trying to reach service: dial tcp %s: %s", loc.Host, why)))
}

// unreachable says why nothing answers at loc in kubeplay, where kube's
// dial would have said "connect: connection refused".
func unreachable(loc registry.Location, sub string) string {
	switch {
	case loc.Node != "" && sub == "proxy":
		return fmt.Sprintf("kubeplay simulates node %q: no kubelet listens there", loc.Node)
	case loc.Node != "":
		return fmt.Sprintf("kubeplay simulates node %q: its containers run no process to %s (kubectl logs shows the simulated logs)", loc.Node, streamVerb[sub])
	case loc.Pod != "":
		return fmt.Sprintf("kubeplay simulates Pod %q: nothing listens in it", loc.Pod)
	}
	return "kubeplay simulates this node: nothing listens there"
}

var streamVerb = map[string]string{"exec": "run a command in", "attach": "attach to", "portforward": "forward a port to"}

// isUpgrade is kube's httpstream.IsUpgradeRequest: the Connection header
// names "upgrade".
func isUpgrade(r *web.Request) bool {
	for _, v := range r.Header.Values("Connection") {
		for _, token := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(token), "upgrade") {
				return true
			}
		}
	}
	return false
}
