package registry

import (
	"strings"

	"kubeplay/core/api"
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

// objectKey is the store key of one object (a view's objects are those of the
// resource it views).
func objectKey(res *api.Resource, namespace, name string) string {
	res = res.Storage()
	if res.Namespaced {
		return groupSegment(res.Group) + "/" + res.Plural + "/" + namespace + "/" + name
	}
	return groupSegment(res.Group) + "/" + res.Plural + "/" + name
}

// collectionPrefix is the key prefix of a list: every namespace when namespace is "".
func collectionPrefix(res *api.Resource, namespace string) string {
	res = res.Storage()
	p := groupSegment(res.Group) + "/" + res.Plural + "/"
	if res.Namespaced && namespace != "" {
		p += namespace + "/"
	}
	return p
}

// collectionOfKey is the collection of the object at key: its resource,
// GROUP/PLURAL (collectionName). Storage counts objects, and keeps the watch
// cache's revision, by it.
func collectionOfKey(key string) string {
	i := strings.IndexByte(key, '/')
	if i < 0 {
		return key
	}
	if j := strings.IndexByte(key[i+1:], '/'); j >= 0 {
		return key[:i+1+j]
	}
	return key
}

// collectionName is the collection of res's objects (collectionOfKey).
func collectionName(res *api.Resource) string {
	res = res.Storage()
	return groupSegment(res.Group) + "/" + res.Plural
}

// resourceForKey is the served resource a store key belongs to.
func resourceForKey(reg *api.Registry, key string) *api.Resource {
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
