// Package registry owns what happens to an object on its way into and out of
// storage, as k8s.io/apiserver's generic registry does: one Store for every kind
// over core/storage, which it opens with what storage needs of its keys and
// kinds (keys.go owns the key layout). Reads: get, list and watch with kube's
// resourceVersion semantics (the watch cache's revision, continue tokens,
// limits, freshness waits), objects that cannot be decoded, and storage's
// errors in kube's Status words (read.go). Writes: create, update, delete,
// delete collection, with kube's preconditions, conflicts and generated fields;
// a Strategy per kind for what differs (defaults, validation, what the main
// resource and each subresource may change, what deleting does), and admission
// plugins that judge a write against the rest of the cluster
// (NamespaceLifecycle). PUT, every PATCH and apply share one update path
// (Update with an UpdatedObjectInfo), so they share admission, validation and
// conflict handling. Every create and update is recorded in
// metadata.managedFields by a FieldManager (core/apply's). core/apiserver
// decodes a request, calls the Store and writes the answer.
package registry

import (
	"bytes"
	"errors"
	"kubeplay/core/admission"
	"math/rand/v2"
	"strconv"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/auth"
	"kubeplay/core/budget"
	"kubeplay/core/clock"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/quota"
	"kubeplay/core/storage"
	"kubeplay/core/user"
)

// Store is the generic registry store of every served kind.
type Store struct {
	storage   *storage.Store
	schema    *api.Registry
	clock     clock.Clock
	fields    FieldManager
	cel       api.CEL
	admission []Admission
	limits    limitRanger
	pods      podBudget
	quota     quotaAdmission
	services  *serviceAllocation

	// validating are the validating admission plugins that judge an
	// object once it is valid (LimitRanger's and ResourceQuota's aside).
	validating []Admission
	// freshnessWait is how long a read waits for a revision storage has not
	// reached.
	freshnessWait time.Duration
	// authz is the authorizer chain over the stored RBAC objects (rbac.go).
	authz *authorizer
	// controlPlane says whether a scheduler and a controller manager run
	// beside the API (computed.go); nil: they do not.
	controlPlane func() bool
	// tokens is the service account key (serviceaccounttoken.go).
	tokens tokenKeys
	// webhooks are the admission webhooks (webhooks.go).
	webhooks *webhooks
	items    itemCache // binary encodings of stored objects
}

// FieldManager keeps metadata.managedFields as kube's field manager does.
type FieldManager interface {
	// Update records in obj's managedFields what manager's write to res
	// (through subresource sub, at now) changes from old (nil for a new
	// object), and returns obj.
	Update(res *api.Resource, sub, manager string, now time.Time, old, obj object.Object) object.Object
}

// BootstrapPolicy is when a Store's bootstrap RBAC policy is written
// (Config.BootstrapPolicy).
type BootstrapPolicy int

const (
	PolicyAtOpen BootstrapPolicy = iota
	PolicyLateIfHeld
	PolicyLate
)

