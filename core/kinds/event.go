package kinds

import (
	"kubeplay/core/conversion"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/schema"
)

// event is v1 Event.
func event() *schema.Resource {
	return &schema.Resource{
		Version: "v1", Kind: "Event", Plural: "events", Singular: "event", Namespaced: true,
		ShortNames: []string{"ev"}, Verbs: allVerbs, CreateOnUpdate: true, Names: schema.PathSegment,
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
			"source":                         str("source", "component"),
			"type":                           str("type"),
		},
		Printer: table.Event,
	}
}

// eventsV1 is the events.k8s.io/v1 Event: a view of the core/v1 Event,
// whose objects it shares (kube stores one and converts), with field
// selectors under its own names (its writes are validated by the Event
// strategy, by request version).
func eventsV1(event *schema.Resource) *schema.Resource {
	return &schema.Resource{
		Group: "events.k8s.io", Version: "v1", Kind: "Event", Plural: "events", Singular: "event",
		Namespaced: true, ShortNames: []string{"ev"}, Verbs: allVerbs, CreateOnUpdate: true, Names: schema.PathSegment,
		View: &schema.View{
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
