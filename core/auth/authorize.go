package auth

import (
	"fmt"
	"strings"

	"kubeplay/core/apierrors"
	"kubeplay/core/request"
	"kubeplay/core/selector"
	"kubeplay/core/user"
	"kubeplay/core/validation"
	"kubeplay/core/web"
)

// Attributes are what a request asks, as kube's authorizer.Attributes: who,
// which verb, and either a resource (its group, version, namespace, name and
// subresource) or a non-resource path.
type Attributes struct {
	User            user.User
	Verb            string
	ResourceRequest bool
	APIGroup        string
	APIVersion      string
	Namespace       string
	Resource        string
	Subresource     string
	Name            string
	Path            string
	// Explain: the caller shows why an allowed request is allowed (an
	// access review's status.reason); otherwise an authorizer words only
	// its refusals, which a 403 quotes, and an allowed request costs no
	// words.
	Explain bool
}

// Authorizer decides whether a request is allowed; reason says why not
// (kube appends it to the refusal), or, when a.Explain is set, why.
type Authorizer interface {
	Authorize(a *Attributes) (allowed bool, reason string)
}

// The authorization modes of kube-apiserver's --authorization-mode this
// core serves.
const (
	ModeRBAC        = "RBAC"
	ModeAlwaysAllow = "AlwaysAllow"
)

// AlwaysAllow is kube's AlwaysAllow authorizer: every request is allowed.
type AlwaysAllow struct{}

// Authorize allows a.
func (AlwaysAllow) Authorize(*Attributes) (bool, string) { return true, "" }

// RequestAttributes are the attributes of the request info describes, made
// by u.
func RequestAttributes(u user.User, info *request.RequestInfo) *Attributes {
	a := &Attributes{User: u, Verb: info.Verb, Path: info.Path}
	if info.IsResourceRequest {
		a.ResourceRequest = true
		a.APIGroup, a.APIVersion, a.Namespace = info.APIGroup, info.APIVersion, info.Namespace
		a.Resource, a.Subresource, a.Name = info.Resource, info.Subresource, info.Name
	}
	return a
}

// nameFromFieldSelector names the object a list or watch asks for by the
// field selector metadata.name=NAME, as kube's request info does, so that
// a rule for named objects allows `kubectl get KIND NAME --watch`.
func nameFromFieldSelector(a *Attributes, r *web.Request) {
	if !a.ResourceRequest || a.Name != "" || (a.Verb != "list" && a.Verb != "watch") {
		return
	}
	if !strings.Contains(r.URL.RawQuery, "fieldSelector") {
		return
	}
	vs := r.URL.Query()["fieldSelector"]
	if len(vs) == 0 {
		return
	}
	fs, err := selector.ParseFields(vs[0])
	if err != nil {
		return
	}
	if name, ok := fs.RequiresExactMatch("metadata.name"); ok && len(validation.PathSegmentName(name)) == 0 {
		a.Name = name
	}
}

// Forbidden is kube's refusal of a: "User U cannot VERB resource R in API
// group G in the namespace N" (or at the cluster scope, or a path: a
// non-resource request's attributes name no resource), the reason after a
// colon when there is one.
func Forbidden(a *Attributes, reason string) *apierrors.Status {
	msg := htmlEscaper.Replace(forbiddenMessage(a))
	if reason != "" {
		msg += ": " + reason
	}
	return apierrors.NewForbidden(a.APIGroup, a.Resource, a.Name, msg)
}

func forbiddenMessage(a *Attributes) string {
	if !a.ResourceRequest {
		return fmt.Sprintf("User %q cannot %s path %q", a.User.Name, a.Verb, a.Path)
	}
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	if a.Namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", a.User.Name, a.Verb, resource, a.APIGroup, a.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", a.User.Name, a.Verb, resource, a.APIGroup)
}

// Authorization is kube's authorization filter: a request the authenticator
// gave a user over the wire is served only when z allows it, and is
// otherwise kube's 403. The core's own callers (core/client's, whose
// identity they carry themselves) are trusted, as kube-apiserver's loopback
// client is: they stand for kube's controllers, which run with the bootstrap
// roles their identities are bound to.
func Authorization(z Authorizer) func(web.Handler) web.Handler {
	return func(next web.Handler) web.Handler {
		return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
			u, ok := user.From(r.Context())
			if !ok || !fromWire(r) {
				next.ServeHTTP(w, r)
				return
			}
			a := RequestAttributes(u, request.RequestInfoFrom(r.Context()))
			nameFromFieldSelector(a, r)
			if allowed, reason := z.Authorize(a); !allowed {
				w.Header().Set("X-Content-Type-Options", "nosniff")
				apierrors.Write(w, Forbidden(a, reason))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
