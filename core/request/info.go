// Package request owns what a request is about: its RequestInfo (verb,
// resource, namespace, name, …), parsed from its method and path as
// kube-apiserver's RequestInfoFactory does and carried in its context, so every
// filter (authentication, API Priority and Fairness, the request log) and the
// router classify requests alike without importing the server.
package request

import (
	"context"
	"kubeplay/core/web"
	"strings"
)

// RequestInfo is what a request is about, parsed from its method and path as
// kube-apiserver's RequestInfoFactory does. Later filters (authorization, API
// Priority and Fairness, logging) classify requests by it.
type RequestInfo struct {
	IsResourceRequest bool
	Path              string
	// Verb is kube's verb: get, list, watch, create, update, patch, delete,
	// deletecollection for resources; the lowercase HTTP method otherwise.
	Verb        string
	APIPrefix   string // "api" or "apis"
	APIGroup    string
	APIVersion  string
	Namespace   string
	Resource    string
	Subresource string
	Name        string
	Parts       []string
}

// specialVerbs take the form /api/v1/watch/namespaces/NS/pods.
var specialVerbs = map[string]bool{"proxy": true, "watch": true}

// ParseRequestInfo classifies r.
func ParseRequestInfo(r *web.Request) *RequestInfo {
	info := &RequestInfo{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	parts := SplitPath(r.URL.Path)
	if len(parts) < 3 || (parts[0] != "api" && parts[0] != "apis") {
		return info
	}
	info.APIPrefix = parts[0]
	parts = parts[1:]
	if info.APIPrefix == "apis" {
		if len(parts) < 3 {
			return info // /apis/GROUP or /apis/GROUP/VERSION: discovery
		}
		info.APIGroup = parts[0]
		parts = parts[1:]
	}
	info.IsResourceRequest = true
	info.APIVersion = parts[0]
	parts = parts[1:]

	if specialVerbs[parts[0]] {
		if len(parts) < 2 {
			info.IsResourceRequest = false
			return info
		}
		info.Verb = parts[0]
		parts = parts[1:]
	} else {
		switch r.Method {
		case web.MethodPost:
			info.Verb = "create"
		case web.MethodGet, web.MethodHead:
			info.Verb = "get"
		case web.MethodPut:
			info.Verb = "update"
		case web.MethodPatch:
			info.Verb = "patch"
		case web.MethodDelete:
			info.Verb = "delete"
		default:
			info.Verb = ""
		}
	}

	if parts[0] == "namespaces" && len(parts) > 1 {
		info.Namespace = parts[1]
		// /namespaces/NS/status and /finalize are the namespace's own subresources.
		if len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
			parts = parts[2:]
		}
	}
	info.Parts = parts
	switch {
	case len(parts) >= 3 && info.Verb != "proxy": // kube's specialVerbsNoSubresources
		info.Subresource = parts[2]
		fallthrough
	case len(parts) >= 2:
		info.Name = parts[1]
		fallthrough
	case len(parts) == 1:
		info.Resource = parts[0]
	}
	if info.Name == "" && info.Verb == "get" {
		info.Verb = "list"
	}
	if info.Name == "" && info.Verb == "delete" {
		info.Verb = "deletecollection"
	}
	if info.Verb == "list" && IsWatch(r) {
		info.Verb = "watch"
	}
	return info
}

// IsWatch reads the watch parameter as kube's conversion does: present and
// neither "0" nor "false" (any case), even when empty.
func IsWatch(r *web.Request) bool {
	vs := r.URL.Query()["watch"]
	return len(vs) > 0 && vs[0] != "0" && !strings.EqualFold(vs[0], "false")
}

// SplitPath is the path's segments, without empty ones at either end.
func SplitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

type ctxKey int

const requestInfoKey ctxKey = iota

// WithRequestInfo stores info in ctx.
func WithRequestInfo(ctx context.Context, info *RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey, info)
}

// RequestInfoFrom returns the request's RequestInfo.
func RequestInfoFrom(ctx context.Context) *RequestInfo {
	info, _ := ctx.Value(requestInfoKey).(*RequestInfo)
	return info
}

type watchInitKey struct{}

// WithWatchInitialization returns ctx carrying done, for a watch's handler to
// call once the watch's initial events are sent: API Priority and Fairness
// holds a watch's seats until then, as kube's flow control does.
func WithWatchInitialization(ctx context.Context, done func()) context.Context {
	return context.WithValue(ctx, watchInitKey{}, done)
}

// WatchInitialized says a watch's initial events are sent (nothing when no one
// waits for it).
func WatchInitialized(ctx context.Context) {
	if done, ok := ctx.Value(watchInitKey{}).(func()); ok {
		done()
	}
}
