package validation

import (
	"fmt"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// Event is kube's legacy validation of a core/v1 Event, all of it for a
// create or an update through v1: its namespace agrees with its involved
// object's, and an Event with an eventTime names who reported what.
// It checks no metadata.
func Event(obj object.Object) field.ErrorList {
	var errs field.ErrorList
	ns := object.MetaString(obj, "namespace")
	involvedNS, _ := object.Path(obj, "involvedObject", "namespace").(string)
	mismatch := field.Invalid(field.NewPath("involvedObject", "namespace"), involvedNS, "does not match event.namespace")
	str := func(key string) string { s, _ := obj[key].(string); return s }
	if t, _ := obj["eventTime"].(string); t == "" {
		if involvedNS == "" && ns != "" && ns != "default" || involvedNS != "" && ns != involvedNS {
			errs = append(errs, mismatch)
		}
	} else {
		if involvedNS == "" && ns != "default" && ns != "kube-system" {
			errs = append(errs, mismatch)
		}
		controller := field.NewPath("reportingComponent")
		if str("reportingComponent") == "" {
			errs = append(errs, field.Required(controller, ""))
		}
		for _, msg := range QualifiedName(str("reportingComponent")) {
			errs = append(errs, field.Invalid(controller, str("reportingComponent"), msg))
		}
		for _, f := range []struct {
			key      string
			required bool
			limit    int
		}{{"reportingInstance", true, 128}, {"action", true, 128}, {"reason", true, 128}, {"message", false, 1024}} {
			if f.required && str(f.key) == "" {
				errs = append(errs, field.Required(field.NewPath(f.key), ""))
			}
			if len(str(f.key)) > f.limit {
				errs = append(errs, field.Invalid(field.NewPath(f.key), "", fmt.Sprintf("can have at most %v characters", f.limit)))
			}
		}
	}
	for _, msg := range DNS1123Subdomain(ns) {
		errs = append(errs, field.Invalid(field.NewPath("namespace"), ns, msg))
	}
	return errs
}
