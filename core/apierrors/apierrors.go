// Package apierrors owns the errors the API answers with: metav1.Status and its
// constructors, with k8s.io/apimachinery/pkg/api/errors' codes, reasons and
// message shapes, so that any package judging a request (the registry, patches,
// apply, authentication, flow control) returns kube's error without importing
// the HTTP server. A *Status is an error. The constructors are kept out of line
// (go:noinline), as core/field's are, for the wasm binary's size.
package apierrors

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/web"
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

// Status is metav1.Status: every error kubeplay answers is one.
type Status struct {
	Kind       string         `json:"kind"`
	APIVersion string         `json:"apiVersion"`
	Metadata   ListMeta       `json:"metadata"`
	Status     string         `json:"status,omitempty"`
	Message    string         `json:"message,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	Details    *StatusDetails `json:"details,omitempty"`
	Code       int            `json:"code,omitempty"`
}

// ListMeta is a Status's (always empty) metadata.
type ListMeta struct {
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Continue        string `json:"continue,omitempty"`
}

func (s *Status) Error() string { return s.Message }

// New is a failure Status.
//
//go:noinline
func New(code int, reason, msg string, details *StatusDetails) *Status {
	return &Status{Kind: "Status", APIVersion: "v1", Status: "Failure", Code: code, Reason: reason, Message: msg, Details: details}
}

// Success is the Status a delete answers with when the object is gone.
func Success(details *StatusDetails) *Status {
	return &Status{Kind: "Status", APIVersion: "v1", Status: "Success", Details: details}
}

// As is the Status an error is answered with: itself when it is one, an internal
// error otherwise.
//
//go:noinline
func As(err error) *Status {
	var st *Status
	if errors.As(err, &st) {
		return st
	}
	return NewInternal(err)
}

// HasCode says whether err is a Status with code.
func HasCode(err error, code int) bool {
	var st *Status
	return errors.As(err, &st) && st.Code == code
}

// Qualify is a resource as messages name it: "configmaps", "deployments.apps".
func Qualify(group, resource string) string {
	if group == "" {
		return resource
	}
	return resource + "." + group
}

// NewNotFound: the named object does not exist.
//
//go:noinline
func NewNotFound(group, resource, name string) *Status {
	return New(web.StatusNotFound, "NotFound", fmt.Sprintf("%s %q not found", Qualify(group, resource), name),
		&StatusDetails{Name: name, Group: group, Kind: resource})
}

// NewAlreadyExists: an object of that name exists.
//
//go:noinline
func NewAlreadyExists(group, resource, name string) *Status {
	return New(web.StatusConflict, "AlreadyExists", fmt.Sprintf("%s %q already exists", Qualify(group, resource), name),
		&StatusDetails{Name: name, Group: group, Kind: resource})
}

// ConflictModified is why an update with a stale resourceVersion conflicts.
const ConflictModified = "the object has been modified; please apply your changes to the latest version and try again"

// NewConflict: the operation cannot be done on the object now, for why.
//
//go:noinline
func NewConflict(group, resource, name, why string) *Status {
	return New(web.StatusConflict, "Conflict",
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", Qualify(group, resource), name, why),
		&StatusDetails{Name: name, Group: group, Kind: resource})
}

// NewInvalid is a 422 with one cause per field error; the message lists each
// distinct error once.
//
//go:noinline
func NewInvalid(group, kind, name string, errs field.ErrorList) *Status {
	causes := make([]StatusCause, len(errs))
	var msgs []string // each message once, as kube's aggregate error lists them
	for i, e := range errs {
		causes[i] = StatusCause{Type: string(e.Type), Message: e.ErrorBody(), Field: e.Field}
		if msg := e.Error(); !slices.Contains(msgs, msg) {
			msgs = append(msgs, msg)
		}
	}
	var msg string
	if len(msgs) == 1 {
		msg = fmt.Sprintf("%s %q is invalid: %s", Qualify(group, kind), name, msgs[0])
	} else {
		msg = fmt.Sprintf("%s %q is invalid: [%s]", Qualify(group, kind), name, strings.Join(msgs, ", "))
	}
	return New(web.StatusUnprocessableEntity, "Invalid", msg,
		&StatusDetails{Name: name, Group: group, Kind: kind, Causes: causes})
}

// NewBadRequest: the request itself is malformed.
//
//go:noinline
func NewBadRequest(msg string) *Status {
	return New(web.StatusBadRequest, "BadRequest", msg, nil)
}

// NewForbidden: the operation is not allowed on the object (or the collection,
// without a name; or, without a resource, on a path), for why.
//
//go:noinline
func NewForbidden(group, resource, name, why string, causes ...StatusCause) *Status {
	var msg string
	switch {
	case resource == "" && group == "":
		msg = "forbidden: " + why
	case name == "":
		msg = fmt.Sprintf("%s is forbidden: %s", Qualify(group, resource), why)
	default:
		msg = fmt.Sprintf("%s %q is forbidden: %s", Qualify(group, resource), name, why)
	}
	return New(web.StatusForbidden, "Forbidden", msg,
		&StatusDetails{Name: name, Group: group, Kind: resource, Causes: causes})
}

// ExceededQuota is the reason kube's ResourceQuota admission gives when a
// request would pass a quota: "exceeded quota: Q, requested: R, used: U,
// limited: L", each of R, U and L a list of name=quantity.
func ExceededQuota(quota, requested, used, limited string) string {
	return "exceeded quota: " + quota + ", requested: " + requested + ", used: " + used + ", limited: " + limited
}

// NewMethodNotAllowed: the resource does not take this method.
//
//go:noinline
func NewMethodNotAllowed() *Status {
	return New(web.StatusMethodNotAllowed, "MethodNotAllowed",
		"the server does not allow this method on the requested resource", &StatusDetails{})
}

// NewPathNotFound: nothing is served at the path.
//
//go:noinline
func NewPathNotFound() *Status {
	return New(web.StatusNotFound, "NotFound", "the server could not find the requested resource", &StatusDetails{})
}

// NewExpired is kube's NewResourceExpired: 410 Gone with reason Expired.
//
//go:noinline
func NewExpired(msg string) *Status {
	return New(web.StatusGone, "Expired", msg, nil)
}

// NewTooLargeResourceVersion is what kube-apiserver answers when a read asks for
// a revision the store has not reached: after waiting, from its watch cache
// (which asks the client to retry in a second), or at once, from etcd (0:
// no retry).
//
//go:noinline
func NewTooLargeResourceVersion(requested, current int64, retryAfterSeconds int32) *Status {
	return New(web.StatusGatewayTimeout, "Timeout",
		fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", requested, current),
		&StatusDetails{RetryAfterSeconds: retryAfterSeconds, Causes: []StatusCause{{Type: "ResourceVersionTooLarge", Message: "Too large resource version"}}})
}

// NewRequestEntityTooLarge: the body is over limit bytes.
//
//go:noinline
func NewRequestEntityTooLarge(limit int64) *Status {
	return New(web.StatusRequestEntityTooLarge, "RequestEntityTooLarge",
		fmt.Sprintf("Request entity too large: limit is %d", limit), nil)
}

// NewInternal: something failed inside.
//
//go:noinline
func NewInternal(err error) *Status {
	return New(web.StatusInternalServerError, "InternalError",
		fmt.Sprintf("Internal error occurred: %v", err), &StatusDetails{Causes: []StatusCause{{Message: err.Error()}}})
}

// NewUnknown is kube's answer to an error that is no Status (an error a
// library returned as is): a 500 with the error's message and no reason.
//
//go:noinline
func NewUnknown(err error) *Status {
	return New(web.StatusInternalServerError, "", err.Error(), nil)
}

// NewUnprocessable is kube's generic 422 (NewGenericServerResponse), which
// keeps none of the error's own message: a JSON patch that does not apply.
//
//go:noinline
func NewUnprocessable() *Status {
	return New(web.StatusUnprocessableEntity, "Invalid", "the server rejected our request due to an error in our request", &StatusDetails{})
}

// NewServiceUnavailable: the server cannot answer now.
//
//go:noinline
func NewServiceUnavailable(msg string) *Status {
	return New(web.StatusServiceUnavailable, "ServiceUnavailable", msg, nil)
}

// NewUnauthorized is kube's answer to credentials it cannot accept.
//
//go:noinline
func NewUnauthorized() *Status {
	return New(web.StatusUnauthorized, "Unauthorized", "Unauthorized", nil)
}

// Write answers with st as one line of JSON, setting Retry-After when it asks for
// one: how the filters answer, before any content negotiation.
func Write(w web.ResponseWriter, st *Status) {
	writeJSON(w, st.Code, st)
}

// WriteJSON answers 200 with v as JSON (kubeplay's own endpoints: the APF
// view, the request log), or kube's internal error Status when v does not
// encode.
func WriteJSON(w web.ResponseWriter, v any) { writeJSON(w, web.StatusOK, v) }

func writeJSON(w web.ResponseWriter, code int, v any) {
	if st, ok := v.(*Status); ok && st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	b, err := json.Marshal(v)
	if err != nil {
		st := NewInternal(err)
		code = st.Code
		b, _ = json.Marshal(st)
	}
	b = append(b, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(code)
	_, _ = w.Write(b)
}
