// Package auth owns who a request is from, as kube-apiserver's authentication
// decides it: bearer tokens from a static token table (kube's --token-file
// format), anonymous requests (system:anonymous in system:unauthenticated),
// impersonation (Impersonate-User, -Group, -Uid, -Extra-*), and the identities
// of the core's own in-process callers (core/client puts them in the request's
// context). Filter is the authentication filter of the handler chain.
//
// Authorization allows everything (kube's AlwaysAllow), so impersonation is
// always permitted; the reviews that ask about identity and permission
// (SelfSubjectReview: `kubectl auth whoami`; SelfSubjectAccessReview:
// `kubectl auth can-i`) are answered here and served by the registry.
package auth

import (
	"context"
	"strings"

	"kubeplay/core/validation"
)

// Well-known users and groups of kube-apiserver.
const (
	Anonymous          = "system:anonymous"
	AllAuthenticated   = "system:authenticated"
	AllUnauthenticated = "system:unauthenticated"
	// SystemPrivileged is system:masters: its members are exempt from API
	// Priority and Fairness.
	SystemPrivileged = "system:masters"
	// serviceAccountPrefix starts a service account's user name.
	serviceAccountPrefix = "system:serviceaccount:"
)

// APIServer is kube-apiserver's own identity, its loopback client's: in
// system:masters, exempt from API Priority and Fairness.
var APIServer = User{Name: "system:apiserver", Groups: []string{AllAuthenticated, SystemPrivileged}}

// User is an authenticated identity, as kube's user.Info names it.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// ServiceAccount is the user of a service account's token:
// system:serviceaccount:NS:NAME in system:serviceaccounts and
// system:serviceaccounts:NS, and system:authenticated.
func ServiceAccount(namespace, name string) User {
	return User{Name: serviceAccountPrefix + namespace + ":" + name,
		Groups: append(serviceAccountGroups(namespace), AllAuthenticated)}
}

// serviceAccountGroups are the groups every service account of namespace is in.
func serviceAccountGroups(namespace string) []string {
	return []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace}
}

// splitServiceAccount reads system:serviceaccount:NS:NAME as kube's
// serviceaccount.SplitUsername does: a valid namespace and name.
func splitServiceAccount(user string) (namespace, name string, ok bool) {
	rest, found := strings.CutPrefix(user, serviceAccountPrefix)
	parts := strings.Split(rest, ":")
	if !found || len(parts) != 2 {
		return "", "", false
	}
	namespace, name = parts[0], parts[1]
	return namespace, name, len(validation.DNS1123Label(namespace)) == 0 && len(validation.DNS1123Subdomain(name)) == 0
}

// InGroup says whether u is in group.
func (u User) InGroup(group string) bool {
	for _, g := range u.Groups {
		if g == group {
			return true
		}
	}
	return false
}

type userKey struct{}

// WithUser returns ctx carrying u.
func WithUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom is the user ctx carries, if any.
func UserFrom(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}
