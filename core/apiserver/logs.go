package apiserver

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/web"
)

// PodLogs gives a container's log as its node's kubelet would (the
// simulated cluster's): a *apierrors.Status refuses, as a kubelet refuses a
// container that has not started.
type PodLogs func(pod object.Object, container string, previous bool) (string, error)

// podLog is the log subresource of Pods (GET .../pods/NAME/log), as
// kube-apiserver answers it before it asks the node's kubelet: the container
// (named, or the only one), an empty answer for a Pod on no node, the node
// looked up; then the kubelet's (Config.PodLogs) text, its last tailLines
// lines, with timestamps if asked. With follow=true the answer stays open
// until the client leaves, as for a container that writes nothing more.
func (s *Server) podLog(w web.ResponseWriter, r *web.Request, t target) error {
	q := r.URL.Query()
	tail := int64(-1)
	if v := q.Get("tailLines"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return apierrors.NewBadRequest(err.Error())
		}
		if n < 0 {
			return apierrors.NewInvalid("", "PodLogOptions", t.name, field.ErrorList{field.Invalid(field.NewPath("tailLines"), n, "must be greater than or equal to 0")})
		}
		tail = n
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
	text, err := s.cfg.PodLogs(pod, container, q.Get("previous") == "true")
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if tail >= 0 && int(tail) < len(lines) {
		lines = lines[len(lines)-int(tail):]
	}
	if q.Get("timestamps") == "true" {
		at := object.String(object.Path(pod, "status", "startTime"))
		for i, l := range lines {
			lines[i] = at + " " + l
		}
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(web.StatusOK)
	_, _ = w.Write([]byte(strings.Join(lines, "")))
	if q.Get("follow") == "true" {
		if f, ok := w.(web.Flusher); ok {
			f.Flush()
		}
		t := s.cfg.Clock.NewTimer(time.Hour) // a watch's life at most
		defer t.Stop()
		select {
		case <-r.Context().Done():
		case <-t.C():
		}
	}
	return nil
}

