// Package podlogs owns the logs the sandbox answers for a Pod's containers
// (the log subresource; kube-apiserver proxies it to the node's kubelet): a
// container on a node writes one line every Interval from its start, each
// line made from the pod, the container and its number, so that the same
// request always gets the same lines. Options are kube's PodLogOptions:
// container, follow, previous, timestamps, sinceSeconds, tailLines,
// limitBytes.
package podlogs

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/web"
)

// Kubelet is a node's kubelet answering for a container's log, as
// kube-apiserver passes the log subresource of Pods on to it (the query:
// previous, tailLines, timestamps, follow): the simulated cluster's. The Pod
// is on a node that exists, its container is one of its own.
type Kubelet func(w web.ResponseWriter, r *web.Request, pod object.Object, container string) error

// Interval is how often a container logs a line.
const Interval = 5 * time.Second

// Options are a log request's PodLogOptions.
type Options struct {
	Container  string
	Follow     bool
	Previous   bool
	Timestamps bool
	// SinceSeconds, TailLines and LimitBytes are -1 when not given.
	SinceSeconds, TailLines, LimitBytes int64
}

// ParseOptions reads a log request's query as kube's parameter codec does.
func ParseOptions(q url.Values) (o Options, err error) {
	o.Container = q.Get("container")
	flags := [...]*bool{&o.Follow, &o.Previous, &o.Timestamps}
	for i, name := range [...]string{"follow", "previous", "timestamps"} {
		if v := q.Get(name); v != "" && err == nil {
			*flags[i], err = strconv.ParseBool(v)
		}
	}
	numbers := [...]*int64{&o.SinceSeconds, &o.TailLines, &o.LimitBytes}
	for i, name := range [...]string{"sinceSeconds", "tailLines", "limitBytes"} {
		*numbers[i] = -1
		if v := q.Get(name); v != "" && err == nil {
			*numbers[i], err = strconv.ParseInt(v, 10, 64)
		}
	}
	return o, err
}

// Container is the container a request reads, as kube's validateContainer
// picks it: the one named, or the Pod's only one; else a message for kube's
// 400.
func Container(pod object.Object, named string) (string, string) {
	spec, _ := pod["spec"].(map[string]any)
	var names []string
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for _, c := range object.Objects(spec, list) {
			n, _ := c["name"].(string)
			names = append(names, n)
		}
	}
	podName := object.MetaString(pod, "name")
	containers := object.Objects(spec, "containers")
	switch {
	case named != "":
		for _, n := range names {
			if n == named {
				return named, ""
			}
		}
		return "", fmt.Sprintf("container %s is not valid for pod %s", named, podName)
	case len(containers) == 1:
		n, _ := containers[0]["name"].(string)
		return n, ""
	case len(containers) == 0:
		return "", "a container name must be specified for pod " + podName
	}
	return "", fmt.Sprintf("a container name must be specified for pod %s, choose one of: %v", podName, names)
}

// Start is when the Pod's containers started: its status.startTime, else its
// creation.
func Start(pod object.Object) time.Time {
	for _, ts := range []any{object.Path(pod, "status", "startTime"), object.Meta(pod)["creationTimestamp"]} {
		if s, ok := ts.(string); ok {
			if t, err := time.Parse(time.RFC3339, s); err == nil {
				return t
			}
		}
	}
	return time.Time{}
}

// Line is the n-th line (from 0) a container of pod logs, at its time; with
// timestamps, that time comes first, as the kubelet writes it.
func Line(pod object.Object, container string, n int64, timestamps bool) string {
	at := Start(pod).Add(time.Duration(n) * Interval).UTC()
	line := fmt.Sprintf("%s %s[%d]: GET /healthz 200 (%s/%s, request %d)\n", at.Format("2006/01/02 15:04:05"), container, 1,
		object.MetaString(pod, "namespace"), object.MetaString(pod, "name"), n+1)
	if n == 0 {
		line = fmt.Sprintf("%s %s[1]: started, listening on :8080\n", at.Format("2006/01/02 15:04:05"), container)
	}
	if timestamps {
		line = at.Format("2006-01-02T15:04:05.000000000Z") + " " + line
	}
	return line
}

// Range is which lines a request gets up to now: from first to before end.
func (o Options) Range(pod object.Object, now time.Time) (first, end int64) {
	start := Start(pod)
	if now.Before(start) {
		return 0, 0
	}
	end = int64(now.Sub(start)/Interval) + 1
	if o.SinceSeconds >= 0 {
		since := now.Add(-time.Duration(o.SinceSeconds) * time.Second)
		if since.After(start) {
			first = int64((since.Sub(start) + Interval - 1) / Interval)
		}
	}
	if o.TailLines >= 0 && end-o.TailLines > first {
		first = end - o.TailLines
	}
	return min(first, end), end
}

// Due is when line n is written.
func Due(pod object.Object, n int64) time.Time { return Start(pod).Add(time.Duration(n) * Interval) }
