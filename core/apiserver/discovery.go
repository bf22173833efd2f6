package apiserver

import (
	"runtime"
	"sort"
	"strings"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/request"
	"kubeplay/core/version"
	"kubeplay/core/web"
)

// Aggregated discovery media types, as kube-apiserver and client-go spell them.
const (
	aggregatedV2      = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	aggregatedV2beta1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
)

type apiVersions struct {
	Kind                       string          `json:"kind"`
	Versions                   []string        `json:"versions"`
	ServerAddressByClientCIDRs []serverAddress `json:"serverAddressByClientCIDRs"`
}

type serverAddress struct {
	ClientCIDR    string `json:"clientCIDR"`
	ServerAddress string `json:"serverAddress"`
}

type groupVersionForDiscovery struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

type apiGroup struct {
	Name             string                     `json:"name"`
	Versions         []groupVersionForDiscovery `json:"versions"`
	PreferredVersion groupVersionForDiscovery   `json:"preferredVersion"`
}

type apiGroupList struct {
	Kind       string     `json:"kind"`
	APIVersion string     `json:"apiVersion"`
	Groups     []apiGroup `json:"groups"`
}

type apiResource struct {
	Name               string   `json:"name"`
	SingularName       string   `json:"singularName"`
	Namespaced         bool     `json:"namespaced"`
	Group              string   `json:"group,omitempty"`
	Version            string   `json:"version,omitempty"`
	Kind               string   `json:"kind"`
	Verbs              []string `json:"verbs"`
	ShortNames         []string `json:"shortNames,omitempty"`
	Categories         []string `json:"categories,omitempty"`
	StorageVersionHash string   `json:"storageVersionHash,omitempty"`
}

type apiResourceList struct {
	Kind         string        `json:"kind"`
	APIVersion   string        `json:"apiVersion,omitempty"`
	GroupVersion string        `json:"groupVersion"`
	Resources    []apiResource `json:"resources"`
}

// Aggregated discovery (apidiscovery.k8s.io/v2).
type discoveryList struct {
	Kind       string           `json:"kind"`
	APIVersion string           `json:"apiVersion"`
	Metadata   struct{}         `json:"metadata"`
	Items      []discoveryGroup `json:"items"`
}

type discoveryGroup struct {
	Metadata discoveryMeta      `json:"metadata"`
	Versions []discoveryVersion `json:"versions"`
}

type discoveryMeta struct {
	Name              string `json:"name,omitempty"`
	CreationTimestamp any    `json:"creationTimestamp"`
}

type discoveryVersion struct {
	Version   string              `json:"version"`
	Resources []discoveryResource `json:"resources"`
	Freshness string              `json:"freshness"`
}

type groupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type discoveryResource struct {
	Resource         string                 `json:"resource"`
	ResponseKind     groupVersionKind       `json:"responseKind"`
	Scope            string                 `json:"scope"`
	SingularResource string                 `json:"singularResource"`
	Verbs            []string               `json:"verbs"`
	ShortNames       []string               `json:"shortNames,omitempty"`
	Categories       []string               `json:"categories,omitempty"`
	Subresources     []discoverySubresource `json:"subresources,omitempty"`
}

type discoverySubresource struct {
	Subresource  string           `json:"subresource"`
	ResponseKind groupVersionKind `json:"responseKind"`
	Verbs        []string         `json:"verbs"`
}

// wantsAggregated returns the aggregated discovery media type the Accept header
// prefers, or "" for the legacy documents.
func wantsAggregated(r *web.Request) string {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt := strings.ReplaceAll(strings.TrimSpace(part), " ", "")
		if i := strings.Index(mt, ";q="); i >= 0 {
			mt = mt[:i]
		}
		switch mt {
		case aggregatedV2:
			return aggregatedV2
		case aggregatedV2beta1:
			return aggregatedV2beta1
		case "application/json", "*/*", "application/*":
			return ""
		}
	}
	return ""
}

func (s *Server) serveDiscovery(w web.ResponseWriter, r *web.Request) {
	if r.Method != web.MethodGet && r.Method != web.MethodHead {
		writeStatus(w, apierrors.NewMethodNotAllowed())
		return
	}
	parts := request.SplitPath(r.URL.Path)
	gvs := s.kinds.GroupVersions()
	switch {
	case len(parts) == 1 && parts[0] == "api":
		if mt := wantsAggregated(r); mt != "" {
			s.writeAggregated(w, mt, true, gvs)
			return
		}
		writeJSON(w, web.StatusOK, apiVersions{Kind: "APIVersions", Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []serverAddress{{ClientCIDR: "0.0.0.0/0", ServerAddress: serverAddr(r)}}})
	case len(parts) == 1 && parts[0] == "apis":
		if mt := wantsAggregated(r); mt != "" {
			s.writeAggregated(w, mt, false, gvs)
			return
		}
		list := apiGroupList{Kind: "APIGroupList", APIVersion: "v1", Groups: []apiGroup{}}
		for _, g := range groupsOf(gvs) {
			list.Groups = append(list.Groups, g)
		}
		writeJSON(w, web.StatusOK, list)
	case len(parts) == 2 && parts[0] == "api" && parts[1] == "v1":
		writeJSON(w, web.StatusOK, s.resourceList(api.GroupVersion{Version: "v1"}))
	case len(parts) == 2 && parts[0] == "apis":
		for _, g := range groupsOf(gvs) {
			if g.Name == parts[1] {
				writeJSON(w, web.StatusOK, struct {
					Kind       string `json:"kind"`
					APIVersion string `json:"apiVersion"`
					apiGroup
				}{"APIGroup", "v1", g})
				return
			}
		}
		writeStatus(w, apierrors.NewPathNotFound())
	case len(parts) == 3 && parts[0] == "apis":
		gv := api.GroupVersion{Group: parts[1], Version: parts[2]}
		if len(s.kinds.Resources(gv)) == 0 {
			writeStatus(w, apierrors.NewPathNotFound())
			return
		}
		writeJSON(w, web.StatusOK, s.resourceList(gv))
	default:
		writeStatus(w, apierrors.NewPathNotFound())
	}
}

