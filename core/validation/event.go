package validation

import (
	"fmt"
	"strconv"
	"time"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// Event is kube's legacy validation of a core/v1 Event, all of it for a
// create or an update through v1: its namespace agrees with its involved
// object's, and an Event with an eventTime names who reported what.
// It checks no metadata.
func Event(obj object.Object) field.ErrorList {
	return legacyEvent(obj, "reportingComponent")
}

// legacyEvent is the legacy validation, naming the reporting controller's
// field as the request's version does.
func legacyEvent(obj object.Object, controllerField string) field.ErrorList {
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
		controller := field.NewPath(controllerField)
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

// EventsV1 checks an Event (in its stored core/v1 form) created through
// events.k8s.io/v1, as kube does by request version: the legacy rules, then
// the strict ones, which name fields as core/v1 does: its metadata again,
// with names that are DNS subdomains, an eventTime, a type, a series of at least 2, and none of the
// deprecated fields.
func EventsV1(obj object.Object) field.ErrorList {
	errs := legacyEvent(obj, "reportingController")
	errs = append(errs, ObjectMeta(object.Meta(obj), object.MetaString(obj, "name"), DNS1123Subdomain, nil, true)...)
	errs = append(errs, eventSeries(obj)...)
	if t, _ := obj["eventTime"].(string); t == "" {
		errs = append(errs, field.Required(field.NewPath("eventTime"), ""))
	}
	if typ, _ := obj["type"].(string); typ != "Normal" && typ != "Warning" {
		errs = append(errs, field.Invalid(field.NewPath("type"), "", "has invalid value: "+typ))
	}
	for _, f := range []string{"firstTimestamp", "lastTimestamp"} {
		if t, _ := obj[f].(string); t != "" {
			errs = append(errs, field.Invalid(field.NewPath(f), "", "needs to be unset"))
		}
	}
	if object.Int(obj["count"]) != 0 {
		errs = append(errs, field.Invalid(field.NewPath("count"), "", "needs to be unset"))
	}
	if src, _ := obj["source"].(map[string]any); src["component"] != nil && src["component"] != "" || src["host"] != nil && src["host"] != "" {
		errs = append(errs, field.Invalid(field.NewPath("source"), "", "needs to be unset"))
	}
	return errs
}

// eventSeries checks a series written through events.k8s.io/v1.
func eventSeries(obj object.Object) field.ErrorList {
	series, ok := obj["series"].(map[string]any)
	if !ok {
		return nil
	}
	var errs field.ErrorList
	if object.Int(series["count"]) < 2 {
		errs = append(errs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
	}
	if t, _ := series["lastObservedTime"].(string); t == "" {
		errs = append(errs, field.Required(field.NewPath("series.lastObservedTime"), ""))
	}
	return errs
}

// EventsV1Update checks an update of an Event through events.k8s.io/v1: the
// legacy rules, its metadata, a changed series, and what an event may not
// change.
func EventsV1Update(obj, old object.Object) field.ErrorList {
	errs := legacyEvent(obj, "reportingController")
	// The metadata again (kube's ValidateObjectMetaUpdate): what the new
	// object's metadata holds.
	errs = append(errs, MetadataContents(object.Meta(obj))...)
	if !semanticEqual(obj["series"], old["series"]) {
		errs = append(errs, eventSeries(obj)...)
	}
	for _, f := range []string{"involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp",
		"count", "reason", "type", "eventTime", "action", "related", "reportingComponent", "reportingInstance"} {
		if !semanticEqual(obj[f], old[f]) {
			name := f
			if f == "reportingComponent" {
				name = "reportingController" // the internal type's name
			}
			var value any = obj[f]
			if f == "eventTime" || f == "firstTimestamp" || f == "lastTimestamp" {
				value = goTime(obj[f])
			}
			errs = append(errs, field.Invalid(field.NewPath(name), value, fieldImmutable))
		}
	}
	return errs
}

// goTime shows a time as kube's field errors show a metav1.Time or
// MicroTime: Go's time.Time String, in UTC (the zero time when unset).
func goTime(v any) field.GoSyntax {
	s, _ := v.(string)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil && s != "" {
		return field.GoSyntax(strconv.Quote(s))
	}
	return field.GoSyntax(t.UTC().String())
}
