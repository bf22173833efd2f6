package sim

import (
	"fmt"
	"strings"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
)

// Logs is what the simulated kubelets answer for a container's log (the
// log subresource of Pods): no container runs, so the log is made from what
// the container is: the lines an `echo`, `printf` or `print` in its command
// writes; nginx's start-up lines for an nginx image; an error for an image
// that crashes by convention (busybox:crash); else a line saying the
// container started. A container that has not started is refused as a kubelet
// refuses it.
func Logs(pod object.Object, container string, previous bool) (string, error) {
	b, _ := object.Encode(pod)
	p, err := controllers.Read[controllers.Pod](b)
	if err != nil {
		return "", apierrors.NewInternal(err)
	}
	var c *controllers.Container
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == container {
			c = &p.Spec.Containers[i]
		}
	}
	var state *controllers.ContainerState
	for i := range p.Status.ContainerStatuses {
		if cs := &p.Status.ContainerStatuses[i]; cs.Name == container {
			state = &cs.State
			if previous {
				state = &cs.LastState
			}
		}
	}
	switch {
	case c == nil:
		return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, p.Metadata.Name))
	case previous && (state == nil || state.Terminated == nil):
		return "", apierrors.NewBadRequest(fmt.Sprintf("previous terminated container %q in pod %q not found", container, p.Metadata.Name))
	case state == nil || state.Waiting != nil && state.Terminated == nil && state.Running == nil:
		reason := "ContainerCreating"
		if state != nil && state.Waiting.Reason != "" {
			reason = state.Waiting.Reason
		}
		return "", apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: %s", container, p.Metadata.Name, reason))
	}
	started := ""
	if state.Running != nil {
		started = state.Running.StartedAt
	} else if state.Terminated != nil {
		started = state.Terminated.StartedAt
	}
	return containerLog(c, started), nil
}

// containerLog is the simulated output of c, started at startedAt.
func containerLog(c *controllers.Container, startedAt string) string {
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
	t, _ := time.Parse(time.RFC3339, startedAt)
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
