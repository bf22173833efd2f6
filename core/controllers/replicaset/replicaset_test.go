package replicaset

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/client/clienttest"
	"kubeplay/core/clock"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// harness is the ReplicaSet controller on a fake API and a fake clock; its
// informers run, its queue does not: the test syncs keys itself.
type harness struct {
	t     *testing.T
	api   *clienttest.API
	clock *clock.Fake
	rc    *Controller
}

const sets = "/apis/apps/v1/namespaces/default/replicasets"

func newHarness(t *testing.T) *harness {
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	api := clienttest.New(t, clk)
	rc := New(api, clk)
	api.Run(rc.sets, rc.pods)
	return &harness{t: t, api: api, clock: clk, rc: rc}
}

// sync syncs key once the informers have seen every change, and returns the
// writes it made.
func (h *harness) sync(key string) ([]clienttest.Write, error) {
	h.t.Helper()
	return h.api.Sync(h.rc.sync, key, h.rc.sets, h.rc.pods)
}

// syncNow syncs key with what the informers have seen so far.
func (h *harness) syncNow(key string) ([]clienttest.Write, error) {
	h.t.Helper()
	return h.api.Sync(h.rc.sync, key)
}

func (h *harness) mustSync(key string) []clienttest.Write {
	h.t.Helper()
	ws, err := h.sync(key)
	if err != nil {
		h.t.Fatalf("sync %s: %v", key, err)
	}
	return ws
}

func newReplicaSet(name string, replicas, minReady int) object.Object {
	return object.Object{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"replicas": replicas, "minReadySeconds": minReady,
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name, "tier": "web"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}}}
}

// ownedPod is a Pod the ReplicaSet rs controls, with labels, on node, in phase
// (ready since readySince when not zero).
func ownedPod(rs object.Object, name, node, phase string, readySince time.Time, labels map[string]any) object.Object {
	p := object.Object{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "labels": labels, "ownerReferences": []any{map[string]any{
			"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": object.MetaString(rs, "name"), "uid": object.MetaString(rs, "uid"),
			"controller": true, "blockOwnerDeletion": true}}},
		"spec":   map[string]any{"nodeName": node, "containers": []any{map[string]any{"name": "c", "image": "nginx"}}},
		"status": map[string]any{"phase": phase},
	}
	if !readySince.IsZero() {
		p["status"].(map[string]any)["conditions"] = []any{map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": object.Timestamp(readySince)}}
	}
	return p
}

func creates(ws []clienttest.Write, resource string) []clienttest.Write {
	return slices.DeleteFunc(slices.Clone(ws), func(w clienttest.Write) bool { return w.Verb != "create" || w.Resource != resource })
}

