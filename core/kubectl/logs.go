package kubectl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
)

// This file owns `kubectl logs`: a pod's or a workload's first pod's
// (TYPE/NAME: kubectl's choice and its "Found N pods" line), -l's pods, one
// container, the default one or all of them, with the log options as
// kubectl sends them (-f, --tail, --since, --since-time, --timestamps,
// --previous, --limit-bytes) and --prefix's "[pod/NAME/CONTAINER] ".

// acceptLogs is what kubectl's builder and its log requests accept.
const acceptLogs = acceptTypedAny

type logsOptions struct {
	follow, timestamps, previous, allContainers, prefix, ignoreErrors, allPods bool
	tail, limitBytes                                                           int64
	container, selector, sinceTime                                             string
	since                                                                      time.Duration
	maxRequests                                                                int
}

func init() {
	register("logs", func(fs *pflag.FlagSet) runFunc {
		o := &logsOptions{}
		fs.BoolVar(&o.allPods, "all-pods", false, "Get logs from all pod(s). Sets prefix to true.")
		fs.BoolVar(&o.allContainers, "all-containers", false, "Get all containers' logs in the pod(s).")
		fs.BoolVarP(&o.follow, "follow", "f", false, "Specify if the logs should be streamed.")
		fs.BoolVar(&o.timestamps, "timestamps", false, "Include timestamps on each line in the log output")
		fs.Int64Var(&o.limitBytes, "limit-bytes", 0, "Maximum bytes of logs to return. Defaults to no limit.")
		fs.BoolVarP(&o.previous, "previous", "p", false, "If true, print the logs for the previous instance of the container in a pod if it exists.")
		fs.Int64Var(&o.tail, "tail", -1, "Lines of recent log file to display.")
		fs.BoolVar(&o.ignoreErrors, "ignore-errors", false, "If watching / following pod logs, allow for any errors that occur to be non-fatal")
		fs.StringVar(&o.sinceTime, "since-time", "", "Only return logs after a specific date (RFC3339).")
		fs.DurationVar(&o.since, "since", 0, "Only return logs newer than a relative duration like 5s, 2m, or 3h.")
		fs.StringVarP(&o.container, "container", "c", "", "Print the logs of this container")
		fs.BoolVar(&o.prefix, "prefix", false, "Prefix each log line with the log source (pod name and container name)")
		fs.StringVarP(&o.selector, "selector", "l", "", "Selector (label query) to filter on.")
		fs.IntVar(&o.maxRequests, "max-log-requests", 5, "Specify maximum number of concurrent logs to follow when using by a selector.")
		fs.String("pod-running-timeout", "20s", "The length of time to wait until at least one pod is running")
		return o.run
	})
}

// logRequest is one container's log to read.
type logRequest struct {
	pod, container string
	path           string
	query          url.Values
}

const logsUsage = "expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command\nSee 'kubectl logs -h' for help and examples"

