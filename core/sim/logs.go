package sim

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/podlogs"
	"kubeplay/core/web"
)

// Logs is the simulated kubelets' log endpoint (podlogs.Kubelet): no
// container runs, so the log is made from what the container is: the lines an
// `echo`, `printf` or `print` in its command writes; nginx's start-up lines
// for an nginx image; an error for an image that crashes by convention
// (busybox:crash); else a line saying the container started. As a kubelet it
// refuses a container that has not started, keeps the last tailLines lines,
// stamps each with the container's start (timestamps=true, kubelet's
// RFC3339NanoFixed), and with follow=true holds the answer open, as for a
// container that writes nothing more, until the client leaves (an hour on
// clk at most, a watch's life).
func Logs(clk clock.Clock) podlogs.Kubelet {
	if clk == nil {
		clk = clock.Real
	}
	return func(w web.ResponseWriter, r *web.Request, pod object.Object, container string) error {
		lines, err := logLines(pod, container, r.URL.Query())
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(web.StatusOK)
		_, _ = w.Write([]byte(strings.Join(lines, "")))
		if r.URL.Query().Get("follow") != "true" {
			return nil
		}
		if f, ok := w.(web.Flusher); ok {
			f.Flush()
		}
		t := clk.NewTimer(time.Hour)
		defer t.Stop()
		select {
		case <-r.Context().Done():
		case <-t.C():
		}
		return nil
	}
}

// logLines are the lines of container's log the query asks for.
func logLines(pod object.Object, container string, q url.Values) ([]string, error) {
	b, _ := object.Encode(pod)
	p, err := controllers.Read[controllers.Pod](b)
	if err != nil {
		return nil, apierrors.NewInternal(err)
	}
	// The kubelet serves every container of the Pod: init, regular and
	// ephemeral (kubectl debug -it reads its container's log when it cannot
	// attach).
	var c *controllers.Container
	for _, list := range [][]controllers.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range list {
			if list[i].Name == container {
				c = &list[i]
			}
		}
	}
	for i := range p.Spec.EphemeralContainers {
		if p.Spec.EphemeralContainers[i].Name == container {
			c = &p.Spec.EphemeralContainers[i].Container
		}
	}
	previous := q.Get("previous") == "true"
	var state *controllers.ContainerState
	for _, statuses := range [][]controllers.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses, p.Status.EphemeralContainerStatuses} {
		for i := range statuses {
			if cs := &statuses[i]; cs.Name == container {
				state = &cs.State
				if previous {
					state = &cs.LastState
				}
			}
		}
	}
	switch {
	case c == nil:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, p.Metadata.Name))
	case previous && (state == nil || state.Terminated == nil):
		return nil, apierrors.NewBadRequest(fmt.Sprintf("previous terminated container %q in pod %q not found", container, p.Metadata.Name))
	case state == nil || state.Waiting != nil && state.Terminated == nil && state.Running == nil:
		reason := "ContainerCreating"
		if state != nil && state.Waiting.Reason != "" {
			reason = state.Waiting.Reason
		}
		return nil, apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: %s", container, p.Metadata.Name, reason))
	}
	started := ""
	if state.Running != nil {
		started = state.Running.StartedAt
	} else if state.Terminated != nil {
		started = state.Terminated.StartedAt
	}
	at, _ := time.Parse(time.RFC3339, started)
	lines := strings.SplitAfter(containerLog(c, at), "\n")
	lines = lines[:len(lines)-1] // after the last line's end
	if tail, err := strconv.Atoi(q.Get("tailLines")); err == nil && tail < len(lines) {
		lines = lines[len(lines)-tail:]
	}
	if q.Get("timestamps") == "true" {
		stamp := at.UTC().Format("2006-01-02T15:04:05.000000000Z07:00") + " "
		for i, l := range lines {
			lines[i] = stamp + l
		}
	}
	return lines, nil
}

// containerLog is the simulated output of c, started at t: whole lines.
func containerLog(c *controllers.Container, t time.Time) string {
	if strings.HasSuffix(c.Image, ":crash") {
		return "Error: the container exited with status 1 (kubeplay: an image tagged crash always does)\n"
	}
	words := append(append([]string(nil), c.Command...), c.Args...)
	var out strings.Builder
	for i, w := range words {
		for _, part := range strings.Split(w, ";") {
			fields := strings.Fields(part)
			if len(fields) > 1 && (fields[0] == "echo" || fields[0] == "printf" || fields[0] == "print") {
				out.WriteString(strings.Trim(strings.Join(fields[1:], " "), `"'`) + "\n")
			}
		}
		if (w == "echo" || w == "print") && i+1 < len(words) {
			out.WriteString(strings.Trim(words[i+1], `"'`) + "\n")
		}
	}
	if out.Len() > 0 {
		return out.String()
	}
	if image := normalizeImage(c.Image); strings.HasPrefix(image, "docker.io/library/nginx:") {
		stamp := t.UTC().Format("2006/01/02 15:04:05")
		return "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration\n" +
			"/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/\n" +
			"/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh\n" +
			"10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf\n" +
			"10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf\n" +
			"/docker-entrypoint.sh: Configuration complete; ready for start up\n" +
			stamp + " [notice] 1#1: using the \"epoll\" event method\n" +
			stamp + " [notice] 1#1: nginx/1.27.3\n" +
			stamp + " [notice] 1#1: start worker processes\n" +
			stamp + " [notice] 1#1: start worker process 29\n"
	}
	return fmt.Sprintf("%s container %s started from image %s (kubeplay simulates it: no process runs)\n", t.UTC().Format(time.RFC3339), c.Name, c.Image)
}
