package apiserver

import (
	"encoding/json"
	"strconv"

	"kubeplay/core/apierrors"
	"kubeplay/core/web"
)

// writeStatus answers with st as JSON, setting Retry-After when it asks for one.
//
//go:noinline
func writeStatus(w web.ResponseWriter, st *apierrors.Status) { apierrors.Write(w, st) }

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