// Config configures a Store.
type Config struct {
	// BootstrapPolicy is when the bootstrap RBAC policy is written: by Open
	// (PolicyAtOpen), or by a later CreateBootstrapPolicy (a sandbox's, once
	// it has answered its first request) when the store already holds it (a
	// sandbox started again: PolicyLateIfHeld) or always (PolicyLate), Open
	// writing only what the administrators need (cluster-admin and its
	// binding); kube-apiserver too serves while its post-start hook writes
	// it.
	BootstrapPolicy BootstrapPolicy
	// Storage is what storage keeps and for how long (core/storage); Open
	// sets what depends on the registry's keys and kinds (the labels and
	// fields of an object, its collection, how it is restamped) and the clock.
	Storage storage.Config
	// Schema is the served kinds.
	Schema *api.Registry
	// Clock is the registry's time and storage's; nil is the wall clock.
	Clock clock.Clock
	// Fields records writes in metadata.managedFields; nil records nothing.
	Fields FieldManager
	// Pods is how many Pods may exist at once (the sandbox's budget,
	// core/budget); 0 bounds nothing.
	Pods int64
	// ServiceIPRange is kube-apiserver's --service-cluster-ip-range (default
	// DefaultServiceIPRange).
	ServiceIPRange string
	// FreshnessWait is how long a read waits for a newer resourceVersion than
	// storage has before 504 "Too large resource version" (default 3s, as
	// kube).
	FreshnessWait time.Duration
	// Authorization is kube-apiserver's --authorization-mode:
	// auth.ModeRBAC, or auth.ModeAlwaysAllow (the default here: a Store
	// without authentication in front of it, as tests use, lets every
	// write grant anything).
	Authorization string
	// CEL evaluates the Common Expression Language (the host's: core/cel,
	// or the browser's module); nil evaluates none.
	CEL api.CEL
	// Webhooks reaches the admission webhooks configured with a url; nil:
	// none is reachable (core/admission).
	Webhooks admission.Caller
	// ControlPlane says whether the rest of a control plane (a scheduler, a
	// controller manager: a simulated cluster's) runs beside the API, as
	// the componentstatuses show; nil: none does.
	ControlPlane func() bool
	// NoServiceAccountAdmission is kube-apiserver's
	// --disable-admission-plugins=ServiceAccount: Pods run as the account
	// they name, or none, which need not exist, and mount no token.
	NoServiceAccountAdmission bool
}

// Open opens (or restores) storage and is the registry over it, serving the
// kinds of cfg.Schema, with kube's system namespaces created if they are
// missing.
func Open(cfg Config) (*Store, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real
	}
	if cfg.FreshnessWait <= 0 {
		cfg.FreshnessWait = defaultFreshnessWait
	}
	s := &Store{schema: cfg.Schema, clock: cfg.Clock, fields: cfg.Fields, freshnessWait: cfg.FreshnessWait, cel: cfg.CEL,
		controlPlane: cfg.ControlPlane}
	s.authz = &authorizer{store: s, mode: cfg.Authorization}
	if s.authz.mode == "" {
		s.authz.mode = auth.ModeAlwaysAllow
	}
	sc := cfg.Storage
	sc.Attrs, sc.Collection, sc.Restamp, sc.Clock = s.attrs, collectionOfKey, object.Restamp, cfg.Clock
	st, err := storage.Open(sc)
	if err != nil {
		return nil, err
	}
	s.storage = st
	s.authz.changes = st.Changes(rbacCollections...)
	s.services, _ = newServiceAllocation(s, DefaultServiceIPRange)
	// In the order of kube's admission chain; then what the Service registry
	// allocates before it validates. Validating admission (LimitRanger's
	// bounds, the sandbox's Pod budget, ResourceQuota) judges the object as
	// it will be stored, named.
	s.limits, s.pods, s.quota = limitRanger{s}, podBudget{s, cfg.Pods}, quotaAdmission{s}
	s.webhooks = newWebhooks(s, cfg.Webhooks)
	s.admission = []Admission{newNamespaceLifecycle(s), s.limits}
	if !cfg.NoServiceAccountAdmission {
		s.admission = append(s.admission, newServiceAccountAdmission(s, false))
		s.validating = append(s.validating, newServiceAccountAdmission(s, true))
	}
	s.admission = append(s.admission, kindAdmission{}, priorityAdmission{s}, runtimeClassAdmission{s},
		defaultStorageClass{s}, storageProtection{}, defaultIngressClass{s}, mutatingWebhooks{s.webhooks}, s.services, rbacEscalation{s})
	s.validating = append(s.validating, policyParamAuthorization{s}, priorityClassDefault{priorityAdmission{s}}, runtimeClassOverhead{runtimeClassAdmission{s}},
		csrSignerAuthorization{s}, csrSubjectRestriction{}, validatingPolicies{s.webhooks}, validatingWebhooks{s.webhooks})
	if cfg.ServiceIPRange != "" {
		if err := s.SetServiceIPRange(cfg.ServiceIPRange); err != nil {
			st.Close()
			return nil, err
		}
	}
	if err := s.CreateSystemNamespaces(); err != nil {
		st.Close()
		return nil, err
	}
	if err := s.CreateSystemPriorityClasses(); err != nil {
		st.Close()
		return nil, err
	}
	switch {
	case cfg.BootstrapPolicy != PolicyAtOpen && s.holdsBootstrapPolicy():
		// Held: its reconciling comes later.
	case cfg.BootstrapPolicy == PolicyLate:
		err = s.createBootstrapPolicy(adminPolicy)
	default:
		err = s.CreateBootstrapPolicy()
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	return s, nil
}

