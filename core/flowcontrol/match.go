package flowcontrol

import (
	"slices"
	"strings"

	"kubeplay/core/object"
	"kubeplay/core/request"
	"kubeplay/core/user"
)

// Classification: a request goes to the first FlowSchema, by ascending
// matchingPrecedence and then name, with a rule that matches it: one of the
// rule's subjects is the user (by name, group, or service account), and one of
// its resource rules (for a resource request) or non-resource rules (otherwise)
// matches the verb and what is asked; "*" matches everything. As kube's rule.go.

// flowSchema is a FlowSchema as the filter uses it.
type flowSchema struct {
	name, uid     string
	precedence    int64
	level         string
	distinguisher string // "", "ByUser" or "ByNamespace"
	rules         []policyRules
}

type policyRules struct {
	subjects    []subject
	resources   []resourceRule
	nonResource []nonResourceRule
}

type subject struct {
	kind            string // User, Group, ServiceAccount
	name, namespace string
}

type resourceRule struct {
	verbs, groups, resources, namespaces []string
	clusterScope                         bool
}

type nonResourceRule struct{ verbs, urls []string }

// parseFlowSchema reads a stored FlowSchema.
func parseFlowSchema(obj object.Object) *flowSchema {
	spec, _ := obj["spec"].(map[string]any)
	fs := &flowSchema{
		name:       object.MetaString(obj, "name"),
		uid:        object.MetaString(obj, "uid"),
		precedence: object.Int(spec["matchingPrecedence"]),
	}
	fs.level, _ = object.Path(spec, "priorityLevelConfiguration", "name").(string)
	fs.distinguisher, _ = object.Path(spec, "distinguisherMethod", "type").(string)
	rules, _ := spec["rules"].([]any)
	for _, r := range rules {
		rm, _ := r.(map[string]any)
		var pr policyRules
		subjects, _ := rm["subjects"].([]any)
		for _, s := range subjects {
			sm, _ := s.(map[string]any)
			sub := subject{kind: str(sm["kind"])}
			switch sub.kind {
			case "User":
				sub.name, _ = object.Path(sm, "user", "name").(string)
			case "Group":
				sub.name, _ = object.Path(sm, "group", "name").(string)
			case "ServiceAccount":
				sub.name, _ = object.Path(sm, "serviceAccount", "name").(string)
				sub.namespace, _ = object.Path(sm, "serviceAccount", "namespace").(string)
			}
			pr.subjects = append(pr.subjects, sub)
		}
		rrs, _ := rm["resourceRules"].([]any)
		for _, x := range rrs {
			m, _ := x.(map[string]any)
			cs, _ := m["clusterScope"].(bool)
			pr.resources = append(pr.resources, resourceRule{verbs: object.Strings(m, "verbs"), groups: object.Strings(m, "apiGroups"),
				resources: object.Strings(m, "resources"), namespaces: object.Strings(m, "namespaces"), clusterScope: cs})
		}
		nrs, _ := rm["nonResourceRules"].([]any)
		for _, x := range nrs {
			m, _ := x.(map[string]any)
			pr.nonResource = append(pr.nonResource, nonResourceRule{verbs: object.Strings(m, "verbs"), urls: object.Strings(m, "nonResourceURLs")})
		}
		fs.rules = append(fs.rules, pr)
	}
	return fs
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// sortFlowSchemas orders schemas for matching: precedence, then name.
func sortFlowSchemas(fss []*flowSchema) {
	slices.SortStableFunc(fss, func(a, b *flowSchema) int {
		if a.precedence != b.precedence {
			if a.precedence < b.precedence {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
}

func (fs *flowSchema) matches(u user.User, info *request.RequestInfo) bool {
	for _, r := range fs.rules {
		if r.matches(u, info) {
			return true
		}
	}
	return false
}

func (r *policyRules) matches(u user.User, info *request.RequestInfo) bool {
	if !slices.ContainsFunc(r.subjects, func(s subject) bool { return s.matches(u) }) {
		return false
	}
	if info.IsResourceRequest {
		return slices.ContainsFunc(r.resources, func(rr resourceRule) bool { return rr.matches(info) })
	}
	return slices.ContainsFunc(r.nonResource, func(nr nonResourceRule) bool { return nr.matches(info) })
}

func (s subject) matches(u user.User) bool {
	switch s.kind {
	case "User":
		return s.name == "*" || s.name == u.Name
	case "Group":
		return s.name == "*" || u.InGroup(s.name)
	case "ServiceAccount":
		prefix := "system:serviceaccount:" + s.namespace + ":"
		if s.name == "*" {
			return strings.HasPrefix(u.Name, prefix)
		}
		return u.Name == prefix+s.name
	}
	return false
}

func (rr resourceRule) matches(info *request.RequestInfo) bool {
	resource := info.Resource
	if info.Subresource != "" {
		resource += "/" + info.Subresource
	}
	if !containsOrAll(rr.verbs, info.Verb) || !containsOrAll(rr.resources, resource) || !containsOrAll(rr.groups, info.APIGroup) {
		return false
	}
	if info.Namespace == "" {
		return rr.clusterScope
	}
	return containsOrAll(rr.namespaces, info.Namespace)
}

func (nr nonResourceRule) matches(info *request.RequestInfo) bool {
	if !containsOrAll(nr.verbs, info.Verb) {
		return false
	}
	for _, u := range nr.urls {
		if u == "*" || u == info.Path {
			return true
		}
		// kube's prefix rule: "/foo/*" and "/foo" both match "/foo/bar".
		prefix := strings.TrimSuffix(u, "*")
		if !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
		if strings.HasPrefix(info.Path, prefix) {
			return true
		}
	}
	return false
}

// containsOrAll: the list is ["*"], or has x.
func containsOrAll(list []string, x string) bool {
	return len(list) == 1 && list[0] == "*" || slices.Contains(list, x)
}

// flowDistinguisher is the part of a flow's name the schema's method picks.
func (fs *flowSchema) flowDistinguisher(u user.User, info *request.RequestInfo) string {
	switch fs.distinguisher {
	case "ByUser":
		return u.Name
	case "ByNamespace":
		return info.Namespace
	}
	return ""
}
