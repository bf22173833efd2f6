package kinds

import (
	"kubeplay/core/api"
	"kubeplay/core/conversion"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// event is v1 Event.
func event() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "Event", Plural: "events", Singular: "event", Namespaced: true,
		ShortNames: []string{"ev"}, Verbs: allVerbs, CreateOnUpdate: true, Names: api.PathSegment,
		Fields: map[string]func(object.Object) string{
			"involvedObject.kind":            str("involvedObject", "kind"),
			"involvedObject.namespace":       str("involvedObject", "namespace"),
			"involvedObject.name":            str("involvedObject", "name"),
			"involvedObject.uid":             str("involvedObject", "uid"),
			"involvedObject.apiVersion":      str("involvedObject", "apiVersion"),
			"involvedObject.resourceVersion": str("involvedObject", "resourceVersion"),
			"involvedObject.fieldPath":       str("involvedObject", "fieldPath"),
			"reason":                         str("reason"),
			"reportingComponent":             str("reportingComponent"),
			"source":                         eventSource,
			"type":                           str("type"),
		},
		Hooks: api.Hooks{
			LabelChecksOnUpdate: 2,
			// kube's legacy rules, on update too.
			Validate:            validation.Event,
			NoGarbageCollection: true,
		},
		Printer: table.Event,
	}
}

// eventSource is the source an Event is selected by: its source's component,
// else its reporting controller (an events.k8s.io/v1 Event's), as kube
// selects it.
func eventSource(e object.Object) string {
	if c := object.String(object.Path(e, "source", "component")); c != "" {
		return c
	}
	return object.String(e["reportingComponent"])
}

// eventsV1 is the events.k8s.io/v1 Event: a view of the core/v1 Event,
// whose objects it shares (kube stores one and converts), with field
// selectors under its own names, and its writes checked by its own rules
// (kube validates Events by the request's version).
func eventsV1(event *api.Resource) *api.Resource {
	return &api.Resource{
		Group: "events.k8s.io", Version: "v1", Kind: "Event", Plural: "events", Singular: "event",
		Namespaced: true, ShortNames: []string{"ev"}, Verbs: allVerbs, CreateOnUpdate: true, Names: api.PathSegment,
		Hooks: api.Hooks{
			Validate:       validation.EventsV1,
			ValidateUpdate: anySubresource(validation.EventsV1Update),
		},
		View: &api.View{
			Stored: event,
			FieldLabels: map[string]string{ // kube's field label conversion for events.k8s.io/v1
				"metadata.name":             "metadata.name",
				"metadata.namespace":        "metadata.namespace",
				"regarding.kind":            "involvedObject.kind",
				"regarding.namespace":       "involvedObject.namespace",
				"regarding.name":            "involvedObject.name",
				"regarding.uid":             "involvedObject.uid",
				"regarding.apiVersion":      "involvedObject.apiVersion",
				"regarding.resourceVersion": "involvedObject.resourceVersion",
				"regarding.fieldPath":       "involvedObject.fieldPath",
				"reason":                    "reason",
				"reportingController":       "reportingComponent",
				"type":                      "type",
			},
			FromStored: conversion.EventFromCore,
			ToStored:   conversion.EventToCore,
		},
	}
}