// attrs gives storage the labels and fields of a stored object.
func (s *Store) attrs(key string, value []byte) storage.Attrs {
	res := resourceForKey(s.schema, key)
	obj, err := object.Decode(value)
	if err != nil || res == nil {
		return storage.Attrs{}
	}
	return storage.Attrs{Labels: object.Labels(obj), Fields: res.FieldSet(obj)}
}

// Storage is the storage under the registry, for hosts (its restore errors,
// its revision) and tests.
func (s *Store) Storage() *storage.Store { return s.storage }

// Schema is the served kinds.
func (s *Store) Schema() *api.Registry { return s.schema }

// Target is what a write addresses.
type Target struct {
	Res       *api.Resource
	Namespace string // "" for cluster-scoped resources
	Name      string
	Sub       string // the subresource, "" for the resource itself
	// DryRun runs every stage of the write but storage (dryRun=All): no revision,
	// no event, no journal entry.
	DryRun bool
	// Manager is who writes, as metadata.managedFields names it: the request's
	// fieldManager, else its user agent's first segment.
	Manager string
	// Apply: the write is a server-side apply, whose UpdatedObjectInfo keeps
	// managedFields itself; it creates a missing object whatever the kind's
	// CreateOnUpdate.
	Apply bool
	// User is who asks: the reviews answer about them.
	User user.User
	// Warn, when set, hears the warnings of the write (kube's Warning
	// headers).
	Warn func(text string)
	// Committed, when set, hears the revision of every change the write
	// commits (a deletecollection's, one per object): the request log ties
	// each change history keeps to the request that made it (LEARN-5).
	Committed func(rev int64)
	// Via is the view the write came through (Res is then what it views):
	// the kind's strategy validates by the request's version, as kube's do.
	Via *api.Resource
	// inCollection: the delete is one of a deletecollection's, which
	// kube's generic store makes without the kind's own Delete (a system
	// PriorityClass goes too).
	inCollection bool
	// charged is what the write charged its namespace's quotas so far (an
	// update charges them, then tries again): their limits are judged
	// without it.
	charged []quota.Charge
}

// committed tells t.Committed of a change committed at rev (a Keep commits
// none).
func (t Target) committed(rev int64, op storage.Op) {
	if t.Committed != nil && op != storage.Keep {
		t.Committed(rev)
	}
}

// served is the resource the request named: its objects are what a missing
// or conflicting object is called (kube's qualified resource).
func (t Target) served() *api.Resource {
	if t.Via != nil {
		return t.Via
	}
	return t.Res
}

// stored is t as a write to the objects t.Res views, for a view (and t
// itself otherwise).
func (t Target) stored() Target {
	if t.Res.View != nil {
		t.Via, t.Res = t.Res, t.Res.View.Stored
	}
	return t
}

// updateWarner is a strategy whose kind's updates may warn (kube's
// WarningsOnUpdate).
type updateWarner interface {
	WarningsOnUpdate(obj, old object.Object) []string
}

// warn tells t of a write's warnings.
func (t Target) warn(texts []string) {
	if t.Warn != nil {
		for _, text := range texts {
			t.Warn(text)
		}
	}
}

func (t Target) key() string { return objectKey(t.Res, t.Namespace, t.Name) }

// Operation names a write for admission.
type Operation string

// The operations admission sees.
const (
	Create Operation = "CREATE"
	Update Operation = "UPDATE"
	Delete Operation = "DELETE"
)

