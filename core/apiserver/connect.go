package apiserver

import (
	"kubeplay/core/apierrors"
	"kubeplay/core/registry"
	"kubeplay/core/web"
)

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
	writeEarlyStatus(w, r, loc.Dial(t.sub, web.IsUpgrade(r)))
}
