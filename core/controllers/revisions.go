package controllers

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"slices"

	"kubeplay/core/client"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// The labels a ControllerRevision carries its hash in: kube's controller
// history's (a StatefulSet's revisions), and the DaemonSet controller's own.
const (
	RevisionHashLabel  = "controller.kubernetes.io/hash"
	DaemonSetHashLabel = "controller-revision-hash"
)

// Revisions keeps the ControllerRevisions of a DaemonSet or StatefulSet, as
// kube's controller history does: one per pod template (its data the patch
// that restores the template), named after the owner and the data's hash,
// numbered after the newest; a template seen before gets its revision back,
// renumbered as the newest, and the oldest beyond the history limit go.
type Revisions struct {
	C          *client.Client
	Owner      *ObjectMeta
	APIVersion string // the owner's
	Kind       string
	Expect     func(rv string) // told of each write's resourceVersion
	HashLabel  string          // RevisionHashLabel or DaemonSetHashLabel
}

// Sync brings the owner's revisions (have) up to its template and returns
// the current one.
func (r Revisions) Sync(ctx context.Context, template json.RawMessage, collisionCount *int64, limit *int64, have []*ControllerRevision) (*ControllerRevision, error) {
	var t map[string]any
	if err := json.Unmarshal(template, &t); err != nil {
		return nil, err
	}
	t["$patch"] = "replace"
	data, _ := json.Marshal(map[string]any{"spec": map[string]any{"template": t}})
	if collisionCount == nil { // the controllers count from 0, nil or not
		collisionCount = new(int64)
	}
	hash := TemplateHash(data, collisionCount)
	var newest int64
	var current *ControllerRevision
	for _, cr := range have {
		newest = max(newest, cr.Revision)
		if cr.Metadata.Name == r.Owner.Name+"-"+hash {
			current = cr
		}
	}
	path := "/apis/apps/v1/namespaces/" + r.Owner.Namespace + "/controllerrevisions"
	switch {
	case current == nil:
		var tm struct {
			Metadata ObjectMeta `json:"metadata"`
		}
		_ = json.Unmarshal(template, &tm)
		cr := &ControllerRevision{Data: data, Revision: newest + 1}
		cr.Metadata = ObjectMeta{Name: r.Owner.Name + "-" + hash, Namespace: r.Owner.Namespace,
			Labels: maps.Clone(tm.Metadata.Labels), Annotations: maps.Clone(r.Owner.Annotations),
			OwnerReferences: []OwnerReference{OwnerRef(r.Owner, r.APIVersion, r.Kind)}}
		if cr.Metadata.Labels == nil {
			cr.Metadata.Labels = map[string]string{}
		}
		cr.Metadata.Labels[r.HashLabel] = hash
		written, err := Send(ctx, r.C, web.MethodPost, path, struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			*ControllerRevision
		}{"apps/v1", "ControllerRevision", cr})
		if err != nil {
			return nil, err
		}
		if current, err = Read[ControllerRevision](written); err != nil {
			return nil, err
		}
		r.Expect(current.Metadata.ResourceVersion)
		have = append(have, current)
	case current.Revision < newest:
		_, err := Update(ctx, r.C, path+"/"+current.Metadata.Name, current.Raw, func(o object.Object) { o["revision"] = newest + 1 })
		if err != nil {
			return nil, err
		}
		current.Revision = newest + 1
	}
	if limit != nil && int64(len(have))-1 > *limit {
		old := slices.DeleteFunc(slices.Clone(have), func(cr *ControllerRevision) bool { return cr == current })
		slices.SortFunc(old, func(a, b *ControllerRevision) int { return cmp.Compare(a.Revision, b.Revision) })
		for _, cr := range old[:int64(len(old))-*limit] {
			if _, err := r.C.Delete(ctx, path+"/"+cr.Metadata.Name); err != nil && !client.IsNotFound(err) {
				return nil, err
			}
		}
	}
	return current, nil
}

// RevisionHash is the hash a ControllerRevision is named by.
func (r Revisions) RevisionHash(cr *ControllerRevision) string {
	return cr.Metadata.Labels[r.HashLabel]
}