func serverAddr(r *web.Request) string {
	host := r.Host
	if !web.HasPort(host) {
		host = web.JoinHostPort(host, "443")
	}
	return host
}

// groupsOf lists the non-core groups with their versions, preferred first.
func groupsOf(gvs []api.GroupVersion) []apiGroup {
	var out []apiGroup
	index := map[string]int{}
	for _, gv := range gvs {
		if gv.Group == "" {
			continue
		}
		v := groupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version}
		i, ok := index[gv.Group]
		if !ok {
			index[gv.Group] = len(out)
			out = append(out, apiGroup{Name: gv.Group, PreferredVersion: v})
			i = len(out) - 1
		}
		out[i].Versions = append(out[i].Versions, v)
	}
	return out
}

func (s *Server) resourceList(gv api.GroupVersion) apiResourceList {
	list := apiResourceList{Kind: "APIResourceList", APIVersion: "v1", GroupVersion: gv.String(), Resources: []apiResource{}}
	if gv.Group == "" {
		list.APIVersion = ""
	}
	for _, res := range s.discovered(gv) {
		list.Resources = append(list.Resources, apiResource{
			Name: res.Plural, SingularName: res.Singular, Namespaced: res.Namespaced, Kind: res.Kind,
			Verbs: res.Verbs, ShortNames: res.ShortNames, Categories: res.Categories,
		})
		for _, sub := range res.Subs {
			ar := apiResource{Name: res.Plural + "/" + sub.Name, Namespaced: res.Namespaced, Kind: sub.Kind, Verbs: sub.Verbs}
			if sub.Group != res.Group {
				ar.Group, ar.Version = sub.Group, subVersion(sub)
			}
			list.Resources = append(list.Resources, ar)
		}
	}
	return list
}

// discovered are the resources of gv in the order discovery lists them:
// built-in ones by name, as kube sorts its storage's paths; custom ones as
// their definitions have them.
func (s *Server) discovered(gv api.GroupVersion) []*api.Resource {
	rs := s.kinds.Resources(gv)
	if len(rs) > 0 && rs[0].Custom == nil {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].Plural < rs[j].Plural })
	}
	return rs
}

// subVersion is the version of a subresource's kind when it lives in another group.
func subVersion(sub api.Subresource) string {
	if sub.Group == "" || sub.Group == "policy" || sub.Group == "autoscaling" || sub.Group == "authentication.k8s.io" {
		return "v1"
	}
	return ""
}

func (s *Server) writeAggregated(w web.ResponseWriter, mediaType string, core bool, gvs []api.GroupVersion) {
	apiVersion := "apidiscovery.k8s.io/v2"
	if mediaType == aggregatedV2beta1 {
		apiVersion = "apidiscovery.k8s.io/v2beta1"
	}
	list := discoveryList{Kind: "APIGroupDiscoveryList", APIVersion: apiVersion, Items: []discoveryGroup{}}
	index := map[string]int{}
	for _, gv := range gvs {
		if (gv.Group == "") != core {
			continue
		}
		i, ok := index[gv.Group]
		if !ok {
			index[gv.Group] = len(list.Items)
			list.Items = append(list.Items, discoveryGroup{Metadata: discoveryMeta{Name: gv.Group}})
			i = len(list.Items) - 1
		}
		v := discoveryVersion{Version: gv.Version, Freshness: "Current", Resources: []discoveryResource{}}
		for _, res := range s.discovered(gv) {
			scope := "Cluster"
			if res.Namespaced {
				scope = "Namespaced"
			}
			// kube names a built-in kind's group and version only where
			// they are not the resource's (a Scale); a custom resource's
			// always.
			own := groupVersionKind{Kind: res.Kind}
			if res.Custom != nil {
				own.Group, own.Version = res.Group, res.Version
			}
			dr := discoveryResource{
				Resource: res.Plural, Scope: scope, SingularResource: res.Singular, Verbs: res.Verbs,
				ResponseKind: own, ShortNames: res.ShortNames, Categories: res.Categories,
			}
			for _, sub := range res.Subs {
				gvk := own
				gvk.Kind = sub.Kind
				if sub.Group != res.Group {
					gvk.Group, gvk.Version = sub.Group, subVersion(sub)
				}
				dr.Subresources = append(dr.Subresources, discoverySubresource{Subresource: sub.Name, ResponseKind: gvk, Verbs: sub.Verbs})
			}
			v.Resources = append(v.Resources, dr)
		}
		list.Items[i].Versions = append(list.Items[i].Versions, v)
	}
	w.Header().Set("Vary", "Accept")
	b, err := jsonMarshal(list)
	if err != nil {
		writeStatus(w, apierrors.NewInternal(err))
		return
	}
	writeBody(w, web.StatusOK, mediaType, b)
}

func (s *Server) serveVersion(w web.ResponseWriter, r *web.Request) {
	if r.Method != web.MethodGet && r.Method != web.MethodHead {
		writeStatus(w, apierrors.NewMethodNotAllowed())
		return
	}
	writeJSON(w, web.StatusOK, version.NewInfo(version.Server, runtime.GOOS+"/"+runtime.GOARCH))
}
