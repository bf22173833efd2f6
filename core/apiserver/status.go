package apiserver

import (
	"encoding/json"
	"fmt"
	"kubeplay/core/web"
	"strconv"
	"strings"
)

// StatusCause is one cause in a Status's details.
type StatusCause struct {
	Type    string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	Field   string `json:"field,omitempty"`
}

// StatusDetails are a Status's details.
type StatusDetails struct {
	Name              string        `json:"name,omitempty"`
	Group             string        `json:"group,omitempty"`
	Kind              string        `json:"kind,omitempty"`
	UID               string        `json:"uid,omitempty"`
	Causes            []StatusCause `json:"causes,omitempty"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds,omitempty"`
}

// Status is metav1.Status: every error kubeplay answers is one. It is also an error.
type Status struct {
	Kind       string         `json:"kind"`
	APIVersion string         `json:"apiVersion"`
	Metadata   statusListMeta `json:"metadata"`
	Status     string         `json:"status,omitempty"`
	Message    string         `json:"message,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	Details    *StatusDetails `json:"details,omitempty"`
	Code       int            `json:"code,omitempty"`
}

type statusListMeta struct {
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Continue        string `json:"continue,omitempty"`
}

func (s *Status) Error() string { return s.Message }

func newStatus(code int, reason, msg string, details *StatusDetails) *Status {
	return &Status{Kind: "Status", APIVersion: "v1", Status: "Failure", Code: code, Reason: reason, Message: msg, Details: details}
}

// The constructors mirror k8s.io/apimachinery/pkg/api/errors: same codes, reasons
// and message shapes. qualified is the resource as messages name it ("configmaps",
// "deployments.apps").

func errNotFound(group, resource, name string) *Status {
	return newStatus(web.StatusNotFound, "NotFound", fmt.Sprintf("%s %q not found", qualify(group, resource), name),
		&StatusDetails{Name: name, Group: group, Kind: resource})
}

func errAlreadyExists(group, resource, name string) *Status {
	return newStatus(web.StatusConflict, "AlreadyExists", fmt.Sprintf("%s %q already exists", qualify(group, resource), name),
		&StatusDetails{Name: name, Group: group, Kind: resource})
}

func errConflict(group, resource, name, why string) *Status {
	return newStatus(web.StatusConflict, "Conflict",
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", qualify(group, resource), name, why),
		&StatusDetails{Name: name, Group: group, Kind: resource})
}

const conflictModified = "the object has been modified; please apply your changes to the latest version and try again"

// fieldError is one field.ErrorList entry.
type fieldError struct {
	Type   string // FieldValueInvalid, FieldValueRequired, …
	Field  string
	Detail string // the message after the type's prefix
	Value  any    // the bad value, shown for Invalid
	hasVal bool
}

func invalidValue(field string, value any, detail string) fieldError {
	return fieldError{Type: "FieldValueInvalid", Field: field, Value: value, hasVal: true, Detail: detail}
}

func requiredValue(field, detail string) fieldError {
	return fieldError{Type: "FieldValueRequired", Field: field, Detail: detail}
}

func forbiddenValue(field, detail string) fieldError {
	return fieldError{Type: "FieldValueForbidden", Field: field, Detail: detail}
}

// body is the message without the field path, as kube's field.Error.ErrorBody.
func (e fieldError) body() string {
	var s string
	switch e.Type {
	case "FieldValueInvalid":
		s = "Invalid value: " + formatValue(e.Value)
	case "FieldValueRequired":
		s = "Required value"
	case "FieldValueForbidden":
		s = "Forbidden"
	case "FieldValueNotSupported":
		s = "Unsupported value: " + formatValue(e.Value)
	case "FieldValueTooLong":
		s = "Too long"
	case "FieldValueDuplicate":
		s = "Duplicate value: " + formatValue(e.Value)
	default:
		s = e.Type
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func formatValue(v any) string {
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case nil:
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// errInvalid is kube's NewInvalid: 422 with one cause per field error.
func errInvalid(group, kind, name string, errs []fieldError) *Status {
	causes := make([]StatusCause, len(errs))
	msgs := make([]string, len(errs))
	for i, e := range errs {
		causes[i] = StatusCause{Type: e.Type, Message: e.body(), Field: e.Field}
		msgs[i] = e.Field + ": " + e.body()
	}
	var msg string
	if len(msgs) == 1 {
		msg = fmt.Sprintf("%s %q is invalid: %s", qualify(group, kind), name, msgs[0])
	} else {
		msg = fmt.Sprintf("%s %q is invalid: [%s]", qualify(group, kind), name, strings.Join(msgs, ", "))
	}
	return newStatus(web.StatusUnprocessableEntity, "Invalid", msg,
		&StatusDetails{Name: name, Group: group, Kind: kind, Causes: causes})
}

func errBadRequest(msg string) *Status {
	return newStatus(web.StatusBadRequest, "BadRequest", msg, nil)
}

func errForbidden(group, resource, name, why string, causes ...StatusCause) *Status {
	var msg string
	if name == "" {
		msg = fmt.Sprintf("%s is forbidden: %s", qualify(group, resource), why)
	} else {
		msg = fmt.Sprintf("%s %q is forbidden: %s", qualify(group, resource), name, why)
	}
	return newStatus(web.StatusForbidden, "Forbidden", msg,
		&StatusDetails{Name: name, Group: group, Kind: resource, Causes: causes})
}

func errMethodNotAllowed() *Status {
	return newStatus(web.StatusMethodNotAllowed, "MethodNotAllowed",
		"the server does not allow this method on the requested resource", &StatusDetails{})
}

func errPathNotFound() *Status {
	return newStatus(web.StatusNotFound, "NotFound", "the server could not find the requested resource", &StatusDetails{})
}

// errExpired is kube's NewResourceExpired: 410 Gone with reason Expired.
func errExpired(msg string) *Status {
	return newStatus(web.StatusGone, "Expired", msg, nil)
}

// errTooLargeResourceVersion is what kube-apiserver answers when a read asks for a
// revision the store has not reached after waiting.
func errTooLargeResourceVersion(requested, current int64) *Status {
	st := newStatus(web.StatusGatewayTimeout, "Timeout",
		fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", requested, current),
		&StatusDetails{RetryAfterSeconds: 1, Causes: []StatusCause{{Type: "ResourceVersionTooLarge", Message: "Too large resource version"}}})
	return st
}

func errRequestEntityTooLarge(limit int64) *Status {
	return newStatus(web.StatusRequestEntityTooLarge, "RequestEntityTooLarge",
		fmt.Sprintf("Request entity too large: limit is %d", limit), nil)
}

func errInternal(err error) *Status {
	return newStatus(web.StatusInternalServerError, "InternalError",
		fmt.Sprintf("Internal error occurred: %v", err), &StatusDetails{Causes: []StatusCause{{Message: err.Error()}}})
}

func errServiceUnavailable(msg string) *Status {
	return newStatus(web.StatusServiceUnavailable, "ServiceUnavailable", msg, nil)
}

func qualify(group, resource string) string {
	if group == "" {
		return resource
	}
	return resource + "." + group
}

// writeStatus answers with st as JSON, setting Retry-After when it asks for one.
func writeStatus(w web.ResponseWriter, st *Status) {
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	writeJSON(w, st.Code, st)
}

// asStatus turns any error into the Status it is answered with.
func asStatus(err error) *Status {
	if st, ok := err.(*Status); ok {
		return st
	}
	return errInternal(err)
}

// jsonMarshal encodes v as kube-apiserver's JSON serializer does: one line ending in
// a newline.
func jsonMarshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func writeJSON(w web.ResponseWriter, code int, v any) {
	b, err := jsonMarshal(v)
	if err != nil {
		code = web.StatusInternalServerError
		b = []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"encoding failed","reason":"InternalError","code":500}` + "\n")
	}
	writeBody(w, code, "application/json", b)
}

func writeBody(w web.ResponseWriter, code int, contentType string, b []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(code)
	_, _ = w.Write(b)
}
