// Package quota owns what kube's ResourceQuota counts and how it refuses: the
// usage an object is charged (k8s.io/kubernetes's pkg/quota/v1/evaluator/core
// for Pods, Services and PersistentVolumeClaims, the generic object count
// "count/<resource>.<group>" for every other resource), which of a quota's
// hard resources and scopes apply to an object, the arithmetic of resource
// lists (k8s.io/apiserver's pkg/quota/v1), and the ResourceQuota admission
// plugin's decision and words (Check, Exceeded). The admission (core/registry)
// and kube-controller-manager's resource quota controller
// (core/controllers/resourcequota) both count with it, so what one charges the
// other recomputes.
package quota

import (
	"slices"
	"sort"
	"strings"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
	"kubeplay/core/quantity"
)

// List is a ResourceList: a quantity (in canonical form) by resource name.
type List map[string]string

// ReadList reads a ResourceList field of m.
func ReadList(m map[string]any, field string) List {
	l := List(object.StringMap(m, field))
	if l == nil {
		return List{}
	}
	return l
}

// Names are l's resource names, sorted.
func (l List) Names() []string {
	names := make([]string, 0, len(l))
	for k := range l {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// String is l as kube's quota messages print it: name=quantity, sorted,
// joined by commas.
func (l List) String() string {
	parts := make([]string, 0, len(l))
	for _, k := range l.Names() {
		parts = append(parts, k+"="+l[k])
	}
	return strings.Join(parts, ",")
}

// Add is a + b for each resource (quota.Add).
func Add(a, b List) List {
	out := make(List, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if cur, ok := out[k]; ok {
			out[k] = quantity.Add(cur, v)
		} else {
			out[k] = v
		}
	}
	return out
}

// SubtractNonNegative is a - b for each resource, never below zero
// (quota.SubtractWithNonNegativeResult).
func SubtractNonNegative(a, b List) List {
	out := make(List, len(a)+len(b))
	for k, v := range a {
		if w, ok := b[k]; ok {
			v = quantity.Sub(v, w)
		}
		if quantity.Compare(v, "0") <= 0 {
			v = "0"
		}
		out[k] = v
	}
	for k := range b {
		if _, ok := out[k]; !ok {
			out[k] = "0"
		}
	}
	return out
}

// Mask is l with only the named resources.
func (l List) Mask(names []string) List {
	out := List{}
	for _, n := range names {
		if v, ok := l[n]; ok {
			out[n] = v
		}
	}
	return out
}

// NonZero is l without its zero quantities.
func (l List) NonZero() List {
	out := List{}
	for k, v := range l {
		if quantity.Compare(v, "0") != 0 {
			out[k] = v
		}
	}
	return out
}

// Equal says whether a and b have the same resources with equal quantities.
func Equal(a, b List) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || quantity.Compare(v, w) != 0 {
			return false
		}
	}
	return true
}

