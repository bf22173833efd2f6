package api

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/version"

	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// TestK8S_URI_4_VersionOrderAsKube orders versions as kube's discovery does
// (k8s.io/apimachinery's CompareKubeAwareVersionStrings, a test-only
// dependency): every pair of a list of versions, Kubernetes-like or not.
// (Not v0 or v01: kube's pattern takes a major version of 0 or with a
// leading zero as Kubernetes-like, kubeplay's reading does not.)
func TestK8S_URI_4_VersionOrderAsKube(t *testing.T) {
	versions := []string{"v1", "v2", "v10", "v1beta1", "v1beta2", "v2beta1", "v1alpha1", "v1alpha10", "v3alpha2",
		"v1gamma1", "v1beta", "foo", "bar", "v", "1", "v1beta1x", "V1", ""}
	for _, a := range versions {
		for _, b := range versions {
			if a == b {
				continue
			}
			if got, want := versionBefore(a, b), version.CompareKubeAwareVersionStrings(a, b) > 0; got != want {
				t.Errorf("versionBefore(%q, %q) = %v, kube's order says %v", a, b, got, want)
			}
		}
	}
}

// TestK8S_URI_4_RegistryServesAndForgets: the served group versions are the
// core group's first, then the built-in groups in kube-apiserver's order,
// then the others by name, an aggregated server's (remote) last, each
// group's versions in kube's order; a resource
// removed is no longer found, listed or counted in its group; a resource
// added again under the same name replaces the first in place.
func TestK8S_URI_4_RegistryServesAndForgets(t *testing.T) {
	thing := func(group, version string) *Resource {
		return &Resource{Group: group, Version: version, Kind: "Thing", Plural: "things", Namespaced: true, Verbs: []string{"get", "list"},
			Subs: []Subresource{{Name: "status"}}, Fields: map[string]func(object.Object) string{"spec.color": func(o object.Object) string { return object.String(object.Path(o, "spec", "color")) }}}
	}
	metrics := thing("metrics.k8s.io", "v1beta1")
	metrics.Remote = web.HandlerFunc(func(web.ResponseWriter, *web.Request) {})
	reg := NewRegistry(thing("zeta.example.com", "v1"), thing("apps", "v1"), metrics, thing("", "v1"), thing("alpha.example.com", "v1alpha1"),
		thing("alpha.example.com", "v1"), thing("alpha.example.com", "v2beta1"), thing("batch", "v1"))
	var got []string
	for _, gv := range reg.GroupVersions() {
		got = append(got, gv.String())
	}
	want := []string{"v1", "apps/v1", "batch/v1", "alpha.example.com/v1", "alpha.example.com/v2beta1", "alpha.example.com/v1alpha1", "zeta.example.com/v1",
		"metrics.k8s.io/v1beta1"}
	if !slices.Equal(got, want) {
		t.Errorf("group versions\n got %q\nwant %q", got, want)
	}
	r := reg.Lookup("alpha.example.com", "v1", "things")
	if r == nil || r.APIVersion() != "alpha.example.com/v1" || r.ListKind() != "ThingList" || !r.HasVerb("list") || r.HasVerb("delete") ||
		r.Sub("status") == nil || r.Sub("scale") != nil || r.Storage() != r {
		t.Fatalf("lookup %+v", r)
	}
	if !r.SupportsField("spec.color") || !r.SupportsField("metadata.namespace") || r.SupportsField("spec.size") {
		t.Error("field selector fields")
	}
	fs := r.FieldSet(object.Object{"metadata": map[string]any{"name": "n", "namespace": "ns"}, "spec": map[string]any{"color": "red"}})
	if fs["metadata.name"] != "n" || fs["metadata.namespace"] != "ns" || fs["spec.color"] != "red" {
		t.Errorf("field set %v", fs)
	}
	gen := reg.Generation()
	replacement := thing("alpha.example.com", "v1")
	reg.Add(replacement)
	if reg.Lookup("alpha.example.com", "v1", "things") != replacement || len(reg.All()) != 8 || reg.All()[5] != replacement {
		t.Error("a resource added again is not replaced in place")
	}
	reg.Remove("alpha.example.com", "v1", "things")
	reg.Remove("alpha.example.com", "v1", "things") // gone already: no change
	if reg.Lookup("alpha.example.com", "v1", "things") != nil || len(reg.Resources(GroupVersion{"alpha.example.com", "v1"})) != 0 || len(reg.All()) != 7 {
		t.Error("a removed resource is still served")
	}
	if reg.Generation() != gen+2 || !reg.ServesGroup("alpha.example.com") || reg.ByGroupResource("alpha.example.com", "things") == nil {
		t.Errorf("generation %d (want %d); the group's other versions still served", reg.Generation(), gen+2)
	}
	reg.Remove("alpha.example.com", "v2beta1", "things")
	reg.Remove("alpha.example.com", "v1alpha1", "things")
	if reg.ServesGroup("alpha.example.com") || reg.ByGroupResource("alpha.example.com", "things") != nil {
		t.Error("a group with no resources left is still served")
	}
}

// TestXDS_6_GroupServed: the xDS group's kinds are served cluster-scoped,
// in the xds category, with every verb, validated by the check the host
// supplies.
func TestXDS_6_GroupServed(t *testing.T) {
	var checked []string
	rs := XDS(func(kind string, obj object.Object) field.ErrorList {
		checked = append(checked, kind)
		return nil
	})
	if len(rs) != len(XDSKinds) {
		t.Fatalf("%d resources for %d kinds", len(rs), len(XDSKinds))
	}
	for i, r := range rs {
		if r.Group != XDSGroup || r.Namespaced || !slices.Equal(r.Categories, []string{"xds"}) || !r.HasVerb("watch") || r.Plural != XDSKinds[i].Plural {
			t.Errorf("%s: %+v", r.Kind, r)
		}
		r.Hooks.Validate(object.Object{})
	}
	if len(checked) != len(rs) || checked[0] != "Listener" {
		t.Errorf("checked %q", checked)
	}
}
