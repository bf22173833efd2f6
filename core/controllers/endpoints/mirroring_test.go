package endpoints

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"kubeplay/core/object"
)

// customEndpoints are the Endpoints someone writes for the Service custom.
func customEndpoints(subsets ...any) object.Object {
	return object.Object{"apiVersion": "v1", "kind": "Endpoints", "metadata": map[string]any{"name": "custom",
		"labels":      map[string]any{"team": "a"},
		"annotations": map[string]any{"note": "kept", lastApplied: "{}", lastChangeTrigger: "2026-03-01T09:00:00Z"}},
		"subsets": subsets}
}

func rawSubset(ports []any, ready, notReady []string) map[string]any {
	s := map[string]any{"ports": ports}
	for kind, ips := range map[string][]string{"addresses": ready, "notReadyAddresses": notReady} {
		var as []any
		for _, ip := range ips {
			as = append(as, map[string]any{"ip": ip})
		}
		if as != nil {
			s[kind] = as
		}
	}
	return s
}

func tcp(n int) []any { return []any{map[string]any{"port": n, "protocol": "TCP"}} }

// mirroredSlices are the mirrored slices, each as "type ports: ip/ready ...",
// sorted.
func (h *harness) mirroredSlices() []string {
	var out []string
	for _, es := range h.api.List(slicesAt) {
		if object.Labels(es)[managedByLabel] != mirroredBy {
			continue
		}
		var ps, eps []string
		for _, p := range object.Objects(es, "ports") {
			ps = append(ps, fmt.Sprint(p["port"]))
		}
		for _, e := range object.Objects(es, "endpoints") {
			eps = append(eps, fmt.Sprint(e["addresses"].([]any)[0], "/", object.Path(e, "conditions", "ready")))
		}
		out = append(out, es["addressType"].(string)+" "+strings.Join(ps, ",")+": "+strings.Join(eps, " "))
	}
	slices.Sort(out)
	return out
}

// TestSIM_1_EndpointSliceMirroring: the Endpoints of a Service without a
// selector are mirrored into EndpointSlices (the mirroring controller's
// labels, the Endpoints' labels and annotations but kubectl's and the
// trigger time, controlled by the Endpoints), one per address type and set
// of ports, readiness kept; an update is mirrored into the same slice, a
// slice to create takes the name of one to delete; the slices go with the
// Endpoints, or when the Service gets a selector; a leader election's or
// skipped Endpoints are not mirrored.
func TestSIM_1_EndpointSliceMirroring(t *testing.T) {
	h := newHarness(t)
	h.api.Create(services, object.Object{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "custom"},
		"spec": map[string]any{"clusterIP": "10.96.0.20", "ports": []any{map[string]any{"name": "example", "port": 80, "protocol": "TCP"}}}})
	ep := h.api.Create(endpoints, customEndpoints(rawSubset(tcp(80), []string{"10.1.2.3"}, nil)))
	got := h.syncMirror("default/custom")
	if len(got) != 1 || !strings.HasPrefix(got[0], "create endpointslices default/custom-") {
		t.Fatalf("writes %q", got)
	}
	es := h.api.List(slicesAt)[0]
	name := object.MetaString(es, "name")
	l, refs := object.Labels(es), object.Objects(object.Meta(es), "ownerReferences")
	if l[serviceNameLabel] != "custom" || l[managedByLabel] != mirroredBy || l["team"] != "a" || len(refs) != 1 || refs[0]["kind"] != "Endpoints" || refs[0]["uid"] != object.MetaString(ep, "uid") {
		t.Errorf("labels %v, owners %v", l, refs)
	}
	if a := object.Meta(es)["annotations"]; fmt.Sprint(a) != "map[note:kept]" {
		t.Errorf("annotations %v", a)
	}
	if got := h.mirroredSlices(); !slices.Equal(got, []string{"IPv4 80: 10.1.2.3/true"}) {
		t.Errorf("slices %q", got)
	}
	if got := h.syncMirror("default/custom"); len(got) != 0 {
		t.Errorf("a second sync wrote %q", got)
	}

	h.api.Edit(endpoints+"/custom", func(o object.Object) {
		o["subsets"] = []any{rawSubset(tcp(80), []string{"10.2.3.4"}, nil)}
	})
	if got := h.syncMirror("default/custom"); !slices.Equal(got, []string{"update endpointslices default/" + name}) {
		t.Errorf("an update mirrored as %q", got)
	}
	if got := h.mirroredSlices(); !slices.Equal(got, []string{"IPv4 80: 10.2.3.4/true"}) {
		t.Errorf("slices %q", got)
	}

	h.api.Edit(endpoints+"/custom", func(o object.Object) {
		o["subsets"] = []any{rawSubset(tcp(81), []string{"10.2.3.4", "fd00::1", "not-an-ip"}, []string{"10.9.9.9"}),
			rawSubset(tcp(82), nil, []string{"10.9.9.9"})}
	})
	got = h.syncMirror("default/custom")
	if !slices.Contains(got, "update endpointslices default/"+name) || len(got) != 3 {
		t.Errorf("new ports mirrored as %q, want the slice recycled and two created", got)
	}
	want := []string{"IPv4 81: 10.2.3.4/true 10.9.9.9/false", "IPv4 82: 10.9.9.9/false", "IPv6 81: fd00::1/true"}
	if got := h.mirroredSlices(); !slices.Equal(got, want) {
		t.Errorf("slices\n got %q\nwant %q", got, want)
	}

	h.api.Edit(services+"/custom", func(o object.Object) { o["spec"].(map[string]any)["selector"] = map[string]any{"app": "x"} })
	if got := h.syncMirror("default/custom"); len(got) != 3 || len(h.mirroredSlices()) != 0 {
		t.Errorf("a selector: writes %q, slices %q", got, h.mirroredSlices())
	}
	h.api.Edit(services+"/custom", func(o object.Object) { delete(o["spec"].(map[string]any), "selector") })
	h.syncMirror("default/custom")
	if n := len(h.mirroredSlices()); n != 3 {
		t.Errorf("selector gone: %d slices", n)
	}
	h.api.Remove(endpoints + "/custom")
	if got := h.syncMirror("default/custom"); len(got) != 3 || len(h.mirroredSlices()) != 0 {
		t.Errorf("Endpoints gone: writes %q, slices %q", got, h.mirroredSlices())
	}

	for _, meta := range []map[string]any{
		{"name": "custom", "labels": map[string]any{skipMirrorLabel: "true"}},
		{"name": "custom", "annotations": map[string]any{leaderAnnotation: "{}"}},
	} {
		h.api.Create(endpoints, object.Object{"apiVersion": "v1", "kind": "Endpoints", "metadata": meta, "subsets": []any{rawSubset(tcp(80), []string{"10.1.2.3"}, nil)}})
		if got := h.syncMirror("default/custom"); len(got) != 0 {
			t.Errorf("%v mirrored: %q", meta, got)
		}
		h.api.Remove(endpoints + "/custom")
	}
}
