package main

import (
	"fmt"
	"log"
	"strings"
	"time"

	"kubeplay/core/requestlog"
)

// The terminal's request log: the sandbox's (core/requestlog), one line a
// request, for the clients --log-requests names.

// logRequestsHelp is --log-requests' usage.
const logRequestsHelp = "whose requests to print, one line each: clients (every request from outside the sandbox: kubectl, client-go programs, the page, curl), " +
	"all (the sandbox's own controllers, kubelets and scheduler too), none, or a comma-separated list of client names " +
	"(kubectl, browser, curl, a controller such as replicaset-controller, kubelet, kube-scheduler); the page's Requests panel and /debug/kubeplay/requests show them all"

// requestMatch is the entries --log-requests asks for.
func requestMatch(spec string) (func(requestlog.Entry) bool, error) {
	switch spec {
	case "all":
		return func(requestlog.Entry) bool { return true }, nil
	case "none":
		return nil, nil
	case "", "clients":
		return func(e requestlog.Entry) bool { return !e.Internal }, nil
	}
	names := map[string]bool{}
	for _, n := range strings.Split(spec, ",") {
		if n = strings.TrimSpace(n); n == "" || n == "all" || n == "none" || n == "clients" {
			return nil, fmt.Errorf("--log-requests: %q: all, none, clients, or a list of client names", spec)
		}
		names[n] = true
	}
	return func(e requestlog.Entry) bool { return names[e.Client] }, nil
}

// printRequests prints the entries match accepts until stop; a printer that
// falls behind says so and goes on with the requests that follow.
func printRequests(l *requestlog.Log, match func(requestlog.Entry) bool, stop <-chan struct{}) {
	for {
		f := l.Follow(match, false)
	follow:
		for {
			select {
			case ev, ok := <-f.Events():
				if !ok {
					break follow
				}
				log.Print(requestLine(ev))
			case <-stop:
				f.Stop()
				return
			}
		}
		log.Print("request log: the terminal fell behind; some requests were not printed")
	}
}

// requestLine is an event as the terminal shows it: the client and user,
// the method and URI, the code, the time taken, the bytes each way, and
// APF's priority level and flow schema.
func requestLine(ev requestlog.Event) string {
	e := ev.Object
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", e.Client, e.Method, e.URI)
	switch {
	case e.Open:
		fmt.Fprintf(&b, " %d open", e.Code)
	case ev.Type == "MODIFIED":
		fmt.Fprintf(&b, " %d ended after %s", e.Code, (time.Duration(e.LatencyMicros) * time.Microsecond).Round(time.Millisecond))
	default:
		fmt.Fprintf(&b, " %d in %s", e.Code, time.Duration(e.LatencyMicros)*time.Microsecond)
	}
	fmt.Fprintf(&b, " bytes=%d/%d", e.RequestBytes, e.ResponseBytes)
	if e.User != "" {
		fmt.Fprintf(&b, " user=%s", e.User)
	}
	if e.ImpersonatedBy != "" {
		fmt.Fprintf(&b, " (impersonated by %s)", e.ImpersonatedBy)
	}
	if e.PriorityLevel != "" {
		fmt.Fprintf(&b, " apf=%s/%s", e.PriorityLevel, e.FlowSchema)
	}
	return b.String()
}
