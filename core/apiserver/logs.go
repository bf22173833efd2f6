package apiserver

import (
	"fmt"
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
	if s.cfg.PodLogs != nil {
		return s.cfg.PodLogs(w, r, pod, container)
	}
	return s.generatedLog(w, r, t, pod, container)
}

// generatedLog answers for a kubelet when no simulated cluster runs: the lines
// core/podlogs makes, and with follow=true new lines as the sandbox's clock
// reaches them, until the client goes or the Pod does.
func (s *Server) generatedLog(w web.ResponseWriter, r *web.Request, t target, pod object.Object, container string) error {
	o, err := podlogs.ParseOptions(r.URL.Query())
	if err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	if o.Previous {
		return apierrors.NewBadRequest(fmt.Sprintf("previous terminated container %q in pod %q not found", container, t.name))
	}
	status, _ := pod["status"].(map[string]any)
	for _, cs := range object.Objects(status, "containerStatuses") {
		if reason, ok := object.Path(cs, "state", "waiting", "reason").(string); ok && cs["name"] == container {
			return apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: %s", container, t.name, reason))
		}
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(web.StatusOK)
	written := int64(0)
	send := func(n int64) bool {
		line := podlogs.Line(pod, container, n, o.Timestamps)
		if o.LimitBytes >= 0 && written+int64(len(line)) > o.LimitBytes {
			line = line[:max(o.LimitBytes-written, 0)]
		}
		written += int64(len(line))
		_, err := w.Write([]byte(line))
		return err == nil && line != "" && (o.LimitBytes < 0 || written < o.LimitBytes)
	}
	first, end := o.Range(pod, s.cfg.Clock.Now())
	for n := first; n < end; n++ {
		if !send(n) {
			return nil
		}
	}
	if !o.Follow {
		return nil
	}
	uid := object.MetaString(pod, "uid")
	for n := end; ; n++ {
		if web.Flush(w) != nil {
			return nil
		}
		timer := s.cfg.Clock.NewTimer(podlogs.Due(pod, n).Sub(s.cfg.Clock.Now()))
		select {
		case <-r.Context().Done():
			timer.Stop()
			return nil
		case <-timer.C():
		}
		if cur, ok := s.store.Current(t.res, t.namespace, t.name); !ok || !podStill(cur, uid) || !send(n) {
			return nil
		}
	}
}

// podStill says whether the stored pod is still the one with uid.
func podStill(stored []byte, uid string) bool {
	obj, err := object.Decode(stored)
	return err == nil && object.MetaString(obj, "uid") == uid
}
