package controllers

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/fnv"
	"slices"
	"strconv"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/object"
)

// OwnerRef is the ownerReference of an object controlled by owner (of kind in
// apiVersion), as metav1.NewControllerRef makes it: the garbage collector
// deletes the object with its owner, and foreground deletion of the owner
// waits for it.
func OwnerRef(owner *ObjectMeta, apiVersion, kind string) OwnerReference {
	yes := true
	return OwnerReference{APIVersion: apiVersion, Kind: kind, Name: owner.Name, UID: owner.UID, Controller: &yes, BlockOwnerDeletion: &yes}
}

// ByController is an informer index of objects by their controller's uid.
func ByController[T any, P typed[T]](p P) []string {
	if uid := p.object().Metadata.Controller(); uid != "" {
		return []string{uid}
	}
	return nil
}

// ByUID is an informer index of objects by uid.
func ByUID[T any, P typed[T]](p P) []string { return []string{p.object().Metadata.UID} }

// OnChange is an informer's handler calling f with each object added,
// updated (the new one) or deleted.
func OnChange[P any](f func(P)) client.TypedHandler[P] {
	return client.TypedHandler[P]{Add: f, Update: func(_, p P) { f(p) }, Delete: f}
}

// QueueKey queues the key of the object it is given on q.
func QueueKey[T any, P typed[T]](q *Queue) func(P) {
	return func(p P) { q.Add(p.object().Metadata.Key()) }
}

// QueueController queues on q the key of the controller of the object it is
// given: the one of owners (indexed by "uid", ByUID) its controller
// reference names.
func QueueController[T any, P typed[T], O any, OP typed[O]](q *Queue, owners *client.TypedInformer[OP]) func(P) {
	return func(p P) {
		if uid := p.object().Metadata.Controller(); uid != "" {
			for _, o := range owners.ByIndex("uid", uid) {
				q.Add(o.object().Metadata.Key())
			}
		}
	}
}

// Selects says whether sel selects labels; an empty selector selects nothing,
// as a controller's does.
func (sel *LabelSelector) Selects(labels map[string]string) bool {
	if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		return false
	}
	for k, v := range sel.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, r := range sel.MatchExpressions {
		if !r.Matches(labels) {
			return false
		}
	}
	return true
}

// Matches says whether labels meet the requirement (In, NotIn, Exists,
// DoesNotExist, and a node selector's Gt and Lt).
func (r *Requirement) Matches(labels map[string]string) bool {
	v, has := labels[r.Key]
	in := false
	for _, x := range r.Values {
		in = in || x == v
	}
	switch r.Operator {
	case "In":
		return has && in
	case "NotIn":
		return !has || !in
	case "Exists":
		return has
	case "DoesNotExist":
		return !has
	case "Gt", "Lt":
		if !has || len(r.Values) != 1 {
			return false
		}
		a, b := object.Int(v), object.Int(r.Values[0])
		return r.Operator == "Gt" && a > b || r.Operator == "Lt" && a < b
	}
	return false
}

// Ready says whether a Pod's Ready condition is True.
func (p *Pod) Ready() bool {
	c := FindCondition(p.Status.Conditions, "Ready")
	return c != nil && c.Status == "True"
}

// Available says whether a Pod has been ready for minReadySeconds at now.
func (p *Pod) Available(minReadySeconds int64, now time.Time) bool {
	if !p.Ready() {
		return false
	}
	since, err := time.Parse(time.RFC3339, FindCondition(p.Status.Conditions, "Ready").LastTransitionTime)
	return minReadySeconds == 0 || err == nil && !since.Add(time.Duration(minReadySeconds)*time.Second).After(now)
}

// Active says whether a Pod counts for its controller: neither finished
// (Succeeded, Failed) nor being deleted.
func (p *Pod) Active() bool {
	return p.Status.Phase != "Succeeded" && p.Status.Phase != "Failed" && p.Metadata.DeletionTimestamp == ""
}

