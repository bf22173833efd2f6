// Package health owns kube-apiserver's health endpoints, /healthz, /livez
// and /readyz: their checks as kube-apiserver 1.32.13 lists them, each one
// at its own path (/readyz/etcd), ?verbose and ?exclude=, and the answers
// while a check fails, as kube's give them (500, "[-]NAME failed: reason
// withheld", the check's own path saying why).
//
// The checks that can fail are the post-start hooks a sandbox has not
// finished: one that answers its first request before it writes its
// bootstrap RBAC policy, its APF configuration or the kubernetes Service
// (core/sandbox) is not ready until it has, as kube-apiserver serves while
// its hooks run and its /readyz says which have not.
package health

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"kubeplay/core/web"
)

// The post-start hooks a sandbox may finish after it first answers.
const (
	BootstrapRoles       = "poststarthook/rbac/bootstrap-roles"
	FlowControlBootstrap = "poststarthook/priority-and-fairness-config-producer"
	BootstrapController  = "poststarthook/bootstrap-controller"
)

// checks are kube-apiserver 1.32.13's, in its order (recorded with the
// refapi kit); readyOnly are /readyz's alone.
var checks = []string{
	"ping", "log", "etcd", "etcd-readiness", "informer-sync",
	"poststarthook/start-apiserver-admission-initializer", "poststarthook/generic-apiserver-start-informers",
	"poststarthook/priority-and-fairness-config-consumer", "poststarthook/priority-and-fairness-filter",
	"poststarthook/storage-object-count-tracker-hook", "poststarthook/start-apiextensions-informers",
	"poststarthook/start-apiextensions-controllers", "poststarthook/crd-informer-synced",
	"poststarthook/start-system-namespaces-controller", "poststarthook/start-cluster-authentication-info-controller",
	"poststarthook/start-kube-apiserver-identity-lease-controller",
	"poststarthook/start-kube-apiserver-identity-lease-garbage-collector",
	"poststarthook/start-legacy-token-tracking-controller", "poststarthook/start-service-ip-repair-controllers",
	BootstrapRoles, "poststarthook/scheduling/bootstrap-system-priority-classes", FlowControlBootstrap,
	BootstrapController, "poststarthook/start-kube-aggregator-informers",
	"poststarthook/apiservice-status-local-available-controller", "poststarthook/apiservice-status-remote-available-controller",
	"poststarthook/apiservice-registration-controller", "poststarthook/apiservice-discovery-controller",
	"poststarthook/kube-apiserver-autoregistration", "autoregister-completion",
	"poststarthook/apiservice-openapi-controller", "poststarthook/apiservice-openapiv3-controller", "shutdown",
}

var readyOnly = []string{"etcd-readiness", "informer-sync", "shutdown"}

// IsPath says whether p is a health endpoint or one of its checks.
func IsPath(p string) bool {
	for _, root := range []string{"/healthz", "/livez", "/readyz"} {
		if p == root || strings.HasPrefix(p, root+"/") {
			return true
		}
	}
	return false
}

// Serve answers a health endpoint; pending are the post-start hooks not
// finished yet (their checks fail).
func Serve(w web.ResponseWriter, r *web.Request, pending []string) {
	root, check, sub := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	var list []string
	for _, c := range checks {
		if root == "readyz" || !slices.Contains(readyOnly, c) {
			list = append(list, c)
		}
	}
	if sub {
		switch {
		case !slices.Contains(list, check):
			write(w, web.StatusNotFound, "404 page not found\n", true)
		case slices.Contains(pending, check):
			write(w, web.StatusInternalServerError, "internal server error: not finished\n", true)
		default:
			write(w, web.StatusOK, "ok", false)
		}
		return
	}
	q := r.URL.Query()
	excluded := map[string]bool{}
	for _, e := range q["exclude"] {
		excluded[e] = true
	}
	var b strings.Builder
	failed := false
	for _, c := range list {
		switch {
		case excluded[c]:
			b.WriteString("[+]" + c + " excluded: ok\n")
		case slices.Contains(pending, c):
			b.WriteString("[-]" + c + " failed: reason withheld\n")
			failed = true
		default:
			b.WriteString("[+]" + c + " ok\n")
		}
	}
	var unknown []string
	for e := range excluded {
		if !slices.Contains(list, e) {
			unknown = append(unknown, strconv.Quote(e))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		b.WriteString("warn: some health checks cannot be excluded: no matches for " + strings.Join(unknown, ",") + "\n")
	}
	switch {
	case failed: // kube is verbose on failure
		write(w, web.StatusInternalServerError, b.String()+root+" check failed\n", true)
	case verbose(q):
		write(w, web.StatusOK, b.String()+root+" check passed\n", false)
	default:
		write(w, web.StatusOK, "ok", false)
	}
}

// verbose: ?verbose with any value, as kube reads it.
func verbose(q url.Values) bool {
	_, ok := q["verbose"]
	return ok
}

// write answers as kube's health handlers do: text; an error as Go's
// http.Error writes it (nosniff).
func write(w web.ResponseWriter, code int, body string, isError bool) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	if isError {
		h.Set("X-Content-Type-Options", "nosniff")
	}
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body))
}