// Exceeding are the resources of hard that used is over, sorted.
func Exceeding(used, hard List) []string {
	var out []string
	for k, limit := range hard {
		if v, ok := used[k]; ok && quantity.Compare(v, limit) > 0 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// intersection is the names of a that are in b, deduplicated and sorted
// (quota.Intersection).
func intersection(a, b []string) []string {
	var out []string
	for _, n := range a {
		if slices.Contains(b, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Requirement is one scope a quota is limited to: spec.scopes' (operator
// Exists) and spec.scopeSelector.matchExpressions'.
type Requirement struct {
	Scope, Operator string
	Values          []string
}

// Quota is a ResourceQuota as counting reads it.
type Quota struct {
	Name   string
	Hard   List // spec.hard
	Scopes []Requirement
	// StatusHard and Used are its status: the limits in force (set by the
	// controller from spec.hard) and what is used of them.
	StatusHard, Used List
}

// Read reads a ResourceQuota.
func Read(obj object.Object) Quota {
	spec, _ := obj["spec"].(map[string]any)
	status, _ := obj["status"].(map[string]any)
	q := Quota{Name: object.MetaString(obj, "name"), Hard: ReadList(spec, "hard"),
		StatusHard: ReadList(status, "hard"), Used: ReadList(status, "used")}
	for _, s := range object.Strings(spec, "scopes") {
		q.Scopes = append(q.Scopes, Requirement{Scope: s, Operator: "Exists"})
	}
	if sel, ok := spec["scopeSelector"].(map[string]any); ok {
		for _, r := range object.Objects(sel, "matchExpressions") {
			q.Scopes = append(q.Scopes, Requirement{Scope: object.String(r["scopeName"]), Operator: object.String(r["operator"]), Values: object.Strings(r, "values")})
		}
	}
	return q
}

// Exceeded is the refusal of a write to the object name of resource (in
// group) that would take a quota over its limits, in the words of kube's
// ResourceQuota admission plugin: 403 Forbidden, `pods "web" is forbidden:
// exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2`.
// requested, used and limited are the exceeded resources' quantities.
func Exceeded(group, resource, name, quota string, requested, used, limited List) *apierrors.Status {
	return apierrors.NewForbidden(group, resource, name, apierrors.ExceededQuota(quota, requested.String(), used.String(), limited.String()))
}

// Charge is what a write adds to one quota's usage.
type Charge struct {
	Quota     string
	Requested List
}

// Object names the object a write is to, as refusals name it.
type Object struct {
	Group, Resource, Name string
}

// Check is kube's ResourceQuota admission of a CREATE or UPDATE (op) of obj
// (old is what it replaces; nil for a create) written to sub of o's
// resource, against its namespace's quotas (listed only when the write can
// change what they count): the charge to each quota that applies, or the
// refusal. A quota applies when its status.hard limits what obj is charged
// and obj is in its scopes; it refuses a Pod that leaves a limited cpu or
// memory unspecified, and everything it applies to while its status does not
// say what is used. An update is charged what it adds.
func Check(o Object, op, sub string, quotas func() []Quota, obj, old object.Object, now time.Time) ([]Charge, error) {
	e, ok := For(o.Group, o.Resource)
	if !ok || !e.Handles(op, sub) {
		return nil, nil
	}
	var applying []Quota
	for _, q := range quotas() {
		if !e.Matches(q, obj) {
			continue
		}
		limited := e.Matching(q.StatusHard.Names())
		if msg := e.Constraints(limited, obj); msg != "" {
			return nil, apierrors.NewForbidden(o.Group, o.Resource, o.Name, "failed quota: "+q.Name+": "+msg)
		}
		for _, r := range limited {
			if _, ok := q.Used[r]; !ok {
				sort.Strings(limited)
				return nil, apierrors.NewForbidden(o.Group, o.Resource, o.Name,
					"status unknown for quota: "+q.Name+", resources: "+strings.Join(limited, ","))
			}
		}
		applying = append(applying, q)
	}
	delta := e.Usage(obj, now)
	if old != nil && object.MetaString(old, "resourceVersion") != "" {
		delta = SubtractNonNegative(delta, e.Usage(old, now))
	}
	delta = delta.NonZero()
	if len(delta) == 0 {
		return nil, nil
	}
	var charges []Charge
	for _, q := range applying {
		requested := delta.Mask(q.StatusHard.Names())
		if len(requested) == 0 {
			continue
		}
		if _, err := q.Charged(o, requested); err != nil {
			return nil, err
		}
		charges = append(charges, Charge{Quota: q.Name, Requested: requested})
	}
	return charges, nil
}

// Charged is q's usage with requested added, or the refusal when that takes
// it over its limits.
func (q Quota) Charged(o Object, requested List) (List, error) {
	used := Add(q.Used, requested)
	if over := Exceeding(used.Mask(requested.Names()), q.StatusHard); len(over) > 0 {
		return nil, Exceeded(o.Group, o.Resource, o.Name, q.Name, requested.Mask(over), q.Used.Mask(over), q.StatusHard.Mask(over))
	}
	return used, nil
}
