package gc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/object"
	"kubeplay/core/sandbox"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// cluster is a server with its garbage collector, and a client of it.
type cluster struct {
	t   testing.TB
	c   *client.Client
	ctx context.Context
}

func newCluster(t testing.TB) *cluster {
	t.Helper()
	s, err := sandbox.NewServer(sandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &cluster{t: t, c: client.New(s, user.User{Name: "admin", Groups: []string{"system:masters"}}, "gc-test"), ctx: context.Background()}
}

func (c *cluster) create(path string, obj object.Object) object.Object {
	c.t.Helper()
	out, err := c.c.Create(c.ctx, path, obj)
	if err != nil {
		c.t.Fatalf("create in %s: %v", path, err)
	}
	return out
}

// del deletes with a propagation policy ("" for none), and returns the answer.
func (c *cluster) del(path, policy string) object.Object {
	c.t.Helper()
	var body []byte
	if policy != "" {
		body, _ = json.Marshal(map[string]any{"propagationPolicy": policy})
	}
	out, err := c.c.Do(c.ctx, web.MethodDelete, path, "application/json", body)
	if err != nil {
		c.t.Fatalf("delete %s: %v", path, err)
	}
	obj, _ := object.Decode(out)
	return obj
}

// exists says whether there is an object at path.
func (c *cluster) exists(path string) bool {
	_, err := c.c.Get(c.ctx, path)
	if err != nil && !client.IsNotFound(err) {
		c.t.Fatal(err)
	}
	return err == nil
}

func (c *cluster) get(path string) object.Object {
	c.t.Helper()
	obj, err := c.c.Get(c.ctx, path)
	if err != nil {
		c.t.Fatal(err)
	}
	return obj
}

// eventually waits until cond holds, failing after a generous deadline: the
// garbage collector works asynchronously.
func (c *cluster) eventually(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			c.t.Fatalf("never: %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// heard waits until the collector has heard of everything written to the
// collection at path so far: it writes probe there, owned by an owner that
// never existed, and waits until the collector has deleted it (one informer
// per collection hears its changes in order).
func (c *cluster) heard(path string, probe object.Object) {
	c.t.Helper()
	object.Meta(probe)["name"] = "probe"
	object.Meta(probe)["ownerReferences"] = []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "nobody", "uid": "00000000-0000-0000-0000-00000000000f"}}
	c.create(path, probe)
	c.eventually("the probe collected", func() bool { return !c.exists(path + "/probe") })
}

// settle waits until the collector has heard of every ConfigMap written so
// far, and so (having no work left) done what they ask.
func (c *cluster) settle() { c.heard(cms, cm("")) }

func cm(name string, owners ...map[string]any) object.Object {
	meta := map[string]any{"name": name}
	if len(owners) > 0 {
		refs := make([]any, len(owners))
		for i, o := range owners {
			refs[i] = o
		}
		meta["ownerReferences"] = refs
	}
	return object.Object{"metadata": meta, "data": map[string]any{"k": "v"}}
}

// ref is an owner reference to obj.
func ref(obj object.Object, block bool) map[string]any {
	return map[string]any{
		"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": object.MetaString(obj, "name"),
		"uid": object.MetaString(obj, "uid"), "blockOwnerDeletion": block,
	}
}

const cms = "/api/v1/namespaces/default/configmaps"

// TestK8S_DEL_2_Background: deleting an owner deletes its dependents after
// it; a dependent with another owner left only loses its reference.
func TestK8S_DEL_2_Background(t *testing.T) {
	c := newCluster(t)
	owner := c.create(cms, cm("owner"))
	other := c.create(cms, cm("other"))
	for i := range 3 {
		c.create(cms, cm(fmt.Sprint("dep-", i), ref(owner, false)))
	}
	c.create(cms, cm("shared", ref(owner, false), ref(other, true)))
	if st := c.del(cms+"/owner", ""); st["kind"] != "Status" {
		t.Fatalf("background delete answered %v", st)
	}
	c.eventually("dependents deleted", func() bool {
		return !c.exists(cms+"/dep-0") && !c.exists(cms+"/dep-1") && !c.exists(cms+"/dep-2")
	})
	c.eventually("the shared dependent's reference removed", func() bool {
		refs := object.Objects(object.Meta(c.get(cms+"/shared")), "ownerReferences")
		return len(refs) == 1 && refs[0]["name"] == "other"
	})
}

// TestK8S_DEL_2_Orphan: an owner deleted with Orphan keeps the orphan
// finalizer until its dependents no longer name it; they stay.
func TestK8S_DEL_2_Orphan(t *testing.T) {
	c := newCluster(t)
	owner := c.create(cms, cm("owner"))
	c.create(cms, cm("dep", ref(owner, true)))
	marked := c.del(cms+"/owner", "Orphan")
	if fs := object.Strings(object.Meta(marked), "finalizers"); len(fs) != 1 || fs[0] != "orphan" {
		t.Fatalf("orphan delete answered %v", marked)
	}
	c.eventually("the owner gone", func() bool { return !c.exists(cms + "/owner") })
	dep := c.get(cms + "/dep")
	if refs := object.Meta(dep)["ownerReferences"]; refs != nil {
		t.Fatalf("orphaned dependent still has %v", refs)
	}
}

// deletions watches path from rv and returns the resourceVersion of each
// object's DELETED event, by name, once want of them have come.
func (c *cluster) deletions(path, rv string, want int) func() map[string]int {
	c.t.Helper()
	ctx, cancel := context.WithCancel(c.ctx)
	c.t.Cleanup(cancel)
	w, err := c.c.Watch(ctx, path, "resourceVersion="+rv)
	if err != nil {
		c.t.Fatal(err)
	}
	got := make(chan map[string]int, 1)
	go func() {
		out := map[string]int{}
		for len(out) < want {
			ev, err := w.Next()
			if err != nil {
				break
			}
			if ev.Type == "DELETED" {
				var n int
				fmt.Sscan(object.MetaString(ev.Object, "resourceVersion"), &n)
				out[object.MetaString(ev.Object, "name")] = n
			}
		}
		got <- out
	}()
	return func() map[string]int {
		select {
		case m := <-got:
			return m
		case <-time.After(10 * time.Second):
			c.t.Fatalf("%s: fewer than %d deletions", path, want)
			return nil
		}
	}
}

const (
	deployments = "/apis/apps/v1/namespaces/default/deployments"
	replicasets = "/apis/apps/v1/namespaces/default/replicasets"
	pods        = "/api/v1/namespaces/default/pods"
)

// owned builds a Deployment that owns a ReplicaSet that owns two Pods, each
// reference blocking its owner's deletion, as the controllers make them, and
// returns a list read after.
func (c *cluster) owned() (after object.Object) {
	podSpec := map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}
	labels := map[string]any{"app": "web"}
	spec := map[string]any{"selector": map[string]any{"matchLabels": labels}, "template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": podSpec}}
	deploy := c.create(deployments, object.Object{"metadata": map[string]any{"name": "web"}, "spec": spec})
	controller := func(owner object.Object) []any {
		r := ref(owner, true)
		r["controller"] = true
		return []any{r}
	}
	rs := c.create(replicasets, object.Object{"metadata": map[string]any{"name": "web-1", "labels": labels, "ownerReferences": controller(deploy)}, "spec": spec})
	for _, name := range []string{"web-1-a", "web-1-b"} {
		c.create(pods, object.Object{"metadata": map[string]any{"name": name, "labels": labels, "ownerReferences": controller(rs)}, "spec": podSpec})
	}
	// The collector hears of each kind on its own watch: like kube's, it
	// may act on a deletion before it hears of a dependent created just
	// before (the end is the same, the order is not). A person is slower.
	c.heard(pods, object.Object{"spec": podSpec})
	c.heard(replicasets, object.Object{"spec": spec})
	return c.get(pods)

}

