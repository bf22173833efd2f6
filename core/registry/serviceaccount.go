package registry

import (
	"context"
	"time"

	"kubeplay/core/admission"
	"kubeplay/core/apierrors"
	"kubeplay/core/clock"
	"kubeplay/core/object"
)

// serviceAccountAdmission runs kube's ServiceAccount admission
// (core/admission) on the Pods created, over the ServiceAccounts stored;
// validating says which of its halves.
type serviceAccountAdmission struct {
	plugin     admission.ServiceAccount
	validating bool
}

func newServiceAccountAdmission(s *Store, validating bool) serviceAccountAdmission {
	return serviceAccountAdmission{admission.ServiceAccount{Account: s.serviceAccount, GenerateName: generateName}, validating}
}

func (a serviceAccountAdmission) Admit(op Operation, t Target, obj, _ object.Object) error {
	if op != Create || !isPod(t) {
		return nil
	}
	if a.validating {
		return a.plugin.Validate(t.Namespace, object.MetaString(obj, "name"), obj)
	}
	return a.plugin.Admit(t.Namespace, admissionName(obj), obj)
}

// admissionName is the name kube's mutating admission errors give a new
// object, before its name is generated: its name, else its generateName
// (the validating plugins see the name generated).
func admissionName(obj object.Object) string {
	if name := object.MetaString(obj, "name"); name != "" {
		return name
	}
	return object.MetaString(obj, "generateName")
}

// serviceAccount is the ServiceAccount name of namespace as stored, waiting
// up to patience for a write that makes it (nil when none does).
func (s *Store) serviceAccount(namespace, name string, patience time.Duration) (object.Object, error) {
	res := s.schema.Lookup("", "v1", "serviceaccounts")
	var ctx context.Context
	for {
		rev := s.storage.Revision()
		if raw, ok := s.Current(res, namespace, name); ok {
			obj, err := object.Decode(raw)
			if err != nil {
				return nil, apierrors.NewInternal(err)
			}
			return obj, nil
		}
		if patience <= 0 {
			return nil, nil
		}
		if ctx == nil {
			var cancel context.CancelFunc
			ctx, cancel = clock.WithTimeout(context.Background(), s.clock, patience)
			defer cancel()
		}
		if s.storage.WaitForRevision(ctx, rev+1) != nil {
			return nil, nil
		}
	}
}
