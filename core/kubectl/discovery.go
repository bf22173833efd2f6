package kubectl

// discovery.go owns what kubectl knows of the server's resources: the
// aggregated discovery documents it fetches (/api, then /apis) on first need
// and keeps for the session, as kubectl keeps them in its disk cache, and
// the resolution of the names people type ("po", "deploy",
// "deployments.apps", "Deployment") to a resource, as kubectl's shortcut
// expander and RESTMapper do.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Resource is one API resource as discovery describes it.
type Resource struct {
	Group, Version, Resource, Kind string
	Namespaced                     bool
	Verbs                          []string
	ShortNames, Categories         []string
	Singular                       string
	// Subresources are the resource's subresources by name ("status",
	// "scale", "log"), each with its kind.
	Subresources map[string]string
}

// GroupVersion is "v1" for the core group, "group/version" otherwise.
func (r Resource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// GroupResource is "resource" or "resource.group", as kubectl names a
// resource in messages ("deployments.apps").
func (r Resource) GroupResource() string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

// Path is the resource's path: its collection in namespace (a cluster-scoped
// resource's ignores it; "" is every namespace's), or the object name in it.
func (r Resource) Path(namespace, name string) string {
	p := "/apis/" + r.Group + "/" + r.Version
	if r.Group == "" {
		p = "/api/" + r.Version
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

// HasVerb says whether discovery lists verb for the resource.
func (r Resource) HasVerb(verb string) bool {
	for _, v := range r.Verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// discoveryCache is the server's resources, in discovery's order: the core
// group's, then each group's as /apis lists them, each group's preferred
// version first.
type discoveryCache struct {
	groups    []apiGroup
	resources []Resource // every version's, preferred versions first within a group
	// fetchedBy is the command line that fetched it: for that one it is
	// fresh (client-go's CachedDiscoveryClient.Fresh), for later ones a
	// miss may mean it is stale.
	fetchedBy *Cmd
}

type apiGroup struct {
	Name     string
	Versions []string // preferred first
}

// aggregatedAccept is what kubectl 1.32 accepts from /api and /apis.
const aggregatedAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"

// discoveryTimeout is the timeout query kubectl's discovery client sends.
const discoveryTimeout = "32s"

// discoveryList is apidiscovery.k8s.io/v2's APIGroupDiscoveryList, as far as
// kubectl reads it.
type discoveryList struct {
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Versions []struct {
			Version   string `json:"version"`
			Resources []struct {
				Resource     string `json:"resource"`
				ResponseKind struct {
					Kind string `json:"kind"`
				} `json:"responseKind"`
				Scope            string   `json:"scope"`
				SingularResource string   `json:"singularResource"`
				Verbs            []string `json:"verbs"`
				ShortNames       []string `json:"shortNames"`
				Categories       []string `json:"categories"`
				Subresources     []struct {
					Subresource  string `json:"subresource"`
					ResponseKind struct {
						Kind string `json:"kind"`
					} `json:"responseKind"`
				} `json:"subresources"`
			} `json:"resources"`
		} `json:"versions"`
	} `json:"items"`
}

// Discovery is the server's resources, fetched on the session's first need.
func (c *Cmd) Discovery() (*discoveryCache, error) {
	if d := c.session.discovery; d != nil {
		return d, nil
	}
	d := &discoveryCache{fetchedBy: c}
	for _, path := range []string{"/api", "/apis"} {
		data, err := c.Do(&Request{Method: "GET", Path: path, Query: url.Values{"timeout": {discoveryTimeout}},
			Header: [][2]string{{"Accept", aggregatedAccept}}})
		if err != nil {
			return nil, fmt.Errorf("couldn't get current server API group list: %w", err)
		}
		var list discoveryList
		if err := json.Unmarshal(data, &list); err != nil {
			return nil, fmt.Errorf("couldn't get current server API group list: %w", err)
		}
		for _, g := range list.Items {
			group := apiGroup{Name: g.Metadata.Name}
			for _, v := range g.Versions {
				group.Versions = append(group.Versions, v.Version)
				for _, r := range v.Resources {
					res := Resource{Group: g.Metadata.Name, Version: v.Version, Resource: r.Resource, Kind: r.ResponseKind.Kind,
						Namespaced: r.Scope == "Namespaced", Verbs: r.Verbs, ShortNames: r.ShortNames, Categories: r.Categories,
						Singular: r.SingularResource}
					for _, s := range r.Subresources {
						if res.Subresources == nil {
							res.Subresources = map[string]string{}
						}
						res.Subresources[s.Subresource] = s.ResponseKind.Kind
					}
					d.resources = append(d.resources, res)
				}
			}
			d.groups = append(d.groups, group)
		}
	}
	c.session.discovery = d
	return d, nil
}

// Groups are the server's API groups in discovery's order, each with its
// versions, preferred first ("" is the core group).
func (d *discoveryCache) Groups() []apiGroup { return d.groups }

// Resources are every resource of every version, in discovery's order.
func (d *discoveryCache) Resources() []Resource { return d.resources }

// preferred says whether r is of its group's preferred version.
func (d *discoveryCache) preferred(r Resource) bool {
	for _, g := range d.groups {
		if g.Name == r.Group {
			return len(g.Versions) > 0 && g.Versions[0] == r.Version
		}
	}
	return false
}

// Resolve is the resource arg names, as kubectl resolves a TYPE argument: a
// short name, a plural or singular resource name or a kind, case-insensitive,
// optionally qualified as "resource.group" or "resource.version.group"; the
// core group's first, then the groups' in discovery's order, each at its
// preferred version unless arg names one.
func (c *Cmd) Resolve(arg string) (Resource, error) {
	r, err := c.resolve(arg)
	if c.staleMiss(err) {
		return c.resolve(arg)
	}
	return r, err
}

// staleMiss says whether err is a resource discovery did not know of, from a
// discovery an earlier command line fetched, which it then forgets: kubectl's
// deferred RESTMapper resets a cache that was not fresh and asks again (a
// CustomResourceDefinition made since, say).
func (c *Cmd) staleMiss(err error) bool {
	var unknown *unknownTypeError
	var noKind *NoKindMatchError
	d := c.session.discovery
	if d == nil || d.fetchedBy == c || !errors.As(err, &unknown) && !errors.As(err, &noKind) {
		return false
	}
	c.session.discovery = nil
	return true
}

// unknownTypeError is a TYPE argument discovery does not know.
type unknownTypeError struct{ arg string }

func (e *unknownTypeError) Error() string {
	return fmt.Sprintf("the server doesn't have a resource type %q", e.arg)
}

func (c *Cmd) resolve(arg string) (Resource, error) {
	d, err := c.Discovery()
	if err != nil {
		return Resource{}, err
	}
	// A short name expands to its resource (kubectl's shortcut expander)
	// before anything else: the first group's, with a warning naming each
	// other group's resource of that short name.
	if short := d.shortNamed(strings.ToLower(arg)); len(short) > 0 {
		for _, other := range short[1:] {
			fmt.Fprintf(c.Stderr, "Warning: short name %q could also match lower priority resource %s\n", strings.ToLower(arg), other.GroupResource())
		}
		return short[0], nil
	}
	name := strings.ToLower(arg)
	// "resource.version.group" first, as kubectl's ParseResourceArg reads
	// an argument with two dots or more; its miss on a discovery an earlier
	// command line fetched fetches discovery again (kubectl's deferred
	// RESTMapper), even when "resource.group" then finds it.
	if parts := strings.SplitN(name, ".", 3); len(parts) == 3 {
		if r, ok := d.find(parts[0], parts[2], parts[1], true); ok {
			return r, nil
		}
		if d.fetchedBy != c {
			c.session.discovery = nil
			if d, err = c.Discovery(); err != nil {
				return Resource{}, err
			}
			if r, ok := d.find(parts[0], parts[2], parts[1], true); ok {
				return r, nil
			}
		}
	}
	resource, group, qualified := name, "", false
	if i := strings.Index(name, "."); i > 0 {
		resource, group, qualified = name[:i], name[i+1:], true
	}
	if r, ok := d.find(resource, group, "", qualified); ok {
		return r, nil
	}
	return Resource{}, &unknownTypeError{arg}
}

// shortNamed are the resources (preferred versions) with the short name, in
// discovery's order.
func (d *discoveryCache) shortNamed(name string) []Resource {
	var out []Resource
	for _, r := range d.resources {
		if !d.preferred(r) {
			continue
		}
		for _, s := range r.ShortNames {
			if s == name {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// find is the resource named resource (plural, singular or kind) in group
// (any group unless qualified) at version (the preferred one if "").
func (d *discoveryCache) find(resource, group, version string, qualified bool) (Resource, bool) {
	for _, r := range d.resources {
		if qualified && r.Group != group {
			continue
		}
		if version == "" && !d.preferred(r) || version != "" && r.Version != version {
			continue
		}
		if r.Resource == resource || r.Singular == resource || strings.ToLower(r.Kind) == resource {
			return r, true
		}
	}
	return Resource{}, false
}

// ResourceFor is the resource of a manifest's apiVersion and kind, as
// kubectl's RESTMapper maps them.
func (c *Cmd) ResourceFor(apiVersion, kind string) (Resource, error) {
	r, err := c.resourceFor(apiVersion, kind)
	if c.staleMiss(err) {
		return c.resourceFor(apiVersion, kind)
	}
	return r, err
}

func (c *Cmd) resourceFor(apiVersion, kind string) (Resource, error) {
	d, err := c.Discovery()
	if err != nil {
		return Resource{}, err
	}
	group, version := "", apiVersion
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		group, version = apiVersion[:i], apiVersion[i+1:]
	}
	for _, r := range d.resources {
		if r.Group == group && r.Version == version && r.Kind == kind {
			return r, nil
		}
	}
	return Resource{}, &NoKindMatchError{APIVersion: apiVersion, Kind: kind}
}

// NoKindMatchError is a manifest's kind the server does not serve; kubectl
// prints it within "resource mapping not found for name: … from FILE: …
// ensure CRDs are installed first".
type NoKindMatchError struct{ APIVersion, Kind string }

func (e *NoKindMatchError) Error() string {
	return fmt.Sprintf("no matches for kind %q in version %q", e.Kind, e.APIVersion)
}

// Category is every resource of the category (kubectl's "all"), preferred
// versions only, in discovery's order.
func (c *Cmd) Category(name string) ([]Resource, error) {
	d, err := c.Discovery()
	if err != nil {
		return nil, err
	}
	var out []Resource
	for _, r := range d.resources {
		if !d.preferred(r) {
			continue
		}
		for _, cat := range r.Categories {
			if cat == name {
				out = append(out, r)
				break
			}
		}
	}
	return out, nil
}