func (o *logsOptions) run(c *Cmd, args []string) error {
	containerFlag := c.fs.Changed("container")
	var resourceArg string
	switch len(args) {
	case 0:
		if o.selector == "" {
			return errors.New(logsUsage)
		}
	case 1:
		resourceArg = args[0]
		if o.selector != "" {
			return errors.New("only a selector (-l) or a POD name is allowed\nSee 'kubectl logs -h' for help and examples")
		}
	case 2:
		resourceArg, o.container = args[0], args[1]
	default:
		return errors.New(logsUsage)
	}
	if o.allPods {
		o.prefix = true
	}
	q := url.Values{}
	if o.container != "" {
		q.Set("container", o.container)
	}
	if o.follow {
		q.Set("follow", "true")
	}
	if o.previous {
		q.Set("previous", "true")
	}
	if o.timestamps {
		q.Set("timestamps", "true")
	}
	if o.limitBytes != 0 {
		q.Set("limitBytes", fmt.Sprint(o.limitBytes))
	}
	if o.sinceTime != "" {
		t, err := time.Parse(time.RFC3339, o.sinceTime)
		if err != nil {
			return err
		}
		q.Set("sinceTime", t.UTC().Format(time.RFC3339))
	}
	if o.since != 0 {
		q.Set("sinceSeconds", fmt.Sprint(int64(o.since.Round(time.Second).Seconds())))
	}
	if o.selector != "" && o.tail == -1 && !c.fs.Changed("tail") {
		q.Set("tailLines", "10")
	} else if o.tail != -1 {
		q.Set("tailLines", fmt.Sprint(o.tail))
	}
	ns := c.NamespaceOrDefault()

	// Complete: the builder's fetch.
	var pods []map[string]any
	var target map[string]any
	var targetKind string
	if o.selector != "" {
		items, err := c.listAll("/api/v1/namespaces/"+ns+"/pods", url.Values{"labelSelector": {o.selector}}, acceptLogs, 0)
		if err != nil {
			return err
		}
		pods = items
		if len(pods) == 0 {
			fmt.Fprintf(c.Stderr, "No resources found in %s namespace.\n", ns)
		}
	} else {
		typ, name, ok := strings.Cut(resourceArg, "/")
		if !ok {
			typ, name = "pods", resourceArg
		}
		r, err := c.Resolve(typ)
		if err != nil {
			return err
		}
		target, err = c.getObject(r.Path(ns, name), nil, acceptLogs)
		if err != nil {
			var se *StatusError
			if errors.As(err, &se) && se.Code == 404 {
				return fmt.Errorf("error from server (NotFound): %s in namespace %q", se.Status.Message, ns)
			}
			return err
		}
		targetKind = r.Kind
	}

	// Validate.
	switch {
	case o.sinceTime != "" && o.since != 0:
		return errors.New("at most one of `sinceTime` or `sinceSeconds` may be specified")
	case o.allContainers && o.container != "":
		return fmt.Errorf("--all-containers=true should not be specified with container name %s", o.container)
	case containerFlag && len(args) == 2:
		return errors.New("only one of -c or an inline [CONTAINER] arg is allowed")
	case o.limitBytes < 0:
		return errors.New("--limit-bytes must be greater than 0")
	case o.since < 0:
		return errors.New("--since must be greater than 0")
	case o.tail < -1:
		return errors.New("--tail must be greater than or equal to -1")
	}

	if target != nil && targetKind != "Pod" {
		p, n, err := c.firstPod(target, targetKind)
		if err != nil {
			return err
		}
		if n > 1 && !o.allPods {
			fmt.Fprintf(c.Stderr, "Found %v pods, using pod/%v\n", n, stringAt(p, "metadata", "name"))
		}
		target = p
	}
	if target != nil {
		pods = []map[string]any{target}
	}
	var reqs []logRequest
	for _, p := range pods {
		r, err := o.requests(c, p, q, len(pods) > 1 || o.allPods)
		if err != nil {
			return err
		}
		reqs = append(reqs, r...)
	}
	if o.follow && len(reqs) > 1 {
		if len(reqs) > o.maxRequests {
			return fmt.Errorf("you are attempting to follow %d log streams, but maximum allowed concurrency is %d, use --max-log-requests to increase the limit", len(reqs), o.maxRequests)
		}
		return o.parallel(c, reqs)
	}
	for _, r := range reqs {
		if err := o.consume(c, r, c.Stdout, nil); err != nil {
			if !o.ignoreErrors {
				return err
			}
			fmt.Fprintf(c.Stdout, "error: %v\n", err)
		}
	}
	return nil
}

// requests are the log requests for one pod: its chosen container (the
// default-container annotation's, else the first) or, with
// --all-containers, each of its init, regular and ephemeral containers.
func (o *logsOptions) requests(c *Cmd, pod map[string]any, q url.Values, quiet bool) ([]logRequest, error) {
	name := stringAt(pod, "metadata", "name")
	path := "/api/v1/namespaces/" + stringAt(pod, "metadata", "namespace") + "/pods/" + name + "/log"
	var names []string
	for _, part := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for _, ct := range list(pod, "spec", part) {
			names = append(names, stringAt(ct, "name"))
		}
	}
	one := func(container string) logRequest {
		cq := url.Values{}
		for k, v := range q {
			cq[k] = v
		}
		cq.Set("container", container)
		return logRequest{pod: name, container: container, path: path, query: cq}
	}
	if o.allContainers {
		var out []logRequest
		for _, n := range names {
			out = append(out, one(n))
		}
		return out, nil
	}
	container := o.container
	if container == "" {
		if def := strMap(pod, "metadata", "annotations")["kubectl.kubernetes.io/default-container"]; def != "" {
			if containsString(names, def) {
				container = def
			} else {
				fmt.Fprintf(c.Stderr, "Default container name %q not found in pod %s\n", def, name)
			}
		}
	}
	if container == "" {
		containers := list(pod, "spec", "containers")
		if len(containers) == 0 {
			return nil, fmt.Errorf("pod %s has no containers", name)
		}
		container = stringAt(containers[0], "name")
		if len(names) > 1 && !quiet {
			fmt.Fprintf(c.Stderr, "Defaulted container %q out of: %s\n", container, allContainerNames(pod))
		}
	}
	if !containsString(names, container) {
		return nil, fmt.Errorf("container %s is not valid for pod %s", container, name)
	}
	return []logRequest{one(container)}, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// allContainerNames is podcmd.AllContainerNames: "a, b (ephem), c (init)".
func allContainerNames(pod map[string]any) string {
	var out []string
	for _, ct := range list(pod, "spec", "containers") {
		out = append(out, stringAt(ct, "name"))
	}
	for _, ct := range list(pod, "spec", "ephemeralContainers") {
		out = append(out, stringAt(ct, "name")+" (ephem)")
	}
	for _, ct := range list(pod, "spec", "initContainers") {
		out = append(out, stringAt(ct, "name")+" (init)")
	}
	return strings.Join(out, ", ")
}

