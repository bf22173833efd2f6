package registry

import (
	"fmt"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/object"
	"kubeplay/core/types"
)

// The kinds whose objects are computed at each read, never stored
// (api.Resource.Computed: kube's componentstatuses): a get finds one by
// name, a list filters them by its selectors, as kube's componentstatus
// REST does, and neither has a resourceVersion.

// computed are res's objects as of now, in their stored form.
func (s *Store) computed(res *api.Resource) ([]object.Object, [][]byte, error) {
	objs := res.Computed(s.controlPlane != nil && s.controlPlane())
	out := make([][]byte, len(objs))
	for i, o := range objs {
		b, err := object.EncodeOrdered(o, types.Order(res.APIVersion(), res.Kind))
		if err != nil {
			return nil, nil, apierrors.NewInternal(err)
		}
		out[i] = b
	}
	return objs, out, nil
}

// getComputed is the computed object name; kube's componentstatus REST
// words a missing one as an error of its own (a 500 without a reason).
func (s *Store) getComputed(res *api.Resource, name string) ([]byte, error) {
	objs, encoded, err := s.computed(res)
	if err != nil {
		return nil, err
	}
	for i, o := range objs {
		if object.MetaString(o, "name") == name {
			return encoded[i], nil
		}
	}
	return nil, apierrors.NewUnknown(fmt.Errorf("Component not found: %s", name))
}

// listComputed are the computed objects the selectors select (no page, no
// continue: kube's REST ignores them).
func (s *Store) listComputed(res *api.Resource, o *ListOptions) (*List, error) {
	objs, encoded, err := s.computed(res)
	if err != nil {
		return nil, err
	}
	l := &List{Items: []Item{}}
	for i, obj := range objs {
		if o.Labels.Matches(object.Labels(obj)) && o.Fields.Matches(res.FieldSet(obj)) {
			l.Items = append(l.Items, Item{Key: object.MetaString(obj, "name"), Value: string(encoded[i])})
		}
	}
	return l, nil
}
