package registry

import (
	"strings"

	"kubeplay/core/schema"
)

// Store keys are GROUP/PLURAL/NAMESPACE/NAME for namespaced objects and
// GROUP/PLURAL/NAME for cluster-scoped ones, with "core" for the core group, so a
// list is a prefix scan in (namespace, name) order, as in etcd.

//go:noinline
func groupSegment(group string) string {
	if group == "" {
		return "core"
	}
	return group
}

// Key is the store key of one object (a view's objects are those of the
// resource it views).
func Key(res *schema.Resource, namespace, name string) string {
	res = res.Storage()
	if res.Namespaced {
		return groupSegment(res.Group) + "/" + res.Plural + "/" + namespace + "/" + name
	}
	return groupSegment(res.Group) + "/" + res.Plural + "/" + name
}

// CollectionPrefix is the key prefix of a list: every namespace when namespace is "".
func CollectionPrefix(res *schema.Resource, namespace string) string {
	res = res.Storage()
	p := groupSegment(res.Group) + "/" + res.Plural + "/"
	if res.Namespaced && namespace != "" {
		p += namespace + "/"
	}
	return p
}

// CollectionOfKey is the prefix of every namespace's list of the
// resource whose object is stored at key (CollectionPrefix with no
// namespace): the store counts objects by it.
func CollectionOfKey(key string) string {
	i := strings.IndexByte(key, '/') + 1
	if j := strings.IndexByte(key[i:], '/'); j >= 0 {
		return key[:i+j+1]
	}
	return key
}

// ResourceForKey is the served resource a store key belongs to.
func ResourceForKey(reg *schema.Registry, key string) *schema.Resource {
	group, rest, ok := strings.Cut(key, "/")
	if !ok {
		return nil
	}
	plural, _, _ := strings.Cut(rest, "/")
	if group == "core" {
		group = ""
	}
	return reg.ByGroupResource(group, plural)
}