// Create stores a new object (decoded from a request, its namespace the
// target's) and returns it as stored; a virtual kind's (a review's) is
// answered, not stored.
func (s *Store) Create(t Target, obj object.Object) ([]byte, error) {
	if t.Res.Virtual {
		obj["kind"], obj["apiVersion"] = t.Res.Kind, t.Res.APIVersion()
		answer, err := auth.Review(t.Res.Kind, t.User, t.Namespace, obj, s.clock.Now(), s.Authorizer())
		if err != nil {
			return nil, err
		}
		return encode(t.Res, answer)
	}
	if v := t.Res.View; v != nil {
		obj, t = v.ToStored(obj), t.stored()
	}
	st := strategyFor(t, s.clock, s.cel)
	charges, err := s.prepareNew(st, t, obj)
	if err != nil {
		return nil, err
	}
	t.Name = object.MetaString(obj, "name")
	if err := s.quota.charge(t, t.Name, charges); err != nil {
		return nil, err
	}
	return s.mutate(t, func(cur []byte, rev int64) (storage.Change, error) {
		if cur != nil {
			st := apierrors.NewAlreadyExists(t.served().Group, t.served().Plural, t.Name)
			// kube says so when the object there is being deleted.
			if old, err := object.Decode(cur); err == nil && object.Meta(old)["deletionTimestamp"] != nil {
				st.Message = "object is being deleted: " + st.Message
			}
			return storage.Change{}, st
		}
		return s.put(t, obj, rev)
	})
}

// mutate commits fn's change at t's key; for a dry run it computes the change and
// commits nothing, and shows what would be stored with the resourceVersion kube
// shows then: the current one for an object that exists, for a new one what
// put left (none, or the one an update that creates was sent with).
func (s *Store) mutate(t Target, fn storage.MutateFunc) ([]byte, error) {
	if !t.DryRun {
		var op storage.Op
		rev, stored, err := s.storage.Mutate(t.key(), func(cur []byte, rev int64) (storage.Change, error) {
			ch, err := fn(cur, rev)
			op = ch.Op
			return ch, err
		})
		if err == nil {
			t.committed(rev, op)
		}
		return stored, overBudget(t, err)
	}
	var cur []byte
	ch, err := s.storage.Try(t.key(), func(c []byte, rev int64) (storage.Change, error) {
		cur = c
		return fn(c, rev)
	})
	if err != nil || ch.Op == storage.Keep {
		return ch.Value, overBudget(t, err)
	}
	obj, err := object.Decode(ch.Value)
	if err != nil {
		return nil, apierrors.NewInternal(err)
	}
	if cur == nil {
		return ch.Value, nil
	}
	if old, err := object.Decode(cur); err == nil {
		object.Meta(obj)["resourceVersion"] = object.MetaString(old, "resourceVersion")
	}
	return encode(t.Res, obj)
}

// overBudget is err, or the sandbox's exceeded-quota answer when the store
// refused the write as over its budget.
func overBudget(t Target, err error) error {
	if st := budget.FromRefusal(t.served().Group, t.served().Plural, t.Name, err); st != nil {
		return st
	}
	return err
}

// prepareNew turns a new object into the one to store, in kube's order: the
// kind's defaults and conversions, the write recorded in managedFields (unless
// an apply did), admission, its name (from generateName), what the kind sets
// on create, validation, its warnings, the validating admission (LimitRanger's,
// the Priority and RuntimeClass plugins', then ResourceQuota's, which tells
// what to charge its quotas: none for a dry run), and the fields the server
// owns.
func (s *Store) prepareNew(st Strategy, t Target, obj object.Object) ([]quota.Charge, error) {
	meta := object.Meta(obj)
	st.Canonicalize(obj)
	dropEmptyMeta(meta)
	if !t.Apply {
		s.recordFields(t, nil, obj)
	}
	name, _ := meta["name"].(string)
	t.Name = name
	if err := s.admit(Create, t, obj, nil); err != nil {
		return nil, err
	}
	if gen, _ := meta["generateName"].(string); name == "" && gen != "" {
		name = generateName(gen)
		meta["name"] = name
	}
	// The fields the server fills in before the kind prepares the object, as
	// kube's FillObjectMetaSystemFields (a Job's selector names its uid).
	meta["uid"] = object.NewUID()
	meta["creationTimestamp"] = object.Timestamp(s.clock.Now())
	st.PrepareForCreate(obj)
	name, _ = meta["name"].(string) // a LimitRange without one is given one
	if h := t.Res.Hooks.SetRequester; h != nil {
		h(obj, t.User)
	}
	errs := st.Validate(obj)
	if len(errs) == 0 || !checksNoMetadata[t.Res.Group+"/"+t.Res.Kind] {
		errs = append(validateObjectMeta(meta, t.Res, name), errs...)
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(t.Res.Group, t.Res.Kind, name, errs)
	}
	st.AsRead(obj)
	t.warn(st.WarningsOnCreate(obj))
	if err := s.limits.validate(Create, t, obj, nil); err != nil {
		return nil, err
	}
	if err := s.validate(Create, t, obj, nil); err != nil {
		return nil, err
	}
	t.Name = name
	if err := s.pods.Admit(Create, t, obj, nil); err != nil {
		return nil, err
	}
	charges, err := s.quota.check(Create, t, obj, nil)
	if err != nil {
		return nil, err
	}
	if t.DryRun {
		charges = nil
	}
	for _, f := range []string{"resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"} {
		delete(meta, f)
	}
	if t.Res.Generation {
		meta["generation"] = 1
	} else {
		delete(meta, "generation")
	}
	obj["kind"], obj["apiVersion"] = t.Res.Kind, t.Res.APIVersion()
	return charges, nil
}