// consume copies one log to out line by line, each with --prefix's prefix;
// mu, if set, is held for each line (parallel follows).
func (o *logsOptions) consume(c *Cmd, r logRequest, out io.Writer, mu *sync.Mutex) error {
	resp, err := c.streamOK(&Request{Method: "GET", Path: r.path, Query: r.query, Header: [][2]string{{"Accept", acceptLogs}}})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	prefix := ""
	if o.prefix {
		prefix = "[pod/" + r.pod + "/" + r.container + "] "
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if mu != nil {
				mu.Lock()
			}
			_, werr := io.WriteString(out, prefix+string(line))
			if mu != nil {
				mu.Unlock()
			}
			if werr != nil {
				return werr
			}
		}
		if err != nil {
			if err == io.EOF || c.Ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}

// parallel follows several logs at once, lines interleaved whole.
func (o *logsOptions) parallel(c *Cmd, reqs []logRequest) error {
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, len(reqs))
	for _, r := range reqs {
		wg.Add(1)
		go func(r logRequest) {
			defer wg.Done()
			if err := o.consume(c, r, c.Stdout, &mu); err != nil {
				if !o.ignoreErrors {
					errs <- err
					return
				}
				mu.Lock()
				fmt.Fprintf(c.Stdout, "error: %v\n", err)
				mu.Unlock()
			}
		}(r)
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// firstPod is the pod kubectl logs shows for a workload: its selector's
// pods sorted as kubectl's ByLogging sorts them, the first, and how many
// there are.
func (c *Cmd) firstPod(o map[string]any, kind string) (map[string]any, int, error) {
	var selector string
	switch kind {
	case "Service", "ReplicationController":
		sel := obj(o, "spec", "selector")
		if len(sel) == 0 {
			return nil, 0, fmt.Errorf("cannot get the logs from *v1.%s: invalid service '%s': Service is defined without a selector", kind, stringAt(o, "metadata", "name"))
		}
		selector = formatLabels(sel)
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job":
		selector = selectorString(obj(o, "spec", "selector"))
	default:
		return nil, 0, fmt.Errorf("cannot get the logs from %s: selector for %s not implemented", kind, kind)
	}
	pods, err := c.listAll("/api/v1/namespaces/"+stringAt(o, "metadata", "namespace")+"/pods", url.Values{"labelSelector": {selector}}, acceptTyped, 0)
	if err != nil {
		return nil, 0, err
	}
	if len(pods) == 0 {
		return nil, 0, errors.New("timed out waiting for the condition")
	}
	sort.SliceStable(pods, func(i, j int) bool { return byLogging(pods[i], pods[j]) })
	return pods[0], len(pods), nil
}

// byLogging is kubectl's ByLogging order: assigned, running, ready, ready
// longest, most restarted, oldest first.
func byLogging(a, b map[string]any) bool {
	na, nb := stringAt(a, "spec", "nodeName"), stringAt(b, "spec", "nodeName")
	if na != nb && (na == "" || nb == "") {
		return na != ""
	}
	rank := map[string]int{"Running": 0, "Unknown": 1, "Pending": 2}
	if ra, rb := rank[stringAt(a, "status", "phase")], rank[stringAt(b, "status", "phase")]; ra != rb {
		return ra < rb
	}
	ta, readyA := readySince(a)
	tb, readyB := readySince(b)
	if readyA != readyB {
		return readyA
	}
	if readyA && readyB && ta != tb {
		return afterOrZero(tb, ta)
	}
	if ra, rb := maxRestarts(a), maxRestarts(b); ra != rb {
		return ra > rb
	}
	ca, cb := stringAt(a, "metadata", "creationTimestamp"), stringAt(b, "metadata", "creationTimestamp")
	if ca != cb {
		return afterOrZero(cb, ca)
	}
	return false
}

// readySince is when a pod's Ready condition became True, if it is.
func readySince(p map[string]any) (string, bool) {
	for _, cd := range list(p, "status", "conditions") {
		if stringAt(cd, "type") == "Ready" {
			if stringAt(cd, "status") == "True" {
				return stringAt(cd, "lastTransitionTime"), true
			}
			return "", false
		}
	}
	return "", false
}

// afterOrZero says whether t1 is after t2, a missing time being after all.
func afterOrZero(t1, t2 string) bool {
	a, okA := parseTime(t1)
	b, okB := parseTime(t2)
	if !okA || !okB {
		return !okA
	}
	return a.After(b)
}

func maxRestarts(p map[string]any) int64 {
	var n int64
	for _, s := range list(p, "status", "containerStatuses") {
		n = max(n, num(s, "restartCount"))
	}
	return n
}
