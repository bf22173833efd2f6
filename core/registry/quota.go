package registry

import (
	"errors"

	"kubeplay/core/api"
	"kubeplay/core/object"
	"kubeplay/core/quantity"
	"kubeplay/core/quota"
	"kubeplay/core/storage"
)

// What kube's admission does with ResourceQuotas: the ResourceQuota
// admission plugin, which judges writes against the quotas of their
// namespace and charges them (core/quota counts). The kinds' strategies are
// their descriptors' (core/kinds).

// quotaAdmission is kube's ResourceQuota admission plugin, a validating
// one: it judges a write once it has passed validation (quota.Check), and
// charges the quotas it applies to before the write is stored, as kube's
// plugin updates their status.used (as kube-apiserver, through the status
// subresource, each against the quota as it is then): a write that fails
// after that stays charged until the resource quota controller counts
// again. A dry run is judged, not charged.
type quotaAdmission struct{ store *Store }

// check judges op's obj (replacing old) at t against t's namespace's
// quotas: what to charge them, or the refusal.
func (a quotaAdmission) check(op Operation, t Target, obj, old object.Object) ([]quota.Charge, error) {
	if t.Namespace == "" || t.Res.Virtual {
		return nil, nil
	}
	who := t.served()
	return quota.Check(quota.Object{Group: who.Group, Resource: who.Plural, Name: object.MetaString(obj, "name")}, string(op), t.Sub,
		func() []quota.Quota { return a.quotas(t.Namespace, t.charged) }, obj, old, a.store.clock.Now())
}

// quotas are the ResourceQuotas of namespace ns, by name, without what a
// write charged them already.
func (a quotaAdmission) quotas(ns string, charged []quota.Charge) []quota.Quota {
	l, err := a.store.storage.List(storage.ListOptions{Prefix: collectionPrefix(a.store.quotaResource(), ns)})
	if err != nil {
		return nil
	}
	out := make([]quota.Quota, 0, len(l.Items))
	for _, it := range l.Items {
		obj, err := object.Decode([]byte(it.Value))
		if err != nil {
			continue
		}
		q := quota.Read(obj)
		for _, c := range charged {
			if c.Quota == q.Name {
				q.Used = quota.SubtractNonNegative(q.Used, c.Requested).Mask(q.Used.Names())
			}
		}
		out = append(out, q)
	}
	return out
}

// charge adds what a write to t requests to its quotas' usage; it refuses
// the write when a quota is over its limits by then (the quotas charged
// before it stay charged). A quota deleted meanwhile is skipped.
func (a quotaAdmission) charge(t Target, name string, charges []quota.Charge) error {
	who := t.served()
	o := quota.Object{Group: who.Group, Resource: who.Plural, Name: name}
	for _, c := range charges {
		status := Target{Res: a.store.quotaResource(), Namespace: t.Namespace, Name: c.Quota, Sub: "status", Manager: "kube-apiserver", Committed: t.Committed}
		_, _, err := a.store.update(status, func(old object.Object) (object.Object, error) {
			if old == nil {
				return nil, errQuotaGone
			}
			used, err := quota.Read(old).Charged(o, c.Requested)
			if err != nil {
				return nil, err
			}
			next := object.DeepCopy(old)
			list := map[string]any{}
			for k, v := range used {
				list[k] = v
			}
			object.Child(next, "status")["used"] = list
			return next, nil
		})
		if err != nil && !errors.Is(err, errQuotaGone) {
			return err
		}
	}
	return nil
}

// errQuotaGone: a quota to charge was deleted meanwhile.
var errQuotaGone = errors.New("registry: quota deleted")

// quotaResource is the ResourceQuotas' resource.
func (s *Store) quotaResource() *api.Resource { return s.schema.Lookup("", "v1", "resourcequotas") }

// pendingCharge is what an update (or a create through one) must charge its
// quotas before it is stored: the store's update charges them, outside its
// storage transaction, and tries again.
type pendingCharge struct {
	name    string
	charges []quota.Charge
}

func (p *pendingCharge) Error() string { return "registry: quota charge pending" }

// covered says whether charged (what a write charged so far) holds every
// charge of charges.
func covered(charges, charged []quota.Charge) bool {
	for _, c := range charges {
		total := quota.List{}
		for _, d := range charged {
			if d.Quota == c.Quota {
				total = quota.Add(total, d.Requested)
			}
		}
		for r, v := range c.Requested {
			if quantity.Compare(total[r], v) < 0 {
				return false
			}
		}
	}
	return true
}

// maxChargeRounds bounds how often an update charges its quotas again
// because what it asks for grew meanwhile; past it the update conflicts.
const maxChargeRounds = 3
