// Package auth owns who a request is from: the user and groups kube-apiserver's
// authentication would give it. Today it carries the identity of the core's own
// in-process callers (controllers, through core/client); tokens, impersonation
// and reviews come with API Priority and Fairness.
package auth

import "context"

// User is an authenticated identity, as kube's user.Info names it.
type User struct {
	Name   string
	Groups []string
}

// ServiceAccount is the user of a service account's token:
// system:serviceaccount:NS:NAME in system:serviceaccounts and
// system:serviceaccounts:NS, and system:authenticated.
func ServiceAccount(namespace, name string) User {
	return User{
		Name:   "system:serviceaccount:" + namespace + ":" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
	}
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