// deleteChain deletes the Deployment of owned() with policy, and returns the
// answer and a function waiting for the deletions' resourceVersions: of the
// Pods, the ReplicaSet and the Deployment.
func (c *cluster) deleteChain(policy string) (object.Object, func() (p, r, d map[string]int)) {
	rv := object.MetaString(c.owned(), "resourceVersion")
	podsGone := c.deletions(pods, rv, 2)
	rsGone := c.deletions(replicasets, rv, 1)
	deployGone := c.deletions(deployments, rv, 1)
	answer := c.del(deployments+"/web", policy)
	return answer, func() (p, r, d map[string]int) { return podsGone(), rsGone(), deployGone() }
}

// TestK8S_DEL_2_Foreground: an owner deleted in the foreground stays, with
// the foregroundDeletion finalizer, until its dependents are gone: the Pods,
// then the ReplicaSet (itself deleted in the foreground), then the
// Deployment.
func TestK8S_DEL_2_Foreground(t *testing.T) {
	c := newCluster(t)
	marked, gone := c.deleteChain("Foreground")
	if fs := object.Strings(object.Meta(marked), "finalizers"); len(fs) != 1 || fs[0] != "foregroundDeletion" || object.MetaString(marked, "deletionTimestamp") == "" {
		t.Fatalf("foreground delete answered %v", marked)
	}
	p, r, d := gone()
	if !(p["web-1-a"] < r["web-1"] && p["web-1-b"] < r["web-1"] && r["web-1"] < d["web"]) {
		t.Fatalf("deletion order: pods %v, replicaset %v, deployment %v", p, r, d)
	}
}

