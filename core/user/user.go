// Package user owns who a request is from as the core's clients and its
// server share it: the identity (kube's user.Info), kube-apiserver's
// well-known users and groups, service accounts' names, and the request
// context that carries an identity. It imports nothing of the server, so
// clients (core/client, the controllers, the simulated cluster) name
// themselves with it; core/auth decides who a request over the wire is from.
package user

import "context"

// Well-known users and groups of kube-apiserver.
const (
	Anonymous          = "system:anonymous"
	AllAuthenticated   = "system:authenticated"
	AllUnauthenticated = "system:unauthenticated"
	// SystemPrivileged is system:masters: its members are exempt from API
	// Priority and Fairness.
	SystemPrivileged = "system:masters"
	// ServiceAccountPrefix starts a service account's user name.
	ServiceAccountPrefix = "system:serviceaccount:"
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
	return User{Name: ServiceAccountPrefix + namespace + ":" + name,
		Groups: append(ServiceAccountGroups(namespace), AllAuthenticated)}
}

// ServiceAccountGroups are the groups every service account of namespace is in.
func ServiceAccountGroups(namespace string) []string {
	return []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace}
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

// From is the user ctx carries, if any.
func From(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}

// systemManagers are the field managers kube's own components write
// managedFields as: the API server itself (its bootstrap objects, and API
// Priority and Fairness's configuration producer and consumer), the
// controller manager (and its ClusterRole aggregation), the scheduler and
// the kubelets.
var systemManagers = map[string]bool{
	"kube-apiserver": true, "kube-controller-manager": true, "kube-scheduler": true, "kubelet": true,
	"api-priority-and-fairness-config-producer-v1": true, "api-priority-and-fairness-config-consumer-v1": true,
	"clusterrole-aggregation-controller": true,
}

// SystemManager says whether a managedFields entry's manager is one of the
// cluster's own components (not a client's).
func SystemManager(manager string) bool { return systemManagers[manager] }
