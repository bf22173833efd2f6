package controllers

import (
	"context"
	"encoding/json"
	"fmt"

	"kubeplay/core/client"
	"kubeplay/core/web"
)

// Claim is kube's PodControllerRefManager: it sorts a namespace's Pods into
// those an owner controls, adopting the orphans its selector matches (a
// strategic merge patch adding its controller reference, once a fresh read
// has shown the owner is not being deleted) and releasing those it
// controls that the selector no longer matches (a patch deleting the
// reference), unless the owner is being deleted.
type Claim struct {
	C          *client.Client
	Owner      *ObjectMeta
	APIVersion string // the owner's
	Kind       string
	// Path is the owner's own path, read again before the first adoption.
	Path    string
	Selects func(labels map[string]string) bool

	checked  bool
	adoptErr error
}

// Pods is those of pods the owner controls once claimed, and the first error
// of an adoption or release (the owner's sync is to be tried again).
func (c *Claim) Pods(ctx context.Context, pods []*Pod) ([]*Pod, error) {
	var claimed []*Pod
	var first error
	for _, p := range pods {
		ok, err := c.claim(ctx, p)
		if ok {
			claimed = append(claimed, p)
		}
		if first == nil {
			first = err
		}
	}
	return claimed, first
}

func (c *Claim) claim(ctx context.Context, p *Pod) (bool, error) {
	deleting := c.Owner.DeletionTimestamp != ""
	if uid := p.Metadata.Controller(); uid != "" {
		switch {
		case uid != c.Owner.UID:
			return false, nil
		case c.Selects(p.Metadata.Labels):
			return true, nil
		case deleting:
			return false, nil
		}
		patch := map[string]any{"metadata": map[string]any{"uid": p.Metadata.UID,
			"ownerReferences": []any{map[string]string{"$patch": "delete", "uid": c.Owner.UID}}}}
		if err := c.patch(ctx, p, patch); err != nil && !client.IsNotFound(err) && !client.IsInvalid(err) {
			return false, err
		}
		return false, nil
	}
	if deleting || !c.Selects(p.Metadata.Labels) || p.Metadata.DeletionTimestamp != "" || p.Metadata.Namespace != c.Owner.Namespace {
		return false, nil
	}
	if err := c.canAdopt(ctx); err != nil {
		return false, fmt.Errorf("can't adopt Pod %s/%s (%s): %w", p.Metadata.Namespace, p.Metadata.Name, p.Metadata.UID, err)
	}
	patch := map[string]any{"metadata": map[string]any{"uid": p.Metadata.UID,
		"ownerReferences": []OwnerReference{OwnerRef(c.Owner, c.APIVersion, c.Kind)}}}
	if err := c.patch(ctx, p, patch); err != nil {
		if client.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
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

func (c *Claim) patch(ctx context.Context, p *Pod, patch map[string]any) error {
	body, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	_, err = c.C.Do(ctx, web.MethodPatch, "/api/v1/namespaces/"+p.Metadata.Namespace+"/pods/"+p.Metadata.Name, "application/strategic-merge-patch+json", body)
	return err
}
