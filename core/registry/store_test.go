package registry

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/clock"
	"kubeplay/core/kinds"
	"kubeplay/core/object"
)

func newStore(t *testing.T) (*Store, *api.Registry, *clock.Fake) {
	t.Helper()
	reg := api.NewRegistry(kinds.All()...)
	clk := clock.NewFake(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	// No ServiceAccount admission: these Pods need no account (the plugin
	// is replayed against kube's answers in core/apiserver).
	s, err := Open(Config{Schema: reg, Clock: clk, NoServiceAccountAdmission: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, reg, clk
}

func target(reg *api.Registry, group, version, plural, ns, name string) Target {
	return Target{Res: reg.Lookup(group, version, plural), Namespace: ns, Name: name}
}

func decode(t *testing.T, b []byte) object.Object {
	t.Helper()
	obj, err := object.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// Concurrent updates of one object through the single update path: each is
// computed on the object it read, exactly one commit happens per revision, the
// losers run again on the newer object, and no update is lost.
func TestK8S_WRITE_1_ConcurrentUpdatesNoneLost(t *testing.T) {
	s, reg, _ := newStore(t)
	cm := target(reg, "", "v1", "configmaps", "default", "counter")
	if _, err := s.Create(cm, object.Object{"metadata": map[string]any{"name": "counter"}, "data": map[string]any{"n": "0"}}); err != nil {
		t.Fatal(err)
	}
	const writers, each = 6, 30
	var wg sync.WaitGroup
	revs := make(chan string, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				stored, _, err := s.Update(cm, func(old object.Object) (object.Object, error) {
					obj := object.DeepCopy(old)
					n, _ := strconv.Atoi(object.StringMap(obj, "data")["n"])
					obj["data"] = map[string]any{"n": strconv.Itoa(n + 1)}
					return obj, nil
				})
				if err != nil {
					t.Error(err)
					return
				}
				revs <- object.MetaString(decode(t, stored), "resourceVersion")
			}
		}()
	}
	wg.Wait()
	close(revs)
	seen := map[string]bool{}
	for rv := range revs {
		if seen[rv] {
			t.Fatalf("two updates stored at resourceVersion %s", rv)
		}
		seen[rv] = true
	}
	stored, _ := s.storage.Get(cm.key())
	if n := object.StringMap(decode(t, stored), "data")["n"]; n != strconv.Itoa(writers*each) {
		t.Fatalf("counter %s after %d updates", n, writers*each)
	}
}

// A stale resourceVersion is kube's 409; an update that changes nothing stores
// nothing (no new resourceVersion); a spec change bumps generation, a status or
// metadata change does not.
func TestK8S_WRITE_1_PreconditionsAndGeneration(t *testing.T) {
	s, reg, _ := newStore(t)
	dep := target(reg, "apps", "v1", "deployments", "default", "web")
	spec := map[string]any{"replicas": 1, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
		"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
			"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}}
	b, err := s.Create(dep, object.Object{"metadata": map[string]any{"name": "web"}, "spec": spec})
	if err != nil {
		t.Fatal(err)
	}
	first := decode(t, b)
	update := func(change func(object.Object)) (object.Object, error) {
		b, _, err := s.Update(dep, func(old object.Object) (object.Object, error) {
			obj := object.DeepCopy(old)
			change(obj)
			return obj, nil
		})
		if err != nil {
			return nil, err
		}
		return decode(t, b), nil
	}
	same, _ := update(func(object.Object) {})
	if object.MetaString(same, "resourceVersion") != object.MetaString(first, "resourceVersion") {
		t.Fatal("an update that changed nothing stored a new resourceVersion")
	}
	labelled, _ := update(func(o object.Object) { object.Meta(o)["labels"] = map[string]any{"a": "b"} })
	if fmt.Sprint(object.Meta(labelled)["generation"]) != "1" {
		t.Fatalf("a metadata change bumped generation: %v", object.Meta(labelled)["generation"])
	}
	scaled, _ := update(func(o object.Object) { o["spec"].(map[string]any)["replicas"] = 3 })
	if fmt.Sprint(object.Meta(scaled)["generation"]) != "2" {
		t.Fatalf("a spec change: generation %v", object.Meta(scaled)["generation"])
	}
	_, err = update(func(o object.Object) { object.SetResourceVersion(o, 1) })
	if st := apierrors.As(err); st.Code != 409 || st.Message != `Operation cannot be fulfilled on deployments.apps "web": `+apierrors.ConflictModified {
		t.Fatalf("stale update: %v", err)
	}
	// The main resource cannot write status; the status subresource writes only status.
	withStatus, _ := update(func(o object.Object) { o["status"] = map[string]any{"replicas": 9} })
	if withStatus["status"] != nil && fmt.Sprint(object.Path(withStatus, "status", "replicas")) == "9" {
		t.Fatal("the main resource wrote status")
	}
	status := dep
	status.Sub = "status"
	b, _, err = s.Update(status, func(old object.Object) (object.Object, error) {
		obj := object.DeepCopy(old)
		obj["status"] = map[string]any{"replicas": 9}
		obj["spec"].(map[string]any)["replicas"] = 7
		return obj, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := decode(t, b)
	if fmt.Sprint(object.Path(got, "status", "replicas")) != "9" || fmt.Sprint(object.Path(got, "spec", "replicas")) != "3" {
		t.Fatalf("status write: %v", got)
	}
}

// Deletion: finalizers hold an object (marked, kept); removing the last one
// removes it; preconditions are checked; the namespace strategy holds a namespace
// by its spec.finalizers, changes nothing on a second delete while it terminates, and its
// finalize subresource, once they are gone, removes it; NamespaceLifecycle
// refuses content in a terminating namespace and deleting a system namespace.
func TestK8S_DEL_1_StrategiesAndAdmission(t *testing.T) {
	s, reg, clk := newStore(t)
	nsT := target(reg, "", "v1", "namespaces", "", "team")
	if _, err := s.Create(nsT, object.Object{"metadata": map[string]any{"name": "team"}}); err != nil {
		t.Fatal(err)
	}
	cmT := target(reg, "", "v1", "configmaps", "team", "held")
	if _, err := s.Create(cmT, object.Object{"metadata": map[string]any{"name": "held", "finalizers": []any{"example.com/x"}}}); err != nil {
		t.Fatal(err)
	}
	wrongUID := "nope"
	if _, err := s.Delete(cmT, DeleteOptions{Preconditions: &Preconditions{UID: &wrongUID}}); !apierrors.HasCode(err, 409) {
		t.Fatalf("precondition: %v", err)
	}
	r, err := s.Delete(cmT, DeleteOptions{})
	if err != nil || r.Gone || object.MetaString(decode(t, r.Object), "deletionTimestamp") != object.Timestamp(clk.Now()) {
		t.Fatalf("delete held: gone %v, %v, %s", r.Gone, err, r.Object)
	}
	if _, _, err := s.Update(cmT, func(old object.Object) (object.Object, error) {
		obj := object.DeepCopy(old)
		delete(object.Meta(obj), "finalizers")
		return obj, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.storage.Get(cmT.key()); ok {
		t.Fatal("removing the last finalizer did not remove the object")
	}

	if r, err := s.Delete(nsT, DeleteOptions{}); err != nil || r.Gone {
		t.Fatalf("namespace delete: %v %v", r.Gone, err)
	}
	if r, err := s.Delete(nsT, DeleteOptions{}); err != nil || r.Gone {
		t.Fatalf("second delete of a terminating namespace: %v %v", r.Gone, err)
	}
	if _, err := s.Create(target(reg, "", "v1", "configmaps", "team", "late"), object.Object{"metadata": map[string]any{"name": "late"}}); !apierrors.HasCode(err, 403) {
		t.Fatalf("create into a terminating namespace: %v", err)
	}
	fin := nsT
	fin.Sub = "finalize"
	if _, _, err := s.Update(fin, func(old object.Object) (object.Object, error) {
		obj := object.DeepCopy(old)
		obj["spec"] = map[string]any{}
		return obj, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.storage.Get(nsT.key()); ok {
		t.Fatal("a terminating namespace with no finalizers left was kept")
	}
	if _, err := s.Delete(target(reg, "", "v1", "namespaces", "", "kube-system"), DeleteOptions{}); apierrors.As(err).Message != `namespaces "kube-system" is forbidden: this namespace may not be deleted` {
		t.Fatalf("delete kube-system: %v", err)
	}
}