// TestSIM_1_ReplicaSetCreatesUntilRefused: missing Pods are created from the
// template, each named after the ReplicaSet and controlled by it, with a
// SuccessfulCreate event; the first create refused ends the sync, records
// FailedCreate and sets the ReplicaFailure condition; the next sync creates
// the rest and clears it. (The batches of 1, 2, 4, ... are sent one Pod at a
// time, so the sync stops at the first refusal; kube's slowStartBatch sends a
// batch in parallel and stops after it.)
func TestSIM_1_ReplicaSetCreatesUntilRefused(t *testing.T) {
	h := newHarness(t)
	rs := h.api.Create(sets, newReplicaSet("web", 10, 0))
	attempts := 0
	h.api.Refuse(func(w clienttest.Write) *apierrors.Status {
		if w.Verb != "create" || w.Resource != "pods" {
			return nil
		}
		if attempts++; attempts == 4 {
			return clienttest.Errorf(web.StatusForbidden, "Forbidden", `pods "web-x" is forbidden: exceeded quota: pods`)
		}
		return nil
	})
	ws, err := h.sync("default/web")
	if err == nil || attempts != 4 {
		t.Fatalf("sync: error %v after %d creates, want the 4th refused", err, attempts)
	}
	pods := creates(ws, "pods")
	if len(pods) != 3 {
		t.Fatalf("created %d Pods, want the 3 before the refusal: %v", len(pods), clienttest.Changes(ws))
	}
	for _, w := range pods {
		p := w.Object
		refs := object.Objects(object.Meta(p), "ownerReferences")
		if !strings.HasPrefix(w.Name, "web-") || len(refs) != 1 || refs[0]["uid"] != object.MetaString(rs, "uid") ||
			refs[0]["controller"] != true || refs[0]["blockOwnerDeletion"] != true || refs[0]["kind"] != "ReplicaSet" {
			t.Errorf("Pod %s: owner references %v", w.Name, refs)
		}
		if l := object.Labels(p); l["app"] != "web" || l["tier"] != "web" {
			t.Errorf("Pod %s: labels %v, want the template's", w.Name, l)
		}
	}
	events := clienttest.Events(ws)
	if len(events) != 4 || events[3] != `Warning FailedCreate: Error creating: pods "web-x" is forbidden: exceeded quota: pods` ||
		!strings.HasPrefix(events[0], "Normal SuccessfulCreate: Created pod: web-") {
		t.Errorf("events %q", events)
	}
	st := h.api.MustGet(sets + "/web")
	cond := object.Objects(object.Path(st, "status").(map[string]any), "conditions")
	if object.Int(object.Path(st, "status", "replicas")) != 0 || len(cond) != 1 || cond[0]["type"] != "ReplicaFailure" || cond[0]["reason"] != "FailedCreate" {
		t.Errorf("status %v, want ReplicaFailure FailedCreate", st["status"])
	}

	h.api.Refuse(nil)
	ws = h.mustSync("default/web")
	if n := len(creates(ws, "pods")); n != 7 {
		t.Errorf("second sync created %d Pods, want the other 7", n)
	}
	if st := h.api.MustGet(sets + "/web"); object.Path(st, "status", "conditions") != nil || object.Int(object.Path(st, "status", "replicas")) != 3 {
		t.Errorf("status %v, want no ReplicaFailure and the 3 Pods seen at the sync", st["status"])
	}
	if ws := h.mustSync("default/web"); len(creates(ws, "pods")) != 0 {
		t.Errorf("a sync with all 10 Pods created more: %v", clienttest.Changes(ws))
	}
}

// TestSIM_1_ReplicaSetBurstAndExpectations: one sync creates at most 500 Pods
// (kube's burstReplicas); a sync before the informer has seen the Pods just
// created creates none (expectations).
func TestSIM_1_ReplicaSetBurstAndExpectations(t *testing.T) {
	h := newHarness(t)
	h.api.Create(sets, newReplicaSet("big", 520, 0))
	h.api.Await(h.rc.sets, h.rc.pods)
	h.api.Hold() // the informers see none of the Pods created
	ws, err := h.syncNow("default/big")
	if n := len(creates(ws, "pods")); err != nil || n != burstReplicas {
		t.Fatalf("created %d Pods (%v), want %d", n, err, burstReplicas)
	}
	// (Its status write conflicts: its ReplicaSet is as old as its Pods.)
	ws, _ = h.syncNow("default/big")
	if n := len(creates(ws, "pods")); n != 0 {
		t.Fatalf("a sync before the informer saw the Pods created %d more", n)
	}
	h.api.Release()
	if n := len(creates(h.mustSync("default/big"), "pods")); n != 20 {
		t.Errorf("the next sync created %d, want the last 20", n)
	}
}

