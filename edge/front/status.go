//go:build js && wasm

package main

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// status is a metav1.Status, field for field in kube-apiserver's order.
type status struct {
	Kind       string         `json:"kind"`
	APIVersion string         `json:"apiVersion"`
	Metadata   struct{}       `json:"metadata"`
	Status     string         `json:"status"`
	Message    string         `json:"message"`
	Reason     string         `json:"reason,omitempty"`
	Details    *statusDetails `json:"details,omitempty"`
	Code       int            `json:"code"`
}

type statusDetails struct {
	RetryAfterSeconds int `json:"retryAfterSeconds,omitempty"`
}

func newStatus(code int, reason, message string) *status {
	return &status{Kind: "Status", APIVersion: "v1", Status: "Failure", Message: message, Reason: reason, Code: code}
}

func errUnauthorized() *status {
	return newStatus(http.StatusUnauthorized, "Unauthorized", "Unauthorized")
}

func errTooLarge(limit int) *status {
	return newStatus(http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", "Request entity too large: limit is "+strconv.Itoa(limit))
}

func errBadRequest(message string) *status {
	return newStatus(http.StatusBadRequest, "BadRequest", message)
}

func errForbidden(message string) *status {
	return newStatus(http.StatusForbidden, "Forbidden", message)
}

func errTooManyRequests(retryAfterSeconds int) *status {
	s := newStatus(http.StatusTooManyRequests, "TooManyRequests", "too many sandboxes created from this address, please try again later")
	s.Details = &statusDetails{RetryAfterSeconds: retryAfterSeconds}
	return s
}

func errInternal(err error) *status {
	return newStatus(http.StatusInternalServerError, "InternalError", "Internal error occurred: "+err.Error())
}

func errUnavailable(message string) *status {
	return newStatus(http.StatusServiceUnavailable, "ServiceUnavailable", message)
}

func writeStatus(w http.ResponseWriter, s *status) {
	body, _ := json.Marshal(s)
	w.Header().Set("Content-Type", "application/json")
	if s.Details != nil && s.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(s.Details.RetryAfterSeconds))
	}
	w.WriteHeader(s.Code)
	_, _ = w.Write(append(body, '\n'))
}

func methodNotAllowed(w http.ResponseWriter, _ *http.Request) {
	writeStatus(w, newStatus(http.StatusMethodNotAllowed, "MethodNotAllowed", "the server does not allow this method on the requested resource"))
}
