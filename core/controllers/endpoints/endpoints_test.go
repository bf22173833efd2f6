package endpoints

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kubeplay/core/client/clienttest"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
)

// harness is both endpoint controllers on a fake API and a fake clock; their
// informers run, the test syncs keys itself.
type harness struct {
	t     *testing.T
	api   *clienttest.API
	clock *clock.Fake
	cs    *Controllers
}

const (
	services  = "/api/v1/namespaces/default/services"
	pods      = "/api/v1/namespaces/default/pods"
	endpoints = "/api/v1/namespaces/default/endpoints"
	slicesAt  = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"
)

func newHarness(t *testing.T) *harness {
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	api := clienttest.New(t, clk)
	cs := New(api, clk)
	api.Run(cs.services, cs.pods, cs.slices.slices, cs.endpoints.endpoints, cs.mirror.slices)
	return &harness{t: t, api: api, clock: clk, cs: cs}
}

func (h *harness) syncEndpoints(key string) []string {
	h.t.Helper()
	ws, err := h.api.Sync(h.cs.endpoints.sync, key, h.cs.services, h.cs.pods, h.cs.endpoints.endpoints)
	if err != nil {
		h.t.Fatalf("sync %s: %v", key, err)
	}
	return clienttest.Changes(ws)
}

func (h *harness) syncMirror(key string) []string {
	h.t.Helper()
	ws, err := h.api.Sync(h.cs.mirror.sync, key, h.cs.services, h.cs.endpoints.endpoints, h.cs.mirror.slices)
	if err != nil {
		h.t.Fatalf("sync %s: %v", key, err)
	}
	return clienttest.Changes(ws)
}

func (h *harness) syncSlices(key string) []string {
	h.t.Helper()
	ws, err := h.api.Sync(h.cs.slices.sync, key, h.cs.services, h.cs.pods, h.cs.slices.slices)
	if err != nil {
		h.t.Fatalf("sync %s: %v", key, err)
	}
	return clienttest.Changes(ws)
}

func newService(publishNotReady bool) object.Object {
	return object.Object{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "web", "labels": map[string]any{"team": "a"}},
		"spec": map[string]any{"selector": map[string]any{"app": "web"}, "clusterIP": "10.96.0.10", "publishNotReadyAddresses": publishNotReady,
			"ports": []any{
				map[string]any{"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"},
				map[string]any{"name": "metrics", "port": 9090, "targetPort": 9090, "protocol": "TCP"}}}}
}

// newPod is a Pod of the Service's selection at ip (none when ""), ready or
// not, naming its container port http when httpPort is not 0.
func newPod(name, ip string, ready bool, httpPort int) object.Object {
	c := map[string]any{"name": "c", "image": "nginx"}
	if httpPort != 0 {
		c["ports"] = []any{map[string]any{"name": "http", "containerPort": httpPort, "protocol": "TCP"}}
	}
	status := "False"
	if ready {
		status = "True"
	}
	return object.Object{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name, "labels": map[string]any{"app": "web"}},
		"spec":   map[string]any{"nodeName": "n1", "containers": []any{c}},
		"status": map[string]any{"phase": "Running", "podIP": ip, "conditions": []any{map[string]any{"type": "Ready", "status": status}}}}
}

func (h *harness) somePods() {
	h.api.Create(pods, newPod("a", "10.0.0.2", true, 8080))
	h.api.Create(pods, newPod("b", "10.0.0.1", false, 8080))
	h.api.Create(pods, newPod("no-ip", "", true, 8080))
	h.api.Create(pods, newPod("no-port", "10.0.0.3", true, 0))
	h.api.Create(pods, newPod("leaving", "10.0.0.4", true, 8080))
	h.api.Edit(pods+"/leaving", func(o object.Object) {
		object.Meta(o)["deletionTimestamp"] = object.Timestamp(h.clock.Now())
		object.Meta(o)["finalizers"] = []any{"test/hold"}
	})
	done := newPod("done", "10.0.0.5", false, 8080)
	done["status"].(map[string]any)["phase"] = "Succeeded"
	h.api.Create(pods, done)
	other := newPod("other", "10.0.0.6", true, 8080)
	other["metadata"].(map[string]any)["labels"] = map[string]any{"app": "db"}
	h.api.Create(pods, other)
}

// addresses are a subset's addresses of kind (addresses, notReadyAddresses)
// as "ip pod".
func addresses(subset map[string]any, kind string) []string {
	var out []string
	for _, a := range object.Objects(subset, kind) {
		out = append(out, fmt.Sprint(a["ip"], " ", object.Path(a, "targetRef", "name")))
	}
	return out
}

func portsOf(subset map[string]any) []string {
	var out []string
	for _, p := range object.Objects(subset, "ports") {
		out = append(out, fmt.Sprint(p["name"], ":", p["port"]))
	}
	return out
}

