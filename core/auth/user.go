// Package auth owns who a request is from, as kube-apiserver's authentication
// decides it: bearer tokens from a static token table (kube's --token-file
// format), anonymous requests (system:anonymous in system:unauthenticated),
// and impersonation (Impersonate-User, -Group, -Uid, -Extra-*); a request
// that already carries an identity (core/user's, put there by core/client for
// the core's own in-process callers) keeps it. Filter is the authentication
// filter of the handler chain.
//
// Authorization allows everything (kube's AlwaysAllow), so impersonation is
// always permitted; the reviews that ask about identity and permission
// (SelfSubjectReview: `kubectl auth whoami`; SelfSubjectAccessReview:
// `kubectl auth can-i`) are answered here and served by the registry.
package auth

import (
	"strings"

	"kubeplay/core/user"
	"kubeplay/core/validation"
)

// splitServiceAccount reads system:serviceaccount:NS:NAME as kube's
// serviceaccount.SplitUsername does: a valid namespace and name.
func splitServiceAccount(name string) (namespace, account string, ok bool) {
	rest, found := strings.CutPrefix(name, user.ServiceAccountPrefix)
	parts := strings.Split(rest, ":")
	if !found || len(parts) != 2 {
		return "", "", false
	}
	namespace, account = parts[0], parts[1]
	return namespace, account, len(validation.DNS1123Label(namespace)) == 0 && len(validation.DNS1123Subdomain(account)) == 0
}