// PodFromTemplate is the Pod a controller creates from a Pod template
// (a PodTemplateSpec), as kube's GetPodFromTemplate makes it: the template's
// labels, annotations, finalizers and spec, a name generated from
// generateName, and the controller's ownerReference.
func PodFromTemplate(template json.RawMessage, generateName string, owner OwnerReference) object.Object {
	var t struct {
		Metadata map[string]any `json:"metadata"`
		Spec     map[string]any `json:"spec"`
	}
	_ = json.Unmarshal(template, &t)
	meta := map[string]any{"generateName": generateName, "ownerReferences": []any{owner}}
	for _, f := range []string{"labels", "annotations", "finalizers"} {
		if v, ok := t.Metadata[f]; ok {
			meta[f] = v
		}
	}
	return object.Object{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": t.Spec}
}

// Update writes back an object read as raw, with change made to it (a
// controller's edit of what it read, every other field as it was), and
// returns the object as stored.
func Update(ctx context.Context, c *client.Client, path string, raw []byte, change func(obj object.Object)) (object.Object, error) {
	obj, err := object.Decode(raw)
	if err != nil {
		return nil, err
	}
	change(obj)
	return c.Update(ctx, path, obj)
}

// Send writes v (a typed object, a Binding, ...) with method (PUT, POST) to
// path and returns what the server answered: the object as stored.
func Send(ctx context.Context, c *client.Client, method, path string, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return c.Do(ctx, method, path, "application/json", body)
}

// TemplateHash is the hash kube names a controller's revisions by (a
// ReplicaSet's pod-template-hash, a DaemonSet's or StatefulSet's
// controller-revision-hash): a 32-bit FNV-1a hash of the pod template (and of
// the collision count, when there is one), encoded as kube's
// rand.SafeEncodeString encodes it, so it reads like kube's.
func TemplateHash(template json.RawMessage, collisionCount *int64) string {
	h := fnv.New32a()
	h.Write(template)
	if collisionCount != nil {
		var c [8]byte
		binary.LittleEndian.PutUint32(c[:], uint32(*collisionCount))
		h.Write(c[:])
	}
	const alphanums = "bcdfghjklmnpqrstvwxz2456789"
	digits := []byte(strconv.FormatUint(uint64(h.Sum32()), 10))
	for i, d := range digits {
		digits[i] = alphanums[int(d)%len(alphanums)]
	}
	return string(digits)
}

// Tolerates is v1.Toleration.ToleratesTaint over a Pod's tolerations.
func Tolerates(tolerations []Toleration, taint Taint) bool {
	return slices.ContainsFunc(tolerations, func(t Toleration) bool { return t.Tolerates(taint) })
}

// Tolerates is v1.Toleration.ToleratesTaint: the effect (any, when none is
// given), then the key and, for Equal, the value.
func (t Toleration) Tolerates(taint Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	return t.Operator == "Exists" && (t.Key == "" || t.Key == taint.Key) || t.Operator != "Exists" && t.Key == taint.Key && t.Value == taint.Value
}

// MatchesNode is kube's NodeAffinity filter: a Pod's nodeSelector, and its
// required node affinity (any of the terms, every expression of one).
func MatchesNode(spec *PodSpec, n *Node) bool {
	for k, v := range spec.NodeSelector {
		if got, ok := n.Metadata.Labels[k]; !ok || got != v {
			return false
		}
	}
	if spec.Affinity == nil || spec.Affinity.NodeAffinity == nil || spec.Affinity.NodeAffinity.Required == nil {
		return true
	}
	fields := map[string]string{"metadata.name": n.Metadata.Name}
	for _, term := range spec.Affinity.NodeAffinity.Required.Terms {
		ok := len(term.MatchExpressions)+len(term.MatchFields) > 0
		for _, e := range term.MatchExpressions {
			ok = ok && e.Matches(n.Metadata.Labels)
		}
		for _, e := range term.MatchFields {
			ok = ok && e.Matches(fields)
		}
		if ok {
			return true
		}
	}
	return false
}

// MustJSON is v's JSON, to compare values by (what fails to encode is "").
func MustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Read is an object of type T (Pod, ReplicaSet, ...) from its JSON.
func Read[T any, P typed[T]](data []byte) (P, error) { return Codec[T, P]().Decode(data) }

// Version is the resourceVersion of an object in JSON.
func Version(data []byte) string {
	var o Object
	_ = json.Unmarshal(data, &o)
	return o.Metadata.ResourceVersion
}

// Replicas is a replica count that defaults to 1, as spec.replicas does.
func Replicas(n *int64) int64 {
	if n == nil {
		return 1
	}
	return *n
}

// Message is what a failed call says: the message of the Status the server
// answered with, as kube's controllers quote an error in their events.
func Message(err error) string {
	var e *client.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}
