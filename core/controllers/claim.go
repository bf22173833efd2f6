package controllers

import (
	"context"
	"encoding/json"
	"fmt"

	"kubeplay/core/client"
	"kubeplay/core/web"
)

// Claim is kube's ControllerRefManager (of Pods, of ReplicaSets): it sorts a
// namespace's objects into those an owner controls, adopting the orphans its
// selector matches (a strategic merge patch adding its controller reference,
// once a fresh read has shown the owner is not being deleted) and releasing
// those it controls that the selector no longer matches (a patch deleting
// the reference), unless the owner is being deleted.
type Claim struct {
	C          *client.Client
	Owner      *ObjectMeta
	APIVersion string // the owner's
	Kind       string
	// Path is the owner's own path, read again before the first adoption.
	Path    string
	Selects func(labels map[string]string) bool
	// Prefix and Resource name the claimed objects' collection, Of their
	// kind: "/api/v1", "pods", "Pod".
	Prefix, Resource, Of string

	checked  bool
	adoptErr error
}

// Claimed is those of objs the owner controls once claimed, and the first
// error of an adoption or release (the owner's sync is to be tried again).
// An adopted object is a copy with the metadata stored by the adoption (objs
// are an informer's, never changed), so that a write of the whole object
// after it keeps the new owner.
func Claimed[T any, P typed[T]](ctx context.Context, c *Claim, objs []P) ([]P, error) {
	var claimed []P
	var first error
	for _, o := range objs {
		ok, adopted, err := c.claim(ctx, &o.object().Metadata)
		if adopted != nil {
			copied := *o
			P(&copied).object().Metadata = *adopted
			o = &copied
		}
		if ok {
			claimed = append(claimed, o)
		}
		if first == nil {
			first = err
		}
	}
	return claimed, first
}

// claim says whether the owner controls the object of m once claimed, with
// the metadata stored when it adopted it.
func (c *Claim) claim(ctx context.Context, m *ObjectMeta) (bool, *ObjectMeta, error) {
	deleting := c.Owner.DeletionTimestamp != ""
	if uid := m.Controller(); uid != "" {
		switch {
		case uid != c.Owner.UID:
			return false, nil, nil
		case c.Selects(m.Labels):
			return true, nil, nil
		case deleting:
			return false, nil, nil
		}
		patch := map[string]any{"metadata": map[string]any{"uid": m.UID,
			"ownerReferences": []any{map[string]string{"$patch": "delete", "uid": c.Owner.UID}}}}
		if _, err := c.patch(ctx, m, patch); err != nil && !client.IsNotFound(err) && !client.IsInvalid(err) {
			return false, nil, err
		}
		return false, nil, nil
	}
	if deleting || !c.Selects(m.Labels) || m.DeletionTimestamp != "" || m.Namespace != c.Owner.Namespace {
		return false, nil, nil
	}
	if err := c.canAdopt(ctx); err != nil {
		return false, nil, fmt.Errorf("can't adopt %s %s/%s (%s): %w", c.Of, m.Namespace, m.Name, m.UID, err)
	}
	patch := map[string]any{"metadata": map[string]any{"uid": m.UID,
		"ownerReferences": []OwnerReference{OwnerRef(c.Owner, c.APIVersion, c.Kind)}}}
	stored, err := c.patch(ctx, m, patch)
	if err != nil {
		if client.IsNotFound(err) {
			return false, nil, nil
		}
		return false, nil, err
	}
	return true, stored, nil
}

// canAdopt is kube's RecheckDeletionTimestamp, read once: the owner as
// stored now must be the same object and not being deleted.
func (c *Claim) canAdopt(ctx context.Context) error {
	if c.checked {
		return c.adoptErr
	}
	c.checked = true
	obj, err := c.C.Get(ctx, c.Path)
	if err != nil {
		c.adoptErr = err
		return err
	}
	meta, _ := obj["metadata"].(map[string]any)
	switch {
	case meta["uid"] != c.Owner.UID:
		c.adoptErr = fmt.Errorf("original %s/%s is gone: got uid %v, wanted %s", c.Owner.Namespace, c.Owner.Name, meta["uid"], c.Owner.UID)
	case meta["deletionTimestamp"] != nil:
		c.adoptErr = fmt.Errorf("%s/%s has just been deleted at %v", c.Owner.Namespace, c.Owner.Name, meta["deletionTimestamp"])
	}
	return c.adoptErr
}

// patch patches the object of m and returns its metadata as stored.
func (c *Claim) patch(ctx context.Context, m *ObjectMeta, patch map[string]any) (*ObjectMeta, error) {
	body, err := json.Marshal(patch)
	if err != nil {
		return nil, err
	}
	data, err := c.C.Do(ctx, web.MethodPatch, c.Prefix+"/namespaces/"+m.Namespace+"/"+c.Resource+"/"+m.Name, "application/strategic-merge-patch+json", body)
	if err != nil {
		return nil, err
	}
	var stored Object
	if err := json.Unmarshal(data, &stored); err != nil {
		return nil, err
	}
	return &stored.Metadata, nil
}