// TestK8S_DEL_2_BackgroundChain: in the background the owner goes first and
// the garbage collector deletes down the chain.
func TestK8S_DEL_2_BackgroundChain(t *testing.T) {
	c := newCluster(t)
	_, gone := c.deleteChain("Background")
	p, r, d := gone()
	if !(d["web"] < r["web-1"] && r["web-1"] < p["web-1-a"] && r["web-1"] < p["web-1-b"]) {
		t.Fatalf("deletion order: deployment %v, replicaset %v, pods %v", d, r, p)
	}
}

// TestK8S_DEL_2_OrphanChain: orphaning a Deployment leaves its ReplicaSet
// and Pods, the ReplicaSet without its owner reference.
func TestK8S_DEL_2_OrphanChain(t *testing.T) {
	c := newCluster(t)
	c.owned()
	c.del(deployments+"/web", "Orphan")
	c.eventually("the deployment gone", func() bool { return !c.exists(deployments + "/web") })
	c.settle()
	if refs := object.Meta(c.get(replicasets + "/web-1"))["ownerReferences"]; refs != nil {
		t.Fatalf("replicaset still owned: %v", refs)
	}
	for _, p := range []string{"web-1-a", "web-1-b"} {
		if len(object.Objects(object.Meta(c.get(pods+"/"+p)), "ownerReferences")) != 1 {
			t.Fatalf("pod %s lost its owner", p)
		}
	}
}

