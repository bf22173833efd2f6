package registry_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/clock"
	"kubeplay/core/kinds"
	"kubeplay/core/object"
	"kubeplay/core/registry"
)

// The registry's strategies and admission plugins, through the Store's
// public API (Create, Update, Delete with a Target), so a failure names the
// registry rather than the HTTP layer above it; the recorded kube answers
// check the same behaviour end to end.

// env is a Store over fresh storage on a fake clock.
type env struct {
	t   *testing.T
	s   *registry.Store
	reg *api.Registry
	clk *clock.Fake
}

// newEnv is a Store with the system namespaces and the namespace team, each
// of the default one and team with its default ServiceAccount, allowing at most pods Pods (0: any number).
func newEnv(t *testing.T, pods int64) *env {
	t.Helper()
	reg := api.NewRegistry(kinds.All()...)
	clk := clock.NewFake(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	s, err := registry.Open(registry.Config{Schema: reg, Clock: clk, Pods: pods})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	e := &env{t: t, s: s, reg: reg, clk: clk}
	e.mustCreate("v1/namespaces", "", object.Object{"metadata": map[string]any{"name": "team"}})
	for _, ns := range []string{"default", "team"} { // the ServiceAccount controller's accounts
		e.mustCreate("v1/serviceaccounts", ns, object.Object{"metadata": map[string]any{"name": "default"}})
	}
	return e
}

// target is the write to "group/version/plural" (or "version/plural" for
// the core group) in ns, of name.
func (e *env) target(resource, ns, name string) registry.Target {
	e.t.Helper()
	parts := strings.Split(resource, "/")
	if len(parts) == 2 {
		parts = append([]string{""}, parts...)
	}
	res := e.reg.Lookup(parts[0], parts[1], parts[2])
	if res == nil {
		e.t.Fatalf("no resource %s", resource)
	}
	return registry.Target{Res: res, Namespace: ns, Name: name, Manager: "test"}
}

// create creates obj as a request's body decodes it (numbers as json.Number).
func (e *env) create(resource, ns string, obj object.Object) (object.Object, error) {
	e.t.Helper()
	b, err := e.s.Create(e.target(resource, ns, object.MetaString(obj, "name")), decoded(e.t, obj))
	if err != nil {
		return nil, err
	}
	return object.Decode(b)
}

// decoded is obj as a request's body decodes it.
func decoded(t *testing.T, obj object.Object) object.Object {
	t.Helper()
	b, err := object.Encode(obj)
	if err == nil {
		obj, err = object.Decode(b)
	}
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

func (e *env) mustCreate(resource, ns string, obj object.Object) object.Object {
	e.t.Helper()
	out, err := e.create(resource, ns, obj)
	if err != nil {
		e.t.Fatalf("create %s %s: %v", resource, object.MetaString(obj, "name"), err)
	}
	return out
}

// update changes the object (or its subresource sub) with change.
func (e *env) update(resource, ns, name, sub string, change func(obj object.Object)) (object.Object, error) {
	e.t.Helper()
	t := e.target(resource, ns, name)
	t.Sub = sub
	b, _, err := e.s.Update(t, func(old object.Object) (object.Object, error) {
		obj := object.DeepCopy(old)
		change(obj)
		return obj, nil
	})
	if err != nil {
		return nil, err
	}
	return object.Decode(b)
}

// get is the object as stored.
func (e *env) get(resource, ns, name string) object.Object {
	e.t.Helper()
	t := e.target(resource, ns, name)
	b, err := e.s.Get(context.Background(), t.Res, ns, name, 0)
	if err != nil {
		e.t.Fatalf("no %s %s/%s: %v", resource, ns, name, err)
	}
	obj, err := object.Decode(b)
	if err != nil {
		e.t.Fatal(err)
	}
	return obj
}

// refused checks err is a Status of code with message.
func refused(t *testing.T, err error, code int, message string) {
	t.Helper()
	if err == nil {
		t.Errorf("no error, want %d %q", code, message)
		return
	}
	if st := apierrors.As(err); st.Code != code || st.Message != message {
		t.Errorf("got %d %q, want %d %q", st.Code, st.Message, code, message)
	}
}

func pod(name string, resources map[string]any) object.Object {
	c := map[string]any{"name": "c", "image": "nginx"}
	if resources != nil {
		c["resources"] = resources
	}
	return object.Object{"metadata": map[string]any{"name": name}, "spec": map[string]any{"containers": []any{c}}}
}

// TestK8S_WRITE_1_NamespaceLifecycle: content is created only in a namespace
// that exists (404 for the namespace) and is not terminating (403, with
// kube's cause); cluster-scoped objects need none.
func TestK8S_WRITE_1_NamespaceLifecycle(t *testing.T) {
	e := newEnv(t, 0)
	_, err := e.create("v1/configmaps", "nowhere", object.Object{"metadata": map[string]any{"name": "c"}})
	refused(t, err, 404, `namespaces "nowhere" not found`)
	if _, err := e.s.Delete(e.target("v1/namespaces", "", "team"), registry.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = e.create("v1/configmaps", "team", object.Object{"metadata": map[string]any{"name": "c"}})
	refused(t, err, 403, `configmaps "c" is forbidden: unable to create new content in namespace team because it is being terminated`)
	if st := apierrors.As(err); st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Type != "NamespaceTerminating" {
		t.Errorf("details %+v", st.Details)
	}
	e.mustCreate("storage.k8s.io/v1/storageclasses", "", object.Object{"metadata": map[string]any{"name": "cluster-scoped"}, "provisioner": "example.com/disk"})
}

// TestK8S_WRITE_1_PodAdmission: a new Pod runs as the default service
// account (whose token it mounts), gets its PriorityClass's priority (0 without one) and
// PreemptLowerPriority, tolerates a not-ready or unreachable node for 300 s
// unless it says otherwise, and is refused a PriorityClass that does not
// exist or a priority of its own, in kube's words.
func TestK8S_WRITE_1_PodAdmission(t *testing.T) {
	e := newEnv(t, 0)
	p := e.mustCreate("v1/pods", "team", pod("plain", nil))
	spec := p["spec"].(map[string]any)
	if spec["serviceAccountName"] != "default" || spec["serviceAccount"] != "default" || object.Int(spec["priority"]) != 0 || spec["preemptionPolicy"] != "PreemptLowerPriority" {
		t.Errorf("spec %v", spec)
	}
	if mounts := object.Objects(object.Objects(spec, "containers")[0], "volumeMounts"); len(mounts) != 1 || mounts[0]["mountPath"] != "/var/run/secrets/kubernetes.io/serviceaccount" {
		t.Errorf("mounts %v, want the token's", mounts)
	}
	var tolerations []string
	for _, tol := range object.Objects(spec, "tolerations") {
		tolerations = append(tolerations, fmt.Sprint(tol["key"], " ", tol["operator"], " ", tol["effect"], " ", tol["tolerationSeconds"]))
	}
	if want := []string{"node.kubernetes.io/not-ready Exists NoExecute 300", "node.kubernetes.io/unreachable Exists NoExecute 300"}; !slices.Equal(tolerations, want) {
		t.Errorf("tolerations %q, want %q", tolerations, want)
	}

	own := pod("tolerant", nil)
	own["spec"].(map[string]any)["tolerations"] = []any{map[string]any{"operator": "Exists"}}
	own["spec"].(map[string]any)["priorityClassName"] = "system-node-critical"
	p = e.mustCreate("v1/pods", "team", own)
	if n := len(object.Objects(p["spec"].(map[string]any), "tolerations")); n != 1 {
		t.Errorf("a Pod tolerating everything got %d tolerations, want its own only", n)
	}
	if object.Int(object.Path(p, "spec", "priority")) != 2000001000 {
		t.Errorf("priority %v", object.Path(p, "spec", "priority"))
	}

	bad := pod("bad", nil)
	bad["spec"].(map[string]any)["priorityClassName"] = "gold"
	_, err := e.create("v1/pods", "team", bad)
	refused(t, err, 403, `pods "bad" is forbidden: no PriorityClass with name gold was found`)
	bad = pod("bad", nil)
	bad["spec"].(map[string]any)["priority"] = 5
	_, err = e.create("v1/pods", "team", bad)
	refused(t, err, 403, `pods "bad" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name`)
}

// TestK8S_WRITE_1_PodAwaitsDefaultServiceAccount: a Pod created in a new
// namespace before the ServiceAccount controller has made its `default`
// account waits for it, as kube's admission asks again for it, and is
// refused in kube's words once that has taken too long.
func TestK8S_WRITE_1_PodAwaitsDefaultServiceAccount(t *testing.T) {
	e := newEnv(t, 0)
	e.mustCreate("v1/namespaces", "", object.Object{"metadata": map[string]any{"name": "new"}})
	created := make(chan error, 1)
	go func() {
		_, err := e.create("v1/pods", "new", pod("early", nil))
		created <- err
	}()
	for e.clk.Waiters() == 0 { // the admission waits on the clock
		time.Sleep(time.Millisecond)
	}
	e.mustCreate("v1/serviceaccounts", "new", object.Object{"metadata": map[string]any{"name": "default"}})
	if err := <-created; err != nil {
		t.Fatalf("the Pod waiting for its account: %v", err)
	}

	e.mustCreate("v1/namespaces", "", object.Object{"metadata": map[string]any{"name": "empty"}})
	go func() {
		_, err := e.create("v1/pods", "empty", pod("late", nil))
		created <- err
	}()
	for { // the clock moves on until the admission has given up
		select {
		case err := <-created:
			refused(t, err, 403, `pods "late" is forbidden: error looking up service account empty/default: serviceaccount "default" not found`)
			return
		default:
			e.clk.Step(time.Second)
			time.Sleep(time.Millisecond)
		}
	}
}

// TestK8S_WRITE_1_NodeTaintedNotReady: a new Node is tainted not-ready
// (NoSchedule) until its kubelet says otherwise, once.
func TestK8S_WRITE_1_NodeTaintedNotReady(t *testing.T) {
	e := newEnv(t, 0)
	n := e.mustCreate("v1/nodes", "", object.Object{"metadata": map[string]any{"name": "n1"},
		"spec": map[string]any{"taints": []any{map[string]any{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}}}})
	if taints := object.Objects(n["spec"].(map[string]any), "taints"); len(taints) != 1 {
		t.Errorf("taints %v, want the one given", taints)
	}
	n = e.mustCreate("v1/nodes", "", object.Object{"metadata": map[string]any{"name": "n2"}})
	if taints := object.Objects(n["spec"].(map[string]any), "taints"); len(taints) != 1 || taints[0]["key"] != "node.kubernetes.io/not-ready" || taints[0]["effect"] != "NoSchedule" {
		t.Errorf("taints %v", taints)
	}
}

func claim(name string, class any, storage string) object.Object {
	spec := map[string]any{"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]any{"storage": storage}}}
	if class != nil {
		spec["storageClassName"] = class
	}
	return object.Object{"metadata": map[string]any{"name": name}, "spec": spec}
}

// TestK8S_WRITE_1_DefaultStorageClassAndProtection: a new claim naming no
// class gets the default one (the newest of several), one naming "" keeps
// none, none is given without a default class; claims and volumes are held
// by their protection finalizers.
func TestK8S_WRITE_1_DefaultStorageClassAndProtection(t *testing.T) {
	e := newEnv(t, 0)
	c := e.mustCreate("v1/persistentvolumeclaims", "team", claim("before", nil, "1Gi"))
	if object.Path(c, "spec", "storageClassName") != nil {
		t.Errorf("without a default class: %v", object.Path(c, "spec", "storageClassName"))
	}
	if f := object.Strings(object.Meta(c), "finalizers"); !slices.Equal(f, []string{"kubernetes.io/pvc-protection"}) {
		t.Errorf("claim finalizers %v", f)
	}
	class := func(name string) object.Object {
		return object.Object{"metadata": map[string]any{"name": name, "annotations": map[string]any{"storageclass.kubernetes.io/is-default-class": "true"}},
			"provisioner": "example.com/disk"}
	}
	e.mustCreate("storage.k8s.io/v1/storageclasses", "", class("a-older"))
	e.clk.Step(time.Minute)
	e.mustCreate("storage.k8s.io/v1/storageclasses", "", class("b-newer"))
	e.mustCreate("storage.k8s.io/v1/storageclasses", "", object.Object{"metadata": map[string]any{"name": "z-plain"}, "provisioner": "example.com/disk"})
	if got := object.Path(e.mustCreate("v1/persistentvolumeclaims", "team", claim("after", nil, "1Gi")), "spec", "storageClassName"); got != "b-newer" {
		t.Errorf("default class %v, want the newest default", got)
	}
	if got := object.Path(e.mustCreate("v1/persistentvolumeclaims", "team", claim("none", "", "1Gi")), "spec", "storageClassName"); got != "" {
		t.Errorf("explicitly none: %v", got)
	}
	pv := e.mustCreate("v1/persistentvolumes", "", object.Object{"metadata": map[string]any{"name": "pv1"},
		"spec": map[string]any{"capacity": map[string]any{"storage": "1Gi"}, "accessModes": []any{"ReadWriteOnce"}, "hostPath": map[string]any{"path": "/data"}}})
	if f := object.Strings(object.Meta(pv), "finalizers"); !slices.Equal(f, []string{"kubernetes.io/pv-protection"}) {
		t.Errorf("volume finalizers %v", f)
	}
}

// TestK8S_WRITE_1_LimitRanger: a new Pod's containers get the Container
// limits' default requests and limits where they set none, noted in the
// kubernetes.io/limit-ranger annotation; a Pod or claim outside a limit's
// min, max or ratio is refused with every reason, in kube's words.
func TestK8S_WRITE_1_LimitRanger(t *testing.T) {
	e := newEnv(t, 0)
	e.mustCreate("v1/limitranges", "team", object.Object{"metadata": map[string]any{"name": "limits"}, "spec": map[string]any{"limits": []any{
		map[string]any{"type": "Container", "default": map[string]any{"cpu": "500m"}, "defaultRequest": map[string]any{"cpu": "100m"},
			"max": map[string]any{"cpu": "1"}, "min": map[string]any{"cpu": "50m"}, "maxLimitRequestRatio": map[string]any{"cpu": "10"}},
		map[string]any{"type": "PersistentVolumeClaim", "max": map[string]any{"storage": "2Gi"}},
	}}})
	p := e.mustCreate("v1/pods", "team", pod("defaulted", nil))
	res := object.Path(p, "spec", "containers").([]any)[0].(map[string]any)["resources"]
	if object.Path(res, "requests", "cpu") != "100m" || object.Path(res, "limits", "cpu") != "500m" {
		t.Errorf("resources %v", res)
	}
	if a := object.StringMap(object.Meta(p), "annotations")["kubernetes.io/limit-ranger"]; a != "LimitRanger plugin set: cpu request for container c; cpu limit for container c" {
		t.Errorf("annotation %q", a)
	}
	_, err := e.create("v1/pods", "team", pod("big", map[string]any{"requests": map[string]any{"cpu": "10m"}, "limits": map[string]any{"cpu": "2"}}))
	refused(t, err, 403, `pods "big" is forbidden: [minimum cpu usage per Container is 50m, but request is 10m, maximum cpu usage per Container is 1, but limit is 2, cpu max limit to request ratio per Container is 10, but provided ratio is 200.000000]`)
	_, err = e.create("v1/persistentvolumeclaims", "team", claim("huge", "", "5Gi"))
	refused(t, err, 403, `persistentvolumeclaims "huge" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi`)
}

// TestROB_2_QuotaChargedOnAdmission: ResourceQuota admission refuses a write
// past a quota of its namespace in kube's words and charges status.used for
// what it lets through (a dry run judged, not charged); the Pod budget
// refuses a Pod past the sandbox's.
func TestROB_2_QuotaChargedOnAdmission(t *testing.T) {
	e := newEnv(t, 3)
	e.mustCreate("v1/resourcequotas", "team", object.Object{"metadata": map[string]any{"name": "q"},
		"spec": map[string]any{"hard": map[string]any{"pods": "2", "requests.cpu": "1"}}})
	if _, err := e.update("v1/resourcequotas", "team", "q", "status", func(o object.Object) {
		o["status"] = map[string]any{"hard": map[string]any{"pods": "2", "requests.cpu": "1"}, "used": map[string]any{"pods": "0", "requests.cpu": "0"}}
	}); err != nil {
		t.Fatal(err)
	}
	used := func() map[string]string {
		return object.StringMap(e.get("v1/resourcequotas", "team", "q")["status"].(map[string]any), "used")
	}
	cpu := func(name, amount string) object.Object {
		return pod(name, map[string]any{"requests": map[string]any{"cpu": amount}, "limits": map[string]any{"cpu": amount}})
	}
	e.mustCreate("v1/pods", "team", cpu("a", "600m"))
	if u := used(); u["pods"] != "1" || u["requests.cpu"] != "600m" {
		t.Errorf("used %v after one Pod", u)
	}
	_, err := e.create("v1/pods", "team", cpu("b", "500m"))
	refused(t, err, 403, `pods "b" is forbidden: exceeded quota: q, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1`)
	dry := e.target("v1/pods", "team", "c")
	dry.DryRun = true
	if _, err := e.s.Create(dry, decoded(t, cpu("c", "100m"))); err != nil {
		t.Fatal(err)
	}
	if u := used(); u["pods"] != "1" || u["requests.cpu"] != "600m" {
		t.Errorf("used %v after a dry run, want unchanged", u)
	}
	e.mustCreate("v1/pods", "team", cpu("c", "100m"))
	_, err = e.create("v1/pods", "team", cpu("d", "100m"))
	refused(t, err, 403, `pods "d" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`)

	e.mustCreate("v1/pods", "default", pod("e", nil))
	_, err = e.create("v1/pods", "default", pod("f", nil))
	refused(t, err, 403, `pods "f" is forbidden: exceeded quota: kubeplay-sandbox, requested: pods=1, used: pods=3, limited: pods=3`)
}
