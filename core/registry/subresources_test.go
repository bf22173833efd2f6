package registry_test

import (
	"slices"
	"strings"
	"testing"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
	"kubeplay/core/registry"
)

// subresource creates obj at the Pod name's subresource sub.
func (e *env) subresource(name, sub string, obj object.Object) (*apierrors.Status, error) {
	e.t.Helper()
	t := e.target("v1/pods", "team", name)
	t.Sub = sub
	return e.s.CreateSubresource(t, decoded(e.t, obj))
}

// TestK8S_WRITE_1_PodBinding: a Binding assigns a Pod to its node (with the
// Binding's annotations and a True PodScheduled condition) and is answered
// 201 Success; a Pod assigned already, a name that does not match and a
// target that is no Node are refused in kube's words.
func TestK8S_WRITE_1_PodBinding(t *testing.T) {
	e := newEnv(t, 0)
	e.mustCreate("v1/pods", "team", pod("p", nil))
	binding := func(name, kind string) object.Object {
		return object.Object{"metadata": map[string]any{"name": name, "annotations": map[string]any{"scheduler": "yes"}},
			"target": map[string]any{"kind": kind, "name": "n1"}}
	}
	st, err := e.subresource("p", "binding", binding("p", "Node"))
	if err != nil || st.Code != 201 || st.Status != "Success" {
		t.Fatalf("binding: %+v %v", st, err)
	}
	p := e.get("v1/pods", "team", "p")
	conds := object.Objects(p["status"].(map[string]any), "conditions")
	if object.Path(p, "spec", "nodeName") != "n1" || object.StringMap(object.Meta(p), "annotations")["scheduler"] != "yes" ||
		len(conds) != 1 || conds[0]["type"] != "PodScheduled" || conds[0]["status"] != "True" {
		t.Errorf("bound Pod: %v", p)
	}
	_, err = e.subresource("p", "binding", binding("p", "Node"))
	refused(t, err, 409, `Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"`)
	_, err = e.subresource("p", "binding", binding("q", "Node"))
	refused(t, err, 400, "name in URL does not match name in Binding object")
	e.mustCreate("v1/pods", "team", pod("r", nil))
	_, err = e.subresource("r", "binding", binding("r", "Pod"))
	refused(t, err, 422, `Binding "r" is invalid: target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"`)
}

// TestK8S_WRITE_1_PodEviction: an Eviction deletes a Pod no
// PodDisruptionBudget covers, or one its budget lets go (using up one
// disruption, noted in disruptedPods); a budget that allows none answers
// kube's 429, with why in its cause.
func TestK8S_WRITE_1_PodEviction(t *testing.T) {
	e := newEnv(t, 0)
	running := func(name string, labels map[string]any) {
		p := pod(name, nil)
		p["metadata"].(map[string]any)["labels"] = labels
		e.mustCreate("v1/pods", "team", p)
		if _, err := e.update("v1/pods", "team", name, "status", func(o object.Object) {
			o["status"] = map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
		}); err != nil {
			t.Fatal(err)
		}
	}
	eviction := func(name string) object.Object {
		return object.Object{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": map[string]any{"name": name}}
	}
	running("free", map[string]any{"app": "other"})
	if st, err := e.subresource("free", "eviction", eviction("free")); err != nil || st.Code != 201 {
		t.Fatalf("eviction without a budget: %+v %v", st, err)
	}
	running("a", map[string]any{"app": "db"})
	running("b", map[string]any{"app": "db"})
	e.mustCreate("policy/v1/poddisruptionbudgets", "team", object.Object{"metadata": map[string]any{"name": "db"},
		"spec": map[string]any{"minAvailable": 1, "selector": map[string]any{"matchLabels": map[string]any{"app": "db"}}}})
	if _, err := e.update("policy/v1/poddisruptionbudgets", "team", "db", "status", func(o object.Object) {
		o["status"] = map[string]any{"observedGeneration": 1, "disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.subresource("a", "eviction", eviction("a")); err != nil {
		t.Fatalf("eviction the budget allows: %v", err)
	}
	pdb := e.get("policy/v1/poddisruptionbudgets", "team", "db")
	if object.Int(object.Path(pdb, "status", "disruptionsAllowed")) != 0 || object.Path(pdb, "status", "disruptedPods", "a") == nil {
		t.Errorf("budget after the eviction: %v", pdb["status"])
	}
	_, err := e.subresource("b", "eviction", eviction("b"))
	refused(t, err, 429, "Cannot evict pod as it would violate the pod's disruption budget.")
	if st := apierrors.As(err); st.Details == nil || len(st.Details.Causes) != 1 ||
		st.Details.Causes[0].Message != "The disruption budget db needs 1 healthy pods and has 2 currently" {
		t.Errorf("details %+v", st.Details)
	}
}

// TestK8S_DEL_1_PropagationFinalizers: deleting with the Foreground or
// Orphan policy holds the object with the garbage collector's finalizer for
// it (foregroundDeletion, orphan); Background removes it at once.
func TestK8S_DEL_1_PropagationFinalizers(t *testing.T) {
	e := newEnv(t, 0)
	for _, tc := range []struct {
		policy, finalizer string
	}{{object.PropagationForeground, registry.FinalizerForeground}, {object.PropagationOrphan, registry.FinalizerOrphan}, {object.PropagationBackground, ""}} {
		name := "cm-" + strings.ToLower(tc.policy)
		e.mustCreate("v1/configmaps", "team", object.Object{"metadata": map[string]any{"name": name}})
		policy := tc.policy
		r, err := e.s.Delete(e.target("v1/configmaps", "team", name), registry.DeleteOptions{PropagationPolicy: &policy})
		if err != nil {
			t.Fatalf("%s: %v", tc.policy, err)
		}
		if tc.finalizer == "" {
			if !r.Gone {
				t.Errorf("%s: kept", tc.policy)
			}
			continue
		}
		obj, _ := object.Decode(r.Object)
		if r.Gone || !slices.Equal(object.Strings(object.Meta(obj), "finalizers"), []string{tc.finalizer}) || object.MetaString(obj, "deletionTimestamp") == "" {
			t.Errorf("%s: gone %v, metadata %v", tc.policy, r.Gone, object.Meta(obj))
		}
	}
}
