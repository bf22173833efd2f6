package apiserver

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/web"
)

// PodLogs is a node's kubelet answering for a container's log, as
// kube-apiserver passes the log subresource of Pods on to it (the query:
// previous, tailLines, timestamps, follow): the simulated cluster's. The Pod
// is on a node that exists, its container is one of its own.
type PodLogs func(w web.ResponseWriter, r *web.Request, pod object.Object, container string) error

// podLog is the log subresource of Pods (GET .../pods/NAME/log), as
// kube-apiserver answers it before it asks the node's kubelet: tailLines
// checked, the container (named, or the only one), an empty answer for a Pod
// on no node, the node looked up; then the kubelet's (Config.PodLogs).
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
	val, ok := s.store.Get(registry.Key(t.res, t.namespace, t.name))
	if !ok {
		return apierrors.NewNotFound("", "pods", t.name)
	}
	pod, err := object.Decode(val)
	if err != nil {
		return apierrors.NewInternal(err)
	}
	spec, _ := pod["spec"].(map[string]any)
	var names []string
	for _, c := range object.Objects(spec, "containers") {
		names = append(names, object.String(c["name"]))
	}
	container := q.Get("container")
	switch {
	case container == "" && len(names) == 1:
		container = names[0]
	case container == "":
		return apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: [%s]", t.name, strings.Join(names, " ")))
	case !slices.Contains(names, container):
		return apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, t.name))
	}
	node, _ := spec["nodeName"].(string)
	if node == "" || s.cfg.PodLogs == nil {
		w.WriteHeader(web.StatusNoContent)
		return nil
	}
	if _, ok := s.store.Get(registry.Key(s.registry.Lookup("", "v1", "nodes"), "", node)); !ok {
		return apierrors.NewNotFound("", "pods", node) // kube's own words for a node it cannot find
	}
	return s.cfg.PodLogs(w, r, pod, container)
}