// put is the change that stores obj at revision rev; a dry run's obj keeps
// the resourceVersion it has, as kube's dry-run storage gives none.
func (s *Store) put(t Target, obj object.Object, rev int64) (storage.Change, error) {
	if !t.DryRun {
		object.SetResourceVersion(obj, rev)
	}
	b, err := encode(t.Res, obj)
	if err == nil {
		err = checkStorageSize(t.Res, t.key(), obj, b)
	}
	return storage.Change{Op: storage.Put, Value: b}, err
}

// UpdatedObjectInfo computes the object a write wants from the one stored (nil
// when there is none), as kube's rest.UpdatedObjectInfo does: a PUT's body, a
// patch applied, an apply merged. It may run more than once, on newer objects,
// and must return a fresh object each time.
type UpdatedObjectInfo func(old object.Object) (object.Object, error)

// Update is every write to an existing object, PUT, PATCH and apply alike: it
// computes the new object with info, gives it the kind's defaults, checks the
// resourceVersion precondition, keeps what the target may not change, admits
// and validates it, and stores it only if something changed. A missing object
// is created where the kind allows it. It returns the object as stored and
// whether it was created. A write to the scale subresource updates the parent
// and returns its Scale.
func (s *Store) Update(t Target, info UpdatedObjectInfo) ([]byte, bool, error) {
	if v := t.Res.View; v != nil {
		// The write computes the object in the view's form, from the stored
		// object in that form.
		through := info
		info = func(old object.Object) (object.Object, error) {
			if old != nil {
				old = v.FromStored(object.DeepCopy(old))
			}
			obj, err := through(old)
			if err != nil {
				return nil, err
			}
			return v.ToStored(obj), nil
		}
		t = t.stored()
	}
	if t.Sub == "scale" {
		stored, _, err := s.update(t, scaleInfo(t, info))
		if err != nil {
			return nil, false, err
		}
		scale, err := scaleAnswer(t.Res, stored)
		return scale, false, err
	}
	return s.update(t, info)
}

// update is Update of the object itself or its status. What the write is
// to be charged to its namespace's quotas is charged outside the storage
// transaction (whose function may run again, and may do nothing but decide):
// the transaction stops to ask for it, and is tried again once it is
// charged.
func (s *Store) update(t Target, info UpdatedObjectInfo) ([]byte, bool, error) {
	var charged []quota.Charge
	for round := 0; ; round++ {
		stored, created, err := s.updateCharged(t, info, charged)
		var pending *pendingCharge
		if !errors.As(err, &pending) {
			return stored, created, err
		}
		if round == maxChargeRounds {
			return nil, false, apierrors.NewConflict(t.served().Group, t.served().Plural, t.Name, apierrors.ConflictModified)
		}
		if err := s.quota.charge(t, pending.name, pending.charges); err != nil {
			return nil, false, err
		}
		charged = append(charged, pending.charges...)
	}
}

