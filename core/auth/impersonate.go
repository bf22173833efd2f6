package auth

import (
	"fmt"
	"strings"

	"kubeplay/core/user"
	"kubeplay/core/web"
)

// impersonation is one thing a request asks to act as, and what kube
// authorizes for it: the verb impersonate on users, groups, serviceaccounts,
// uids or userextras/KEY.
type impersonation struct {
	group, resource, sub, namespace, name string
}

func (i impersonation) attributes(u user.User) *Attributes {
	return &Attributes{User: u, Verb: "impersonate", ResourceRequest: true, APIGroup: i.group, APIVersion: "v1",
		Namespace: i.namespace, Resource: i.resource, Subresource: i.sub, Name: i.name}
}

// reference is i as kube's %v of its ObjectReference prints it.
func (i impersonation) reference() string {
	switch i.resource {
	case "serviceaccounts":
		return "{ServiceAccount " + i.namespace + " " + i.name + "    }"
	case "users":
		return "{User  " + i.name + "    }"
	case "groups":
		return "{Group  " + i.name + "    }"
	case "userextras":
		return "{UserExtra  " + i.name + "  authentication.k8s.io/v1  " + i.sub + "}"
	}
	return "{UID  " + i.name + "  authentication.k8s.io/v1  }"
}

// asked lists what the impersonation headers (Impersonate-User, -Group,
// -Extra-KEY, -Uid) ask for, in kube's order.
func asked(h web.Header) []impersonation {
	var out []impersonation
	if name := h.Get("Impersonate-User"); name != "" {
		if ns, sa, ok := splitServiceAccount(name); ok {
			out = append(out, impersonation{resource: "serviceaccounts", namespace: ns, name: sa})
		} else {
			out = append(out, impersonation{resource: "users", name: name})
		}
	}
	for _, g := range h.Values("Impersonate-Group") {
		out = append(out, impersonation{resource: "groups", name: g})
	}
	for k, vs := range h {
		if rest, ok := strings.CutPrefix(k, "Impersonate-Extra-"); ok {
			for _, v := range vs {
				out = append(out, impersonation{group: "authentication.k8s.io", resource: "userextras", sub: extraKey(rest), name: v})
			}
		}
	}
	if uid := h.Get("Impersonate-Uid"); uid != "" {
		out = append(out, impersonation{group: "authentication.k8s.io", resource: "uids", name: uid})
	}
	return out
}

// impersonate applies the impersonation headers to u, as kube's
// WithImpersonation: a service account's user name brings its groups unless
// groups are named; system:authenticated (or, for system:anonymous,
// system:unauthenticated) is added. Groups, extras or a UID without a user are
// kube's error, which names what was asked as its ObjectReference prints.
func impersonate(asked []impersonation, u user.User) (user.User, error) {
	if len(asked) == 0 {
		return u, nil
	}
	var out user.User
	saNamespace, named := "", false
	for _, i := range asked {
		switch i.resource {
		case "users":
			out.Name, named = i.name, true
		case "serviceaccounts":
			out.Name, saNamespace, named = user.ServiceAccountPrefix+i.namespace+":"+i.name, i.namespace, true
		case "groups":
			out.Groups = append(out.Groups, i.name)
		case "userextras":
			if out.Extra == nil {
				out.Extra = map[string][]string{}
			}
			out.Extra[i.sub] = append(out.Extra[i.sub], i.name)
		case "uids":
			out.UID = i.name
		}
	}
	if !named {
		refs := make([]string, len(asked))
		for n, i := range asked {
			refs[n] = i.reference()
		}
		return user.User{}, fmt.Errorf("requested [%s] without impersonating a user", strings.Join(refs, " "))
	}
	if saNamespace != "" && len(out.Groups) == 0 {
		out.Groups = user.ServiceAccountGroups(saNamespace)
	}
	if out.Name != user.Anonymous {
		if !out.InGroup(user.AllAuthenticated) && !out.InGroup(user.AllUnauthenticated) {
			out.Groups = append(out.Groups, user.AllAuthenticated)
		}
	} else if !out.InGroup(user.AllUnauthenticated) {
		out.Groups = append(out.Groups, user.AllUnauthenticated)
	}
	return out, nil
}