// TestSIM_1_EndpointsListTheSelectedPods: a Service's Endpoints list the
// Pods it selects that have an address and have not finished, ready apart
// from not ready, sorted by address, grouped by how they serve the ports (a
// named targetPort is the Pod's container port of that name; a Pod that does
// not name it serves the others only); a terminating Pod is left out, unless
// the Service publishes addresses that are not ready, which then are all
// ready; the Service's labels are copied. A Service gone takes its Endpoints.
func TestSIM_1_EndpointsListTheSelectedPods(t *testing.T) {
	h := newHarness(t)
	h.api.Create(services, newService(false))
	h.somePods()
	if got := h.syncEndpoints("default/web"); !slices.Equal(got, []string{"create endpoints default/web"}) {
		t.Fatalf("writes %q", got)
	}
	ep := h.api.MustGet(endpoints + "/web")
	if object.Labels(ep)["team"] != "a" {
		t.Errorf("labels %v", object.Labels(ep))
	}
	subsets := object.Objects(ep, "subsets")
	if len(subsets) != 2 {
		t.Fatalf("subsets %v", subsets)
	}
	byPorts := map[string]map[string]any{}
	for _, s := range subsets {
		byPorts[strings.Join(portsOf(s), ",")] = s
	}
	both, metricsOnly := byPorts["http:8080,metrics:9090"], byPorts["metrics:9090"]
	if both == nil || metricsOnly == nil {
		t.Fatalf("subsets by ports: %v", byPorts)
	}
	if got := addresses(both, "addresses"); !slices.Equal(got, []string{"10.0.0.2 a"}) {
		t.Errorf("ready %q", got)
	}
	if got := addresses(both, "notReadyAddresses"); !slices.Equal(got, []string{"10.0.0.1 b"}) {
		t.Errorf("not ready %q", got)
	}
	if got := addresses(metricsOnly, "addresses"); !slices.Equal(got, []string{"10.0.0.3 no-port"}) {
		t.Errorf("metrics only %q", got)
	}
	if got := h.syncEndpoints("default/web"); len(got) != 0 {
		t.Errorf("a second sync wrote %q", got)
	}
	h.api.Edit(services+"/web", func(o object.Object) { o["spec"].(map[string]any)["publishNotReadyAddresses"] = true })
	h.syncEndpoints("default/web")
	for _, s := range object.Objects(h.api.MustGet(endpoints+"/web"), "subsets") {
		if strings.Join(portsOf(s), ",") == "http:8080,metrics:9090" {
			if got := addresses(s, "addresses"); !slices.Equal(got, []string{"10.0.0.1 b", "10.0.0.2 a", "10.0.0.4 leaving"}) {
				t.Errorf("publishing not-ready addresses: %q", got)
			}
		}
	}
	h.api.Remove(services + "/web")
	if got := h.syncEndpoints("default/web"); !slices.Equal(got, []string{"delete endpoints default/web"}) {
		t.Errorf("Service gone: %q", got)
	}
}

// TestSIM_1_EndpointSlicesListTheSelectedPods: a Service's EndpointSlices
// (generated names, owned by the Service, kube's labels) hold one endpoint
// per selected Pod with its conditions (a terminating Pod serving but not
// ready), at most 100 a slice; fewer Pods, fewer slices; a Service with no
// Pods still has one, empty.
func TestSIM_1_EndpointSlicesListTheSelectedPods(t *testing.T) {
	h := newHarness(t)
	svc := h.api.Create(services, newService(false))
	h.somePods()
	got := h.syncSlices("default/web")
	if len(got) != 2 || !strings.HasPrefix(got[0], "create endpointslices default/web-") {
		t.Fatalf("writes %q, want a slice per way of serving the ports", got)
	}
	for _, es := range h.api.List(slicesAt) {
		l := object.Labels(es)
		refs := object.Objects(object.Meta(es), "ownerReferences")
		if l[serviceNameLabel] != "web" || l[managedByLabel] != managedBy || l["team"] != "a" || len(refs) != 1 || refs[0]["uid"] != object.MetaString(svc, "uid") {
			t.Errorf("slice %s: labels %v, owners %v", object.MetaString(es, "name"), l, refs)
		}
		if es["addressType"] != "IPv4" {
			t.Errorf("addressType %v", es["addressType"])
		}
		if len(object.Objects(es, "ports")) != 2 {
			continue
		}
		var conds []string
		for _, e := range object.Objects(es, "endpoints") {
			c := e["conditions"].(map[string]any)
			conds = append(conds, fmt.Sprint(object.Path(e, "targetRef", "name"), " ready=", c["ready"], " serving=", c["serving"], " terminating=", c["terminating"]))
		}
		want := []string{"a ready=true serving=true terminating=false", "b ready=false serving=false terminating=false",
			"leaving ready=false serving=true terminating=true"}
		if !slices.Equal(conds, want) {
			t.Errorf("endpoints\n got %q\nwant %q", conds, want)
		}
	}
	if got := h.syncSlices("default/web"); len(got) != 0 {
		t.Errorf("a second sync wrote %q", got)
	}
	for _, p := range h.api.List(pods) {
		h.api.Remove(pods + "/" + object.MetaString(p, "name"))
	}
	for i := range 150 {
		h.api.Create(pods, newPod(fmt.Sprintf("p%03d", i), fmt.Sprintf("10.1.%d.%d", i/100, i%100), true, 8080))
	}
	h.syncSlices("default/web")
	var sizes []int
	for _, es := range h.api.List(slicesAt) {
		sizes = append(sizes, len(object.Objects(es, "endpoints")))
	}
	slices.Sort(sizes)
	if !slices.Equal(sizes, []int{50, 100}) {
		t.Errorf("150 Pods: slices of %v, want 100 and 50", sizes)
	}
	for i := range 150 {
		h.api.Remove(fmt.Sprintf("%s/p%03d", pods, i))
	}
	got = h.syncSlices("default/web")
	if n := len(h.api.List(slicesAt)); n != 1 || len(object.Objects(h.api.List(slicesAt)[0], "endpoints")) != 0 || len(object.Objects(h.api.List(slicesAt)[0], "ports")) != 0 {
		t.Errorf("no Pods: %d slices (%q), want one, empty, without ports", n, got)
	}
	if got := h.syncSlices("default/web"); len(got) != 0 {
		t.Errorf("a second sync of the placeholder wrote %q", got)
	}
}

