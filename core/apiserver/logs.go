package apiserver

import (
	"strconv"

	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/podlogs"
	"kubeplay/core/web"
)

// podLog is the log subresource of Pods (GET .../pods/NAME/log), as
// kube-apiserver answers it before it asks the node's kubelet: tailLines
// checked, the container (named, or the only one), an empty answer for a Pod
// on no node, the node looked up; then the kubelet's (Config.PodLogs), or
// without a simulated cluster the lines core/podlogs makes.
func (s *Server) podLog(w web.ResponseWriter, r *web.Request, t target) error {
	q := r.URL.Query()
	if v := q.Get("tailLines"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return apierrors.NewBadRequest(err.Error())
		}
		if n < 0 {
			return apierrors.NewInvalid("", "PodLogOptions", t.name, field.ErrorList{field.Invalid(field.NewPath("tailLines"), n, "must be greater than or equal to 0")})
		}
	}
	val, ok := s.store.Current(t.res, t.namespace, t.name)
	if !ok {
		return apierrors.NewNotFound("", "pods", t.name)
	}
	pod, err := object.Decode(val)
	if err != nil {
		return apierrors.NewInternal(err)
	}
	container, refused := podlogs.Container(pod, q.Get("container"))
	if refused != "" {
		return apierrors.NewBadRequest(refused)
	}
	node, _ := object.Path(pod, "spec", "nodeName").(string)
	if node == "" {
		w.WriteHeader(web.StatusNoContent)
		return nil
	}
	if nodes := s.kinds.Lookup("", "v1", "nodes"); nodes != nil {
		if _, ok := s.store.Current(nodes, "", node); !ok {
			return apierrors.NewNotFound("", "pods", node) // kube's own words for a node it cannot find
		}
	}
	return s.cfg.PodLogs(w, r, pod, container)
}

// currentPod is the Pod stored under pod's name now, nil when there is none
// (or it cannot be read).
func (s *Server) currentPod(pod object.Object) object.Object {
	stored, ok := s.store.Current(s.kinds.Lookup("", "v1", "pods"), object.MetaString(pod, "namespace"), object.MetaString(pod, "name"))
	if !ok {
		return nil
	}
	cur, _ := object.Decode(stored)
	return cur
}
