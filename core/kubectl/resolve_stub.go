package kubectl

// TEMPORARY: the discovery API lands on main in discovery.go; this stand-in
// with its signatures is deleted at the merge.

import (
	"fmt"
	"strings"
)

type Resource struct {
	Group, Version, Resource, Kind string
	Namespaced                     bool
	Verbs, ShortNames, Categories  []string
	Singular                       string
}

var stubResources = []Resource{
	{"", "v1", "pods", "Pod", true, nil, []string{"po"}, nil, "pod"},
	{"", "v1", "services", "Service", true, nil, []string{"svc"}, nil, "service"},
	{"", "v1", "nodes", "Node", false, nil, []string{"no"}, nil, "node"},
	{"", "v1", "namespaces", "Namespace", false, nil, []string{"ns"}, nil, "namespace"},
	{"", "v1", "configmaps", "ConfigMap", true, nil, []string{"cm"}, nil, "configmap"},
	{"", "v1", "secrets", "Secret", true, nil, nil, nil, "secret"},
	{"", "v1", "events", "Event", true, nil, []string{"ev"}, nil, "event"},
	{"", "v1", "serviceaccounts", "ServiceAccount", true, nil, []string{"sa"}, nil, "serviceaccount"},
	{"apps", "v1", "deployments", "Deployment", true, nil, []string{"deploy"}, nil, "deployment"},
	{"apps", "v1", "replicasets", "ReplicaSet", true, nil, []string{"rs"}, nil, "replicaset"},
	{"batch", "v1", "jobs", "Job", true, nil, nil, nil, "job"},
	{"coordination.k8s.io", "v1", "leases", "Lease", true, nil, nil, nil, "lease"},
}

func (c *Cmd) Resolve(arg string) (Resource, error) {
	a := strings.ToLower(arg)
	for _, r := range stubResources {
		if a == r.Resource || a == r.Singular || a == strings.ToLower(r.Kind) || (len(r.ShortNames) > 0 && a == r.ShortNames[0]) ||
			(r.Group != "" && a == r.Resource+"."+r.Group) {
			return r, nil
		}
	}
	return Resource{}, fmt.Errorf("the server doesn't have a resource type %q", arg)
}

func (c *Cmd) ResourceFor(apiVersion, kind string) (Resource, error) {
	for _, r := range stubResources {
		gv := r.Version
		if r.Group != "" {
			gv = r.Group + "/" + r.Version
		}
		if gv == apiVersion && r.Kind == kind {
			return r, nil
		}
	}
	return Resource{}, fmt.Errorf("no matches for kind %q in version %q", kind, apiVersion)
}

func (r Resource) Path(namespace, name string) string {
	p := "/api/" + r.Version
	if r.Group != "" {
		p = "/apis/" + r.Group + "/" + r.Version
	}
	if r.Namespaced && namespace != "" {
		p += "/namespaces/" + namespace
	}
	p += "/" + r.Resource
	if name != "" {
		p += "/" + name
	}
	return p
}
