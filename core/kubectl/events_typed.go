package kubectl

import "encoding/json"

// This file owns an Event as kubectl events' typed client holds it, for
// -o: corev1.Event's fields in their Go order (json's order), those the
// type always writes present even when the server's JSON lacks them
// (fields without omitempty: eventTime, reportingComponent,
// reportingInstance; struct fields, which omitempty does not drop:
// metadata.creationTimestamp, involvedObject, source, firstTimestamp,
// lastTimestamp), and the kind and apiVersion kubectl sets on each item.

// typedField is one field of a Go API type: its JSON name, its zero value
// when the type writes it always (nil: omitted when absent), and its own
// type's fields when it is an object.
type typedField struct {
	name   string
	always any
	fields []typedField
}

// jsonNull is a field the type writes as null when unset.
var jsonNull = json.RawMessage("null")

var (
	objectReferenceFields = []typedField{{name: "kind"}, {name: "namespace"}, {name: "name"}, {name: "uid"}, {name: "apiVersion"}, {name: "resourceVersion"}, {name: "fieldPath"}}
	ownerReferenceFields  = []typedField{{name: "apiVersion"}, {name: "kind"}, {name: "name"}, {name: "uid"}, {name: "controller"}, {name: "blockOwnerDeletion"}}
	managedFieldsFields   = []typedField{{name: "manager"}, {name: "operation"}, {name: "apiVersion"}, {name: "time"}, {name: "fieldsType"}, {name: "fieldsV1"}, {name: "subresource"}}
	objectMetaFields      = []typedField{{name: "name"}, {name: "generateName"}, {name: "namespace"}, {name: "selfLink"}, {name: "uid"},
		{name: "resourceVersion"}, {name: "generation"}, {name: "creationTimestamp", always: jsonNull}, {name: "deletionTimestamp"},
		{name: "deletionGracePeriodSeconds"}, {name: "labels"}, {name: "annotations"}, {name: "ownerReferences", fields: ownerReferenceFields},
		{name: "finalizers"}, {name: "managedFields", fields: managedFieldsFields}}
	eventFields = []typedField{{name: "kind", always: "Event"}, {name: "apiVersion", always: "v1"},
		{name: "metadata", always: map[string]any{}, fields: objectMetaFields},
		{name: "involvedObject", always: map[string]any{}, fields: objectReferenceFields},
		{name: "reason"}, {name: "message"},
		{name: "source", always: map[string]any{}, fields: []typedField{{name: "component"}, {name: "host"}}},
		{name: "firstTimestamp", always: jsonNull}, {name: "lastTimestamp", always: jsonNull},
		{name: "count"}, {name: "type"}, {name: "eventTime", always: jsonNull},
		{name: "series", fields: []typedField{{name: "count"}, {name: "lastObservedTime", always: jsonNull}}},
		{name: "action"}, {name: "related", fields: objectReferenceFields},
		{name: "reportingComponent", always: ""}, {name: "reportingInstance", always: ""}}
)

// typed orders v's fields as the type does; a list's items each.
func typed(v any, fields []typedField) any {
	if items, ok := v.([]any); ok {
		out := make([]any, len(items))
		for i, it := range items {
			out[i] = typed(it, fields)
		}
		return out
	}
	m, ok := v.(map[string]any)
	if !ok || fields == nil {
		return v
	}
	var out ordered
	for _, f := range fields {
		fv, ok := m[f.name]
		switch {
		case ok && fv != nil:
			out = append(out, member{f.name, typed(fv, f.fields)})
		case f.always != nil:
			out = append(out, member{f.name, typed(f.always, f.fields)})
		}
	}
	return out
}

// typedEventList is kubectl events' EventList of events, for -o.
func typedEventList(events []map[string]any) ordered {
	items := make([]any, len(events))
	for i, e := range events {
		items[i] = typed(e, eventFields)
	}
	return ordered{{"kind", "EventList"}, {"apiVersion", "v1"}, {"metadata", ordered{}}, {"items", items}}
}
