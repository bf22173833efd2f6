package registry

import (
	"context"
	"sync"

	"kubeplay/core/admission"
	"kubeplay/core/api"
	"kubeplay/core/object"
	"kubeplay/core/storage"
)

// The admission webhooks (core/admission) where kube's chain calls them:
// the mutating ones last of the mutating plugins, before validation, on a
// create, an update or a delete; the validating ones once the object is
// valid, after the other validating plugins but ResourceQuota, and on a
// delete. The configurations are read again only when one has changed.

// webhooks are the stored configurations' webhooks and their dispatch.
type webhooks struct {
	store      *Store
	dispatcher admission.Dispatcher

	// changes follow each configuration kind's last change.
	changes [2]storage.Changes

	mu sync.Mutex
	// byKind are the webhooks of each configuration kind, as of changed.
	byKind  [2][]*admission.Webhook
	changed [2]int64
	built   [2]bool
}

// webhookKinds are the configurations' resources: validating, mutating.
var webhookKinds = [2]string{"validatingwebhookconfigurations", "mutatingwebhookconfigurations"}

func newWebhooks(s *Store, call admission.Caller) *webhooks {
	w := &webhooks{store: s}
	for i, kind := range webhookKinds {
		w.changes[i] = s.storage.Changes(groupSegment(admission.Group) + "/" + kind)
	}
	w.dispatcher = admission.Dispatcher{Cluster: webhookCluster{s}, Call: call}
	return w
}

// current are the webhooks of the configurations of kind i as stored now.
func (w *webhooks) current(i int) []*admission.Webhook {
	s := w.store
	res := s.schema.ByGroupResource(admission.Group, webhookKinds[i])
	if res == nil {
		return nil
	}
	last := w.changes[i].Last()
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.built[i] || last != w.changed[i] {
		w.byKind[i], w.changed[i], w.built[i] = admission.Webhooks(s.Decoded(res)), last, true
	}
	return w.byKind[i]
}

// attributes are a write's, as kube's admission sees it: the resource in
// the request's version, and those serving the same objects.
func (w *webhooks) attributes(op Operation, t Target, obj, old object.Object) *admission.Attributes {
	req := t.Res
	if t.Via != nil {
		req = t.Via
	}
	a := &admission.Attributes{
		Operation: string(op), Resource: resourceOf(req), Subresource: t.Sub, Namespace: t.Namespace, Name: t.Name,
		Object: obj, OldObject: old, DryRun: t.DryRun, User: t.User, Warn: t.Warn,
	}
	if op == Create {
		a.OldObject = nil
	}
	schema := w.store.schema
	a.InVersion = func(res admission.Resource, obj object.Object) object.Object {
		if r := schema.Lookup(res.Group, res.Version, res.Resource); r != nil && r.View != nil {
			return r.View.FromStored(object.DeepCopy(obj))
		}
		return obj
	}
	a.FromVersion = func(res admission.Resource, obj object.Object) object.Object {
		if r := schema.Lookup(res.Group, res.Version, res.Resource); r != nil && r.View != nil {
			return r.View.ToStored(obj)
		}
		return obj
	}
	stored := t.Res.Storage()
	for _, r := range w.store.schema.All() {
		if r != req && r.Storage() == stored {
			a.Equivalents = append(a.Equivalents, resourceOf(r))
		}
	}
	return a
}

func resourceOf(r *api.Resource) admission.Resource {
	return admission.Resource{Group: r.Group, Version: r.Version, Resource: r.Plural, Kind: r.Kind}
}

// mutatingWebhooks is kube's MutatingAdmissionWebhook plugin: a patched
// object gets its kind's defaults again, as kube defaults what a webhook
// patched.
type mutatingWebhooks struct{ w *webhooks }

func (m mutatingWebhooks) Admit(op Operation, t Target, obj, old object.Object) error {
	hooks := m.w.current(1)
	if len(hooks) == 0 {
		return nil
	}
	a := m.w.attributes(op, t, obj, old)
	var before object.Object
	if obj != nil {
		before = object.DeepCopy(obj)
	}
	if err := m.w.dispatcher.Mutate(context.Background(), hooks, a); err != nil {
		return err
	}
	if obj != nil && !object.Equal(before, obj) {
		strategyFor(t, m.w.store.clock, m.w.store.cel).Canonicalize(obj)
	}
	return nil
}

// validatingWebhooks is kube's ValidatingAdmissionWebhook plugin.
type validatingWebhooks struct{ w *webhooks }

func (v validatingWebhooks) Admit(op Operation, t Target, obj, old object.Object) error {
	hooks := v.w.current(0)
	if len(hooks) == 0 {
		return nil
	}
	return v.w.dispatcher.Validate(context.Background(), hooks, v.w.attributes(op, t, obj, old))
}

// webhookCluster is what dispatch reads of the store.
type webhookCluster struct{ s *Store }

func (c webhookCluster) Namespace(name string) (object.Object, bool) {
	return c.get(c.s.namespaces(), "", name)
}

func (c webhookCluster) Service(namespace, name string) (object.Object, bool) {
	return c.get(c.s.schema.Lookup("", "v1", "services"), namespace, name)
}

func (c webhookCluster) get(res *api.Resource, namespace, name string) (object.Object, bool) {
	if res == nil {
		return nil, false
	}
	raw, ok := c.s.storage.Get(objectKey(res, namespace, name))
	if !ok {
		return nil, false
	}
	obj, err := object.Decode(raw)
	return obj, err == nil
}