// updateCharged is one try of update, the write already charged charged:
// it asks for more (a *pendingCharge) when it needs it.
func (s *Store) updateCharged(t Target, info UpdatedObjectInfo, charged []quota.Charge) ([]byte, bool, error) {
	st := strategyFor(t, s.clock, s.cel)
	t.charged = charged
	// needs asks for the charges not yet made.
	needs := func(charges []quota.Charge, name string) error {
		if len(charges) == 0 || covered(charges, charged) {
			return nil
		}
		return &pendingCharge{name: name, charges: charges}
	}
	var created bool
	var finalized []byte // the answer to a write that removed the last finalizer
	stored, err := s.mutate(t, func(cur []byte, rev int64) (storage.Change, error) {
		created, finalized = false, nil
		if cur == nil {
			if !(t.Res.CreateOnUpdate || t.Apply) || t.Sub != "" {
				return storage.Change{}, apierrors.NewNotFound(t.served().Group, t.served().Plural, t.Name)
			}
			obj, err := info(nil)
			if err != nil {
				return storage.Change{}, err
			}
			sent := object.MetaString(obj, "resourceVersion")
			charges, err := s.prepareNew(st, t, obj)
			if err == nil {
				err = needs(charges, object.MetaString(obj, "name"))
			}
			if err != nil {
				return storage.Change{}, err
			}
			if t.DryRun && sent != "" {
				// kube's dry-run storage shows the object as the update made it.
				object.Meta(obj)["resourceVersion"] = sent
			}
			created = true
			return s.put(t, obj, rev)
		}
		if IsCorrupt(cur) {
			return storage.Change{}, errUntransformable
		}
		old, err := object.Decode(cur)
		if err != nil {
			return storage.Change{}, apierrors.NewInternal(err)
		}
		// As kube reads what it stored: with the kind's defaults (an object
		// stored before a default existed gets it too).
		st.Canonicalize(old)
		obj, err := info(old)
		if err != nil {
			return storage.Change{}, err
		}
		st.Canonicalize(obj)
		oldMeta, meta := object.Meta(old), object.Meta(obj)
		dropEmptyMeta(meta)
		oldRV, _ := oldMeta["resourceVersion"].(string)
		if rv, _ := meta["resourceVersion"].(string); rv != "" && rv != oldRV {
			return storage.Change{}, apierrors.NewConflict(t.served().Group, t.served().Plural, t.Name, apierrors.ConflictModified)
		}
		if uid, _ := meta["uid"].(string); uid != "" && uid != oldMeta["uid"] {
			// kube validates the metadata update twice: the cause comes twice.
			immutable := field.Invalid(field.NewPath("metadata", "uid"), uid, "field is immutable")
			return storage.Change{}, apierrors.NewInvalid(t.Res.Group, t.Res.Kind, t.Name, field.ErrorList{immutable, immutable})
		}
		keepServerFields(obj, old, t.Res)
		if !t.Apply {
			// As kube's handler records the write before its store prepares it
			// (a Service's allocated values kept are nobody's).
			s.recordFields(t, old, obj)
		}
		obj = st.PrepareForUpdate(obj, old, t.Sub)
		if err := s.admit(Update, t, obj, old); err != nil {
			return storage.Change{}, err
		}
		errs := validateObjectMetaUpdate(object.Meta(obj), oldMeta)
		errs = append(errs, validateObjectMeta(object.Meta(obj), t.Res, t.Name)...)
		errs = append(errs, st.ValidateUpdate(obj, old, t.Sub)...)
		if t.Sub == "" {
			errs = append(errs, validateUpdatedLabels(object.Meta(obj), t.Res)...)
		}
		if len(errs) > 0 {
			return storage.Change{}, apierrors.NewInvalid(t.Res.Group, t.Res.Kind, t.Name, errs)
		}
		st.AsRead(obj)
		if w, ok := st.(updateWarner); ok {
			t.warn(w.WarningsOnUpdate(obj, old))
		}
		if err := s.limits.validate(Update, t, obj, old); err != nil {
			return storage.Change{}, err
		}
		if err := s.validate(Update, t, obj, old); err != nil {
			return storage.Change{}, err
		}
		charges, err := s.quota.check(Update, t, obj, old)
		if err == nil && !t.DryRun {
			err = needs(charges, t.Name)
		}
		if err != nil {
			return storage.Change{}, err
		}
		object.SetResourceVersion(obj, mustParseRV(oldRV))
		if b, err := encode(t.Res, obj); err != nil {
			return storage.Change{}, err
		} else if bytes.Equal(b, cur) {
			return storage.Change{Op: storage.Keep}, nil
		}
		if t.Sub != "status" && st.NewGeneration(obj, old) { // status writes never bump it, as in kube
			gen := object.Int(oldMeta["generation"])
			object.Meta(obj)["generation"] = gen + 1
		}
		if st.DeleteWhenFinalized(obj, old) {
			// The last finalizer is gone: the object goes, as it was stored
			// (what the DELETED event carries), and the writer is answered
			// with what it wrote, as kube answers.
			if finalized, err = object.Encode(obj); err != nil {
				return storage.Change{}, err
			}
			return deletion(cur, rev)
		}
		return s.put(t, obj, rev)
	})
	if finalized != nil && err == nil {
		stored = finalized
	}
	return stored, created, err
}

