package apiserver

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/registry"
	"kubeplay/core/selector"
)

// parseBool reads a boolean query parameter as kube's conversion does
// (runtime.Convert_Slice_string_To_bool): only "0" and "false" (any case) are
// false; anything else, even an empty value, is true. It never fails.
func parseBool(name, v string) (bool, error) {
	return v != "0" && !strings.EqualFold(v, "false"), nil
}

// param is a query parameter's first value and whether it is present at all: kube
// converts a present parameter even when its value is empty ("limit=" is 400,
// "watch=" is true).
func param(q url.Values, name string) (string, bool) {
	if vs := q[name]; len(vs) > 0 {
		return vs[0], true
	}
	return "", false
}

func parseInt(v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, apierrors.NewBadRequest(err.Error())
	}
	return n, nil
}

// parseListOptions reads the list/watch/get parameters of q for res.
func parseListOptions(q url.Values, res *api.Resource) (*registry.ListOptions, error) {
	o := &registry.ListOptions{}
	var err error
	if v := q.Get("labelSelector"); v != "" {
		if o.Labels, err = selector.ParseLabels(v); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	}
	if v := q.Get("fieldSelector"); v != "" {
		if o.Fields, err = selector.ParseFields(v); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		for i, t := range o.Fields {
			if res.SupportsField(t.Field) {
				if res.View != nil {
					o.Fields[i].Field = res.View.FieldLabels[t.Field] // selected as the stored kind's field
				}
				continue
			}
			return nil, apierrors.NewBadRequest(res.UnsupportedField(t.Field))
		}
	}
	if v, ok := param(q, "watch"); ok {
		if o.Watch, err = parseBool("watch", v); err != nil {
			return nil, err
		}
	}
	if v, ok := param(q, "allowWatchBookmarks"); ok {
		if o.AllowBookmarks, err = parseBool("allowWatchBookmarks", v); err != nil {
			return nil, err
		}
	}
	if v, ok := param(q, "sendInitialEvents"); ok {
		b, err := parseBool("sendInitialEvents", v)
		if err != nil {
			return nil, err
		}
		o.SendInitialEvents = &b
	}
	if v, ok := param(q, "timeoutSeconds"); ok {
		n, err := parseInt(v)
		if err != nil {
			return nil, err
		}
		o.TimeoutSeconds = &n
	}
	if v, ok := param(q, "limit"); ok {
		if o.Limit, err = parseInt(v); err != nil {
			return nil, err
		}
	}
	o.Continue = q.Get("continue")
	o.Match = q.Get("resourceVersionMatch")
	o.ResourceVersion = q.Get("resourceVersion")
	// kube 1.32 (its WatchList feature on) makes a watch from "" or "0" that
	// says nothing of initial events a streaming one (SetListOptionsDefaults):
	// its initial events end with a bookmark when bookmarks are allowed.
	if o.Watch && o.SendInitialEvents == nil && o.Match == "" && (o.ResourceVersion == "" || o.ResourceVersion == "0") {
		initial := true
		o.SendInitialEvents, o.Match = &initial, "NotOlderThan"
	}
	if errs := validateListOptions(o); len(errs) > 0 {
		return nil, apierrors.NewInvalid("meta.k8s.io", "ListOptions", "", errs)
	}
	if o.ResourceVersion != "" {
		if o.RV, err = parseResourceVersion(o.ResourceVersion); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// parseResourceVersion reads a resourceVersion parameter: opaque to clients, a
// revision number to the server.
func parseResourceVersion(v string) (int64, error) {
	n, err := strconv.ParseUint(v, 10, 63)
	if err != nil {
		// kube's versioner words it as a field error on resourceVersion.
		return 0, apierrors.NewBadRequest(fmt.Sprintf("resourceVersion: Invalid value: %q: %v", v, err))
	}
	return int64(n), nil
}

// validateListOptions is kube's ValidateListOptions for list and watch.
func validateListOptions(o *registry.ListOptions) field.ErrorList {
	var errs field.ErrorList
	if o.Watch {
		if o.SendInitialEvents != nil && o.Match != "NotOlderThan" {
			errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
		}
		if o.Match != "" {
			if o.SendInitialEvents == nil {
				errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
			}
			if o.Match != "NotOlderThan" {
				errs = append(errs, field.NotSupported(field.NewPath("resourceVersionMatch"), o.Match, []string{"NotOlderThan"}))
			}
			if o.Continue != "" {
				errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden when continue is provided"))
			}
		}
		return errs
	}
	if o.Match != "" {
		if o.ResourceVersion == "" {
			errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden unless resourceVersion is provided"))
		}
		if o.Continue != "" {
			errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden when continue is provided"))
		}
		if o.Match != "Exact" && o.Match != "NotOlderThan" {
			errs = append(errs, field.NotSupported(field.NewPath("resourceVersionMatch"), o.Match, []string{"Exact", "NotOlderThan", ""}))
		}
		if o.Match == "Exact" && o.ResourceVersion == "0" {
			errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
		}
	}
	if o.SendInitialEvents != nil {
		errs = append(errs, field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for list"))
	}
	return errs
}
