package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"kubeplay/core/apierrors"
	"kubeplay/core/web"
	"kubeplay/core/xds"
)

// guard keeps web pages from using the server behind a developer's back. The
// API has no authentication, so any page the developer opens could otherwise
// write to it with the requests browsers send without asking the server first
// (a no-cors fetch, sendBeacon, a form), or read it after pointing its own DNS
// name at this address (DNS rebinding). kubectl, curl and client-go send no
// Origin and name the server as they reach it, so they pass.
type guard struct {
	next http.Handler
	// hosts are the names (lower case) that may name this server in Host,
	// besides localhost and IP literals: --listen's host and --allowed-hosts.
	hosts map[string]bool
	// origins may call the API from their pages (--cors-allowed-origins);
	// anyOrigin is "*": every origin but "null".
	origins   map[string]bool
	anyOrigin bool
	// crossOrigin tells a browser's cross-origin request (Sec-Fetch-Site,
	// else Origin against Host) from the server's own page's.
	crossOrigin *http.CrossOriginProtection
}

func newGuard(next http.Handler, listen string, allowedHosts, corsOrigins []string) *guard {
	g := &guard{next: next, hosts: map[string]bool{}, origins: map[string]bool{}, crossOrigin: http.NewCrossOriginProtection()}
	if host, _, err := net.SplitHostPort(listen); err == nil && host != "" {
		g.hosts[strings.ToLower(host)] = true
	}
	for _, h := range allowedHosts {
		g.hosts[strings.ToLower(h)] = true
	}
	for _, o := range corsOrigins {
		if o == "*" {
			g.anyOrigin = true
		} else {
			g.origins[o] = true
		}
	}
	return g
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if host := hostName(r.Host); !g.hostAllowed(host) {
		writeStatus(w, http.StatusForbidden, "Forbidden", fmt.Sprintf(
			"forbidden: host %q does not name this server (a page whose DNS name was pointed at this address, DNS rebinding, sends it); start the playground with --allowed-hosts %s to serve that name",
			host, host))
		return
	}
	origin := r.Header.Get("Origin")
	if g.corsAllowed(origin) {
		g.allowCORS(w.Header(), origin)
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
	} else if err := g.crossOrigin.Check(checkedAs(r)); err != nil {
		from := "another site"
		if origin != "" {
			from = strconv.Quote(origin)
		}
		writeStatus(w, http.StatusForbidden, "Forbidden", fmt.Sprintf(
			"forbidden: cross-origin request from a page of %s: this server has no authentication, so only its own pages and the origins of --cors-allowed-origins may send it requests",
			from))
		return
	}
	g.next.ServeHTTP(w, r)
}

// checkedAs is r as the cross-origin check sees it: a GET of an xDS stream
// takes the responses it reads from the stream's client, so it is checked as
// the write it is (no page of another origin may drain someone's stream).
func checkedAs(r *http.Request) *http.Request {
	if r.Method != http.MethodGet || !xds.IsStreamPath(r.URL.Path) {
		return r
	}
	write := *r
	write.Method = http.MethodPost
	return &write
}

// hostName is the host of a Host header, without port or IPv6 brackets.
func hostName(hostport string) string {
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		return host
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

// hostAllowed reports whether host may name this server. No DNS answer can
// make a page's origin an IP literal or localhost (browsers resolve it to
// loopback themselves), so those are the server's whatever its address; an
// empty host is an HTTP/1.0 client's, not a browser's.
func (g *guard) hostAllowed(host string) bool {
	if _, err := netip.ParseAddr(host); err == nil || host == "" || strings.EqualFold(host, "localhost") {
		return true
	}
	return g.hosts[strings.ToLower(host)]
}

func (g *guard) corsAllowed(origin string) bool {
	return origin != "" && origin != "null" && (g.anyOrigin || g.origins[origin])
}

// allowCORS grants origin what kube-apiserver's --cors-allowed-origins grants;
// to "*", only requests without credentials.
func (g *guard) allowCORS(h http.Header, origin string) {
	if g.anyOrigin {
		h.Set("Access-Control-Allow-Origin", "*")
	} else {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Credentials", "true")
		h.Add("Vary", "Origin")
	}
	h.Set("Access-Control-Allow-Methods", "POST, GET, OPTIONS, PUT, DELETE, PATCH")
	h.Set("Access-Control-Allow-Headers", "Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since, Accept, X-Kubeplay-Target, Impersonate-User, Impersonate-Group, X-Kubeplay-Simulated-Work, "+web.UserAgentHeader+", "+xds.StreamTokenHeader)
	h.Set("Access-Control-Expose-Headers", "Date, Content-Type, Content-Length, Audit-Id, Retry-After, X-Kubernetes-PF-FlowSchema-UID, X-Kubernetes-PF-PriorityLevel-UID")
}

// writeStatus answers with a metav1.Status, as kube-apiserver's filters do.
func writeStatus(w http.ResponseWriter, code int, reason, message string) {
	body, _ := json.Marshal(apierrors.New(code, reason, message, &apierrors.StatusDetails{}))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(code)
	_, _ = w.Write(append(body, '\n'))
}