// recordFields records t's write from old (nil for a new object) to obj in
// obj's managedFields.
func (s *Store) recordFields(t Target, old, obj object.Object) {
	if s.fields == nil || t.Sub == "binding" { // kube binds without its field manager
		return
	}
	if t.Via == nil {
		s.fields.Update(t.Res, t.Sub, t.Manager, s.clock.Now(), old, obj)
		return
	}
	// Through a view, in the view's form: kube's field manager works in the
	// request's version.
	v := t.Via.View
	if old != nil {
		old = v.FromStored(object.DeepCopy(old))
	}
	seen := v.FromStored(object.DeepCopy(obj))
	s.fields.Update(t.Via, t.Sub, t.Manager, s.clock.Now(), old, seen)
	if mf, ok := object.Meta(seen)["managedFields"]; ok {
		object.Meta(obj)["managedFields"] = mf
	} else {
		delete(object.Meta(obj), "managedFields")
	}
}

// dropEmptyMeta removes the metadata fields kube's ObjectMeta omits when
// empty: labels, annotations, owner references, finalizers.
func dropEmptyMeta(meta map[string]any) {
	for _, f := range []string{"labels", "annotations", "ownerReferences", "finalizers"} {
		switch v := meta[f].(type) {
		case map[string]any:
			if len(v) == 0 {
				delete(meta, f)
			}
		case []any:
			if len(v) == 0 {
				delete(meta, f)
			}
		case nil:
			delete(meta, f)
		}
	}
}

// keepServerFields carries over the metadata only the server writes.
func keepServerFields(obj, old object.Object, res *api.Resource) {
	oldMeta, meta := object.Meta(old), object.Meta(obj)
	for _, f := range []string{"uid", "creationTimestamp", "generation", "deletionTimestamp", "deletionGracePeriodSeconds", "generateName"} {
		if v, ok := oldMeta[f]; ok {
			meta[f] = v
		} else {
			delete(meta, f)
		}
	}
	delete(meta, "selfLink")
	obj["kind"], obj["apiVersion"] = res.Kind, res.APIVersion()
}

// generateName is what kube's name generator makes of a generateName: the prefix,
// cut to leave room, and five characters from an alphabet without vowels or easily
// confused characters.
func generateName(prefix string) string {
	if len(prefix) > 58 {
		prefix = prefix[:58]
	}
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	var b [5]byte
	for i := range b {
		b[i] = alphabet[rand.IntN(len(alphabet))]
	}
	return prefix + string(b[:])
}

func mustParseRV(rv string) int64 {
	n, _ := strconv.ParseInt(rv, 10, 64)
	return n
}

// specChanged says whether anything but metadata, status and the type differs:
// what bumps metadata.generation.
func specChanged(a, b object.Object) bool {
	skip := func(k string) bool { return k == "metadata" || k == "status" || k == "kind" || k == "apiVersion" }
	for k, v := range a {
		if skip(k) {
			continue
		}
		if w, ok := b[k]; !ok || !object.Equal(v, w) {
			return true
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok && !skip(k) {
			return true
		}
	}
	return false
}
