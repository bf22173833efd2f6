package podlogs

import (
	"fmt"

	"kubeplay/core/apierrors"
	"kubeplay/core/clock"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// Generated is the kubelet of a sandbox without a simulated cluster: it
// answers with the lines this package makes, and with follow=true new lines
// as clk reaches them, until the client goes or the Pod does (current is the
// Pod stored under pod's name now, nil when there is none).
func Generated(clk clock.Clock, current func(pod object.Object) object.Object) Kubelet {
	return func(w web.ResponseWriter, r *web.Request, pod object.Object, container string) error {
		name := object.MetaString(pod, "name")
		o, err := ParseOptions(r.URL.Query())
		if err != nil {
			return apierrors.NewBadRequest(err.Error())
		}
		if o.Previous {
			return apierrors.NewBadRequest(fmt.Sprintf("previous terminated container %q in pod %q not found", container, name))
		}
		status, _ := pod["status"].(map[string]any)
		for _, cs := range object.Objects(status, "containerStatuses") {
			if reason, ok := object.Path(cs, "state", "waiting", "reason").(string); ok && cs["name"] == container {
				return apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: %s", container, name, reason))
			}
		}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(web.StatusOK)
		written := int64(0)
		send := func(n int64) bool {
			line := Line(pod, container, n, o.Timestamps)
			if o.LimitBytes >= 0 && written+int64(len(line)) > o.LimitBytes {
				line = line[:max(o.LimitBytes-written, 0)]
			}
			written += int64(len(line))
			_, err := w.Write([]byte(line))
			return err == nil && line != "" && (o.LimitBytes < 0 || written < o.LimitBytes)
		}
		first, end := o.Range(pod, clk.Now())
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
			timer := clk.NewTimer(Due(pod, n).Sub(clk.Now()))
			select {
			case <-r.Context().Done():
				timer.Stop()
				return nil
			case <-timer.C():
			}
			if cur := current(pod); cur == nil || object.MetaString(cur, "uid") != uid || !send(n) {
				return nil
			}
		}
	}
}