// TestSIM_1_EndpointsNewsWhileWaiting: news of a Pod that comes while the
// controller waits to see its own write of the Endpoints is not lost: once
// the write is seen, the Service is synced again.
func TestSIM_1_EndpointsNewsWhileWaiting(t *testing.T) {
	h := newHarness(t)
	ec := h.cs.endpoints
	h.api.Create(services, newService(false))
	h.api.Create(pods, newPod("a", "10.0.0.2", true, 8080))
	h.api.Await(h.cs.services, h.cs.pods, ec.endpoints)
	h.api.Hold()
	if err := ec.sync(context.Background(), "default/web"); err != nil {
		t.Fatal(err)
	}
	h.api.Create(pods, newPod("b", "10.0.0.3", true, 8080))
	ec.queue = controllers.NewQueue(h.clock) // what was queued before is done
	if err := ec.sync(context.Background(), "default/web"); err != nil {
		t.Fatal(err)
	}
	h.api.Release()
	h.api.Await(h.cs.services, h.cs.pods, ec.endpoints)
	if n := ec.queue.Pending(); n != 1 {
		t.Fatalf("%d keys queued once the write was seen", n)
	}
	if got := h.syncEndpoints("default/web"); !slices.Equal(got, []string{"update endpoints default/web"}) {
		t.Errorf("writes %q", got)
	}
	subsets := object.Objects(h.api.MustGet(endpoints+"/web"), "subsets")
	if len(subsets) != 1 || !slices.Equal(addresses(subsets[0], "addresses"), []string{"10.0.0.2 a", "10.0.0.3 b"}) {
		t.Errorf("subsets %v", subsets)
	}
}

// TestSIM_1_NoEndpointsForExternalName: an ExternalName Service gets no
// Endpoints and no EndpointSlices, whatever it selects.
func TestSIM_1_NoEndpointsForExternalName(t *testing.T) {
	h := newHarness(t)
	svc := newService(false)
	svc["spec"].(map[string]any)["type"] = "ExternalName"
	svc["spec"].(map[string]any)["externalName"] = "example.com"
	h.api.Create(services, svc)
	h.somePods()
	if got := append(h.syncEndpoints("default/web"), h.syncSlices("default/web")...); len(got) != 0 {
		t.Errorf("writes %q", got)
	}
}

// TestSIM_1_EndpointsOfOthersLeftAlone: Endpoints written without a Service
// are left as they are while the controller runs (it hears only of
// deletions); at its start it takes those whose Service is gone, but for a
// leader election's.
func TestSIM_1_EndpointsOfOthersLeftAlone(t *testing.T) {
	h := newHarness(t)
	custom := func(name string, annotations map[string]any) object.Object {
		return object.Object{"apiVersion": "v1", "kind": "Endpoints", "metadata": map[string]any{"name": name, "annotations": annotations},
			"subsets": []any{map[string]any{"addresses": []any{map[string]any{"ip": "10.0.0.24"}}, "ports": []any{map[string]any{"name": "http", "port": 80}}}}}
	}
	h.api.Create(endpoints, custom("custom", nil))
	h.api.Create(endpoints, custom("leader", map[string]any{leaderAnnotation: "{}"}))
	h.api.Edit(endpoints+"/custom", func(o object.Object) { object.Meta(o)["labels"] = map[string]any{"changed": "yes"} })
	h.api.Await(h.cs.endpoints.endpoints)
	if n := h.cs.endpoints.queue.Pending(); n != 0 {
		t.Fatalf("%d keys queued for Endpoints written by others", n)
	}
	h.cs.endpoints.leftovers()
	if n := h.cs.endpoints.queue.Pending(); n != 1 {
		t.Fatalf("%d keys queued at start, want the one without a leader's annotation", n)
	}
	if got := h.syncEndpoints("default/custom"); !slices.Equal(got, []string{"delete endpoints default/custom"}) {
		t.Errorf("leftover without a Service: %q", got)
	}
}