// TestSIM_1_ReplicaSetDeletesInKubesOrder: scaled down, a ReplicaSet deletes
// its least valuable Pods first (kube's ActivePodsWithRanks): not scheduled,
// then pending, then not ready, then the lower pod-deletion-cost, then ready
// for less time; at most the surplus, with a SuccessfulDelete event each. (The
// status, of the Pods the sync began with, is unchanged.)
func TestSIM_1_ReplicaSetDeletesInKubesOrder(t *testing.T) {
	h := newHarness(t)
	rs := h.api.Create(sets, newReplicaSet("web", 6, 0))
	now := h.clock.Now()
	labels := map[string]any{"app": "web", "tier": "web"}
	pods := "/api/v1/namespaces/default/pods"
	costly := ownedPod(rs, "costly", "n1", "Running", now.Add(-time.Hour), labels)
	costly["metadata"].(map[string]any)["annotations"] = map[string]any{"controller.kubernetes.io/pod-deletion-cost": "10"}
	for _, p := range []object.Object{
		ownedPod(rs, "ready-long", "n1", "Running", now.Add(-time.Hour), labels),
		ownedPod(rs, "unscheduled", "", "Pending", time.Time{}, labels),
		ownedPod(rs, "ready-recently", "n1", "Running", now.Add(-time.Minute), labels),
		costly,
		ownedPod(rs, "not-ready", "n1", "Running", time.Time{}, labels),
		ownedPod(rs, "pending", "n1", "Pending", time.Time{}, labels),
	} {
		h.api.Create(pods, p)
	}
	h.mustSync("default/web") // status only
	h.api.Edit(sets+"/web", func(o object.Object) { o["spec"].(map[string]any)["replicas"] = 2 })
	ws := h.mustSync("default/web")
	want := []string{"delete pods default/unscheduled", "delete pods default/pending", "delete pods default/not-ready",
		"delete pods default/ready-recently"}
	if got := clienttest.Changes(ws); !slices.Equal(got, want) {
		t.Errorf("writes\n got %q\nwant %q", got, want)
	}
	if ev := clienttest.Events(ws); len(ev) != 4 || ev[0] != "Normal SuccessfulDelete: Deleted pod: unscheduled" {
		t.Errorf("events %q", ev)
	}
}

// TestSIM_1_ReplicaSetStatus: replicas counts the active Pods (not finished,
// not being deleted), fullyLabeledReplicas those with every template label,
// readyReplicas the ready ones, availableReplicas those ready for
// minReadySeconds, and observedGeneration the generation; Pods ready but not
// yet available bring the key back when they will be.
func TestSIM_1_ReplicaSetStatus(t *testing.T) {
	h := newHarness(t)
	rs := h.api.Create(sets, newReplicaSet("web", 3, 10))
	now := h.clock.Now()
	pods := "/api/v1/namespaces/default/pods"
	full := map[string]any{"app": "web", "tier": "web"}
	h.api.Create(pods, ownedPod(rs, "a", "n1", "Running", now.Add(-time.Minute), full))
	h.api.Create(pods, ownedPod(rs, "b", "n1", "Running", now.Add(-5*time.Second), full))
	h.api.Create(pods, ownedPod(rs, "c", "n1", "Running", time.Time{}, map[string]any{"app": "web"}))
	h.api.Create(pods, ownedPod(rs, "done", "n1", "Succeeded", time.Time{}, full))
	h.mustSync("default/web")
	status := func() map[string]any { return h.api.MustGet(sets + "/web")["status"].(map[string]any) }
	// The succeeded Pod does not count, and is not replaced: three are active.
	want := map[string]int64{"replicas": 3, "fullyLabeledReplicas": 2, "readyReplicas": 2, "availableReplicas": 1, "observedGeneration": 1}
	for k, v := range want {
		if got := object.Int(status()[k]); got != v {
			t.Errorf("status.%s = %d, want %d", k, got, v)
		}
	}
	// c ready now: all ready, one available; the key comes back in 10 s. (The
	// queue is not run here: it holds the key the informers queued, and now
	// the same key due later.)
	h.api.Edit(pods+"/c", func(o object.Object) {
		o["status"].(map[string]any)["conditions"] = []any{map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": object.Timestamp(now)}}
	})
	h.mustSync("default/web")
	if n := h.rc.Queue.Pending(); n != 2 {
		t.Errorf("%d keys pending, want the key queued now and the same key in minReadySeconds", n)
	}
	h.clock.Step(10 * time.Second)
	h.mustSync("default/web")
	if got := object.Int(status()["availableReplicas"]); got != 3 {
		t.Errorf("10s on: availableReplicas %d, want 3", got)
	}
}
