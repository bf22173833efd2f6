package registry

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
	"kubeplay/core/quantity"
	"kubeplay/core/quota"
	"kubeplay/core/storage"
)

// limitRanger is kube's LimitRanger admission plugin over the LimitRanges
// of a write's namespace. As a mutating plugin (Admit) it gives a new Pod's
// containers the default requests and limits of Container limits, where
// they set none, and notes what it set in the kubernetes.io/limit-ranger
// annotation; as a validating one (validate) it refuses a new Pod, or a
// claim created or changed, that is outside a limit's min, max or
// maxLimitRequestRatio, in kube's words.
type limitRanger struct{ store *Store }

// limitRangerAnnotation notes the defaults a Pod was given.
const limitRangerAnnotation = "kubernetes.io/limit-ranger"

// applies says whether the plugin judges a write: a Pod created, a claim
// created or updated (not being deleted).
func (limitRanger) applies(op Operation, t Target, old object.Object) bool {
	if t.Res.Group != "" || t.Sub != "" || (op != Create && op != Update) || object.Path(old, "metadata", "deletionTimestamp") != nil {
		return false
	}
	return t.Res.Plural == "persistentvolumeclaims" || t.Res.Plural == "pods" && op == Create
}

// limits are the limits of the LimitRanges of namespace ns, by LimitRange
// name.
func (l limitRanger) limits(ns string) [][]map[string]any {
	res := l.store.schema.Lookup("", "v1", "limitranges")
	list, err := l.store.storage.List(storage.ListOptions{Prefix: collectionPrefix(res, ns)})
	if err != nil {
		return nil
	}
	var out [][]map[string]any
	for _, it := range list.Items {
		if lr, err := object.Decode([]byte(it.Value)); err == nil {
			spec, _ := lr["spec"].(map[string]any)
			out = append(out, object.Objects(spec, "limits"))
		}
	}
	return out
}

func (l limitRanger) Admit(op Operation, t Target, obj, old object.Object) error {
	if !l.applies(op, t, old) || t.Res.Plural != "pods" {
		return nil
	}
	for _, limits := range l.limits(t.Namespace) {
		requests, defaults := map[string]any{}, map[string]any{}
		for _, limit := range limits {
			if limit["type"] == "Container" {
				for k, v := range object.Child(limit, "defaultRequest") {
					requests[k] = v
				}
				for k, v := range object.Child(limit, "default") {
					defaults[k] = v
				}
			}
		}
		var notes []string
		spec := object.Child(obj, "spec")
		for _, list := range []struct{ field, what string }{{"containers", "container"}, {"initContainers", "init container"}} {
			for _, c := range object.Objects(spec, list.field) {
				res := object.Child(c, "resources")
				for _, set := range []struct {
					field, what string
					values      map[string]any
				}{{"requests", "request", requests}, {"limits", "limit", defaults}} {
					own := object.Child(res, set.field)
					var added []string
					for k, v := range set.values {
						if _, ok := own[k]; !ok {
							own[k] = v
							added = append(added, k)
						}
					}
					if len(own) == 0 {
						delete(res, set.field)
					}
					if len(added) > 0 {
						sort.Strings(added)
						notes = append(notes, strings.Join(added, ", ")+" "+set.what+" for "+list.what+" "+object.String(c["name"]))
					}
				}
			}
		}
		if len(notes) > 0 {
			object.Child(object.Meta(obj), "annotations")[limitRangerAnnotation] = "LimitRanger plugin set: " + strings.Join(notes, "; ")
		}
	}
	return nil
}

