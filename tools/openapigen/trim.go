package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"kubeplay/core/api"
)

// served says which API paths kubeplay serves: the group and version
// discovery paths of the served groups, /version, and each served resource's
// collection, object, watch and served subresource paths.
type served struct {
	resources map[string]map[string]*api.Resource // by group-version path ("api/v1") and plural
	groups    map[string]bool                     // "api", "apis", "apis/apps", "version"
}

func servedPaths(reg *api.Registry) *served {
	s := &served{resources: map[string]map[string]*api.Resource{}, groups: map[string]bool{"apis": true, "version": true}}
	for _, r := range reg.All() {
		gv := gvPath(api.GroupVersion{Group: r.Group, Version: r.Version})
		if s.resources[gv] == nil {
			s.resources[gv] = map[string]*api.Resource{}
		}
		s.resources[gv][r.Plural] = r
		s.groups[groupPath(r.Group)] = true
	}
	return s
}

// v3Documents are the paths of the v3 documents kubeplay serves: each served
// group version's (in discovery order), each group's, and /apis's and /version's.
func v3Documents(reg *api.Registry) []string {
	var out []string
	seen := map[string]bool{}
	for _, gv := range reg.GroupVersions() {
		if g := groupPath(gv.Group); !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
		out = append(out, gvPath(gv))
	}
	return append(out, "apis", "version")
}

func gvPath(gv api.GroupVersion) string { return groupPath(gv.Group) + "/" + gv.Version }

func groupPath(group string) string {
	if group == "" {
		return "api"
	}
	return "apis/" + group
}

// has says whether kubeplay serves the API path p ("/api/v1/namespaces/{namespace}/pods").
func (s *served) has(p string) bool {
	trimmed := strings.Trim(p, "/")
	if s.groups[trimmed] {
		return true
	}
	for gv, resources := range s.resources {
		rest, ok := strings.CutPrefix(trimmed, gv)
		if !ok || rest != "" && rest[0] != '/' {
			continue
		}
		if rest == "" {
			return true // the group version's resource list
		}
		segs := strings.Split(rest[1:], "/")
		if segs[0] == "watch" {
			segs = segs[1:]
		}
		if len(segs) >= 3 && segs[0] == "namespaces" && segs[1] == "{namespace}" {
			segs = segs[2:]
		}
		r := resources[segs[0]]
		switch {
		case r == nil:
			return false
		case len(segs) == 1:
			return true
		case segs[1] != "{name}":
			return false
		case len(segs) == 2:
			return true
		case len(segs) == 3:
			return r.Sub(segs[2]) != nil
		case len(segs) == 4 && segs[2] == "proxy" && segs[3] == "{path}":
			return r.Sub("proxy") != nil // a proxy's path goes on
		}
		return false
	}
	return false
}

// trimV3 keeps the served paths of a v3 document and the schemas they
// reference, with kube-apiserver's info.version and enums.
func trimV3(doc map[string]any, s *served, enums map[string]*enumSchema, version string) error {
	paths, err := keepPaths(doc, s)
	if err != nil {
		return err
	}
	components, _ := doc["components"].(map[string]any)
	schemas, _ := components["schemas"].(map[string]any)
	kept := map[string]any{}
	if err := closure(paths, "#/components/schemas/", schemas, kept); err != nil {
		return err
	}
	if len(kept) > 0 {
		components["schemas"] = kept
	} else {
		delete(components, "schemas")
	}
	doc["info"].(map[string]any)["version"] = version
	return overlayEnums(kept, enums)
}

// trimV2 keeps the served paths of the v2 document and the definitions and
// shared parameters they reference, with kube-apiserver's info.version and enums.
func trimV2(doc map[string]any, s *served, enums map[string]*enumSchema, version string) error {
	paths, err := keepPaths(doc, s)
	if err != nil {
		return err
	}
	params, _ := doc["parameters"].(map[string]any)
	keptParams := map[string]any{}
	if err := closure(paths, "#/parameters/", params, keptParams); err != nil {
		return err
	}
	doc["parameters"] = keptParams
	defs, _ := doc["definitions"].(map[string]any)
	kept := map[string]any{}
	if err := closure([]any{paths, keptParams}, "#/definitions/", defs, kept); err != nil {
		return err
	}
	doc["definitions"] = kept
	doc["info"].(map[string]any)["version"] = version
	return overlayEnums(kept, enums)
}

// keepPaths drops the paths kubeplay does not serve and returns the rest.
func keepPaths(doc map[string]any, s *served) (map[string]any, error) {
	paths, ok := doc["paths"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no paths")
	}
	for p := range paths {
		if !s.has(p) {
			delete(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no served paths")
	}
	return paths, nil
}

// closure copies into kept every entry of all that v references through
// "$ref": prefix+name, and what those reference in turn.
func closure(v any, prefix string, all, kept map[string]any) error {
	var names []string
	collectRefs(v, prefix, &names)
	for len(names) > 0 {
		n := names[len(names)-1]
		names = names[:len(names)-1]
		if _, done := kept[n]; done {
			continue
		}
		def, ok := all[n]
		if !ok {
			return fmt.Errorf("%s%s is referenced but not defined", prefix, n)
		}
		kept[n] = def
		collectRefs(def, prefix, &names)
	}
	return nil
}

func collectRefs(v any, prefix string, names *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if ref, ok := v[k].(string); ok && k == "$ref" && strings.HasPrefix(ref, prefix) {
				*names = append(*names, strings.TrimPrefix(ref, prefix))
				continue
			}
			collectRefs(v[k], prefix, names)
		}
	case []any:
		for _, e := range v {
			collectRefs(e, prefix, names)
		}
	}
}
