package apiserver

import (
	"strings"

	"kubeplay/core/schema"
)

// Store keys are GROUP/PLURAL/NAMESPACE/NAME for namespaced objects and
// GROUP/PLURAL/NAME for cluster-scoped ones, with "core" for the core group, so a
// list is a prefix scan in (namespace, name) order, as in etcd.

func groupSegment(group string) string {
	if group == "" {
		return "core"
	}
	return group
}

func objectKey(res *schema.Resource, namespace, name string) string {
	if res.Namespaced {
		return groupSegment(res.Group) + "/" + res.Plural + "/" + namespace + "/" + name
	}
	return groupSegment(res.Group) + "/" + res.Plural + "/" + name
}

// collectionPrefix is the key prefix of a list: every namespace when namespace is "".
func collectionPrefix(res *schema.Resource, namespace string) string {
	p := groupSegment(res.Group) + "/" + res.Plural + "/"
	if res.Namespaced && namespace != "" {
		p += namespace + "/"
	}
	return p
}

func (s *Server) resourceForKey(key string) *schema.Resource {
	group, rest, ok := strings.Cut(key, "/")
	if !ok {
		return nil
	}
	plural, _, _ := strings.Cut(rest, "/")
	if group == "core" {
		group = ""
	}
	return s.registry.ByGroupResource(group, plural)
}
