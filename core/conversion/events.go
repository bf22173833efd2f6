// Package conversion owns the conversions between the forms kube serves one
// stored object in. kube stores an events.k8s.io/v1 Event as a core/v1
// Event and converts between them (pkg/apis/events/v1): the same fields
// under other names, metadata alike.
package conversion

import "kubeplay/core/object"

// eventFields pairs each events.k8s.io/v1 Event field with the core/v1
// Event field it is stored as.
var eventFields = [...][2]string{
	{"eventTime", "eventTime"},
	{"series", "series"},
	{"reportingController", "reportingComponent"},
	{"reportingInstance", "reportingInstance"},
	{"action", "action"},
	{"reason", "reason"},
	{"regarding", "involvedObject"},
	{"related", "related"},
	{"note", "message"},
	{"type", "type"},
	{"deprecatedSource", "source"},
	{"deprecatedFirstTimestamp", "firstTimestamp"},
	{"deprecatedLastTimestamp", "lastTimestamp"},
	{"deprecatedCount", "count"},
}

// EventFromCore turns a core/v1 Event into an events.k8s.io/v1 Event, in
// place; fields of neither are left out, as a typed conversion does.
func EventFromCore(obj object.Object) object.Object {
	return rename(obj, 1, 0, "events.k8s.io/v1")
}

// EventToCore turns an events.k8s.io/v1 Event into a core/v1 Event, in
// place.
func EventToCore(obj object.Object) object.Object {
	return rename(obj, 0, 1, "v1")
}

func rename(obj object.Object, from, to int, apiVersion string) object.Object {
	values := make(map[string]any, len(eventFields))
	for _, f := range eventFields {
		if v, ok := obj[f[from]]; ok {
			values[f[to]] = v
		}
	}
	for key := range obj {
		switch key {
		case "metadata", "kind":
		case "apiVersion":
			obj[key] = apiVersion
		default:
			delete(obj, key)
		}
	}
	for key, v := range values {
		obj[key] = v
	}
	return obj
}