// TestK8S_DEL_2_DanglingOwners: a dependent whose owner never existed, or
// exists with another uid, or is in another namespace, is deleted; one whose
// owner is cluster-scoped stays; a cluster-scoped object naming a namespaced
// owner is left alone; a reference to a kind nobody serves holds its
// dependent without wedging the collector.
func TestK8S_DEL_2_DanglingOwners(t *testing.T) {
	c := newCluster(t)
	c.create("/api/v1/namespaces", object.Object{"metadata": map[string]any{"name": "other"}})
	owner := c.create(cms, cm("owner"))
	ghost := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "ghost", "uid": "00000000-0000-0000-0000-000000000001"}
	impostor := ref(owner, false)
	impostor["uid"] = "00000000-0000-0000-0000-000000000002"
	unserved := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "name": "w", "uid": "00000000-0000-0000-0000-000000000003"}
	ns := c.get("/api/v1/namespaces/default")

	c.create(cms, cm("ghost-dep", ghost))
	c.create(cms, cm("impostor-dep", impostor))
	c.create("/api/v1/namespaces/other/configmaps", cm("elsewhere-dep", ref(owner, false)))
	c.create(cms, cm("cluster-owner-dep", ref(ns, false)))
	c.create(cms, cm("unserved-dep", unserved))
	c.create("/api/v1/nodes", object.Object{"metadata": map[string]any{"name": "node-1", "ownerReferences": []any{ref(owner, false)}}})

	c.eventually("dangling dependents deleted", func() bool {
		return !c.exists(cms+"/ghost-dep") && !c.exists(cms+"/impostor-dep") && !c.exists("/api/v1/namespaces/other/configmaps/elsewhere-dep")
	})
	c.settle()
	for _, p := range []string{cms + "/cluster-owner-dep", cms + "/unserved-dep", "/api/v1/nodes/node-1"} {
		if !c.exists(p) {
			t.Errorf("%s was deleted", p)
		}
	}
	events, err := c.c.Get(c.ctx, "/api/v1/namespaces/other/events")
	if err != nil {
		t.Fatal(err)
	}
	items, _ := events["items"].([]any)
	want := fmt.Sprintf(`ownerRef [v1/ConfigMap, namespace: other, name: owner, uid: %s] does not exist in namespace "other"`, object.MetaString(owner, "uid"))
	if len(items) != 1 || object.Path(items[0], "reason") != "OwnerRefInvalidNamespace" || object.Path(items[0], "message") != want {
		t.Errorf("events: %v", items)
	}
}

// TestK8S_DEL_2_Cycle: two objects owning each other, both blocking, deleted
// in the foreground: the garbage collector breaks the cycle, and both go.
func TestK8S_DEL_2_Cycle(t *testing.T) {
	c := newCluster(t)
	a := c.create(cms, cm("a"))
	b := c.create(cms, cm("b", ref(a, true)))
	a["metadata"].(map[string]any)["ownerReferences"] = []any{ref(b, true)}
	if _, err := c.c.Update(c.ctx, cms+"/a", a); err != nil {
		t.Fatal(err)
	}
	c.del(cms+"/a", "Foreground")
	defer func() {
		if t.Failed() {
			for _, n := range []string{"a", "b"} {
				if obj, err := c.c.Get(c.ctx, cms+"/"+n); err == nil {
					t.Logf("%s: %v", n, obj["metadata"])
				}
			}
		}
	}()
	c.eventually("both gone", func() bool { return !c.exists(cms+"/a") && !c.exists(cms+"/b") })
}

// TestK8S_DEL_2_KindInTwoVersions: an object served in two versions of its
// group (a HorizontalPodAutoscaler, autoscaling/v2 and v1) is watched in
// its preferred version and is an owner in either: a ConfigMap owned by it
// through v1 is kept while it exists and collected once it is deleted, and
// it is collected with its own owner.
func TestK8S_DEL_2_KindInTwoVersions(t *testing.T) {
	c := newCluster(t)
	const hpasV1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
	owner := c.create(cms, cm("owner"))
	hpa := c.create(hpasV1, object.Object{
		"metadata": map[string]any{"name": "web", "ownerReferences": []any{ref(owner, false)}},
		"spec":     map[string]any{"scaleTargetRef": map[string]any{"kind": "Deployment", "name": "web"}, "maxReplicas": 3},
	})
	c.create(cms, cm("dependent", ref(hpa, false)))
	c.settle()
	if !c.exists(cms + "/dependent") {
		t.Fatal("the autoscaler's dependent was collected while it exists")
	}
	c.del(cms+"/owner", "")
	c.eventually("the autoscaler collected with its owner", func() bool { return !c.exists(hpasV1 + "/web") })
	c.eventually("the autoscaler's dependent collected", func() bool { return !c.exists(cms + "/dependent") })
}