// validate refuses what is outside a limit, with every reason of the first
// LimitRange it breaks.
func (l limitRanger) validate(op Operation, t Target, obj, old object.Object) error {
	if !l.applies(op, t, old) {
		return nil
	}
	spec, _ := obj["spec"].(map[string]any)
	for _, limits := range l.limits(t.Namespace) {
		var errs []string
		for _, limit := range limits {
			typ := object.String(limit["type"])
			switch {
			case t.Res.Plural == "persistentvolumeclaims" && typ == "PersistentVolumeClaim":
				res, _ := spec["resources"].(map[string]any)
				requests := quota.ReadList(res, "requests")
				errs = appendBounds(errs, typ, limit, requests, nil, true)
			case t.Res.Plural == "pods" && typ == "Container":
				for _, c := range append(object.Objects(spec, "containers"), object.Objects(spec, "initContainers")...) {
					res, _ := c["resources"].(map[string]any)
					errs = appendBounds(errs, typ, limit, quota.ReadList(res, "requests"), quota.ReadList(res, "limits"), false)
				}
			case t.Res.Plural == "pods" && typ == "Pod":
				requests, limits := quota.Containers(spec)
				errs = appendBounds(errs, typ, limit, requests, limits, false)
			}
		}
		if len(errs) > 0 {
			return apierrors.NewForbidden(t.served().Group, t.served().Plural, object.MetaString(obj, "name"), aggregate(errs))
		}
	}
	return nil
}

// appendBounds adds to errs why requests and limits break limit's min, max
// and maxLimitRequestRatio (a claim's max bounds its request only).
func appendBounds(errs []string, typ string, limit map[string]any, requests, limits quota.List, claim bool) []string {
	for _, k := range quota.ReadList(limit, "min").Names() {
		min := quota.ReadList(limit, "min")[k]
		req, hasReq := requests[k]
		lim, hasLim := limits[k]
		prefix := "minimum " + k + " usage per " + typ + " is " + min
		switch {
		case !hasReq:
			errs = append(errs, prefix+".  No request is specified")
		case quantity.Compare(req, min) < 0:
			errs = append(errs, prefix+", but request is "+req)
		case hasLim && quantity.Compare(lim, min) < 0:
			errs = append(errs, prefix+", but limit is "+lim)
		}
	}
	for _, k := range quota.ReadList(limit, "max").Names() {
		max := quota.ReadList(limit, "max")[k]
		req, hasReq := requests[k]
		lim, hasLim := limits[k]
		prefix := "maximum " + k + " usage per " + typ + " is " + max
		switch {
		case claim && !hasReq:
			errs = append(errs, prefix+".  No request is specified")
		case claim && quantity.Compare(req, max) > 0:
			errs = append(errs, prefix+", but request is "+req)
		case claim:
		case !hasLim:
			errs = append(errs, prefix+".  No limit is specified")
		case quantity.Compare(lim, max) > 0:
			errs = append(errs, prefix+", but limit is "+lim)
		case hasReq && quantity.Compare(req, max) > 0:
			errs = append(errs, prefix+", but request is "+req)
		}
	}
	if claim {
		return errs
	}
	for _, k := range quota.ReadList(limit, "maxLimitRequestRatio").Names() {
		ratio := quota.ReadList(limit, "maxLimitRequestRatio")[k]
		req, lim := quantity.MilliValue(requests[k]), quantity.MilliValue(limits[k])
		prefix := k + " max limit to request ratio per " + typ + " is " + ratio
		switch observed := float64(lim) / float64(req); {
		case req == 0:
			errs = append(errs, prefix+", but no request is specified or request is 0")
		case lim == 0:
			errs = append(errs, prefix+", but no limit is specified or limit is 0")
		case observed*1000 > float64(quantity.MilliValue(ratio)):
			errs = append(errs, fmt.Sprintf("%s, but provided ratio is %f", prefix, observed))
		}
	}
	return errs
}

// aggregate is kube's aggregate error of messages: the one, or all (each
// once) in brackets.
func aggregate(msgs []string) string {
	var once []string
	for _, m := range msgs {
		if !slices.Contains(once, m) {
			once = append(once, m)
		}
	}
	if len(once) == 1 {
		return once[0]
	}
	return "[" + strings.Join(once, ", ") + "]"
}
