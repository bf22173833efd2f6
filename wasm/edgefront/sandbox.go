//go:build js && wasm

package main

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strings"

	"github.com/syumai/workers/cloudflare"
)

// maxBodyBytes is kube-apiserver's request body limit; larger bodies are refused
// here, before they reach a sandbox.
const maxBodyBytes = 3 << 20

// sandboxIDPattern is what newSandboxID produces.
var sandboxIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// sandboxStub returns the Durable Object of sandbox id.
func sandboxStub(id string) (*cloudflare.DurableObjectStub, error) {
	ns, err := cloudflare.NewDurableObjectNamespace("SANDBOX")
	if err != nil {
		return nil, err
	}
	return ns.Get(ns.IdFromName(id))
}

// forwardToSandbox sends /s/{id}/rest to the sandbox's object as /rest, with the
// caller's headers (the object checks the token) and a body of at most
// maxBodyBytes, and streams the answer back (watches included).
func forwardToSandbox(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !sandboxIDPattern.MatchString(id) {
		writeStatus(w, errNotFound())
		return
	}
	if _, ok := bearerToken(r.Header.Get("Authorization")); !ok {
		writeStatus(w, errUnauthorized())
		return
	}
	if r.ContentLength > maxBodyBytes {
		writeStatus(w, errTooLarge())
		return
	}
	body, failure := readBody(r)
	if failure != nil {
		writeStatus(w, failure)
		return
	}
	// The path as the client escaped it, less the /s/{id} prefix.
	rest := strings.TrimPrefix(r.URL.EscapedPath(), "/s/"+id)
	if rest == "" {
		rest = "/"
	}
	target := "https://sandbox" + rest
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, target, nil)
	if err != nil {
		writeStatus(w, errBadRequest(err.Error()))
		return
	}
	req.Header = r.Header.Clone()
	if body != nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
	}
	stub, err := sandboxStub(id)
	if err != nil {
		writeStatus(w, errInternal(err))
		return
	}
	res, err := stub.Fetch(req)
	if err != nil {
		writeStatus(w, errUnavailable("the sandbox did not answer: "+err.Error()))
		return
	}
	relay(w, res)
}

// readBody reads the request body up to maxBodyBytes; GET and HEAD have none.
func readBody(r *http.Request) ([]byte, *status) {
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Body == nil {
		return nil, nil
	}
	defer r.Body.Close()
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil {
		return nil, errBadRequest("reading the request body: " + err.Error())
	}
	if len(body) > maxBodyBytes {
		return nil, errTooLarge()
	}
	return body, nil
}

// relay copies res to w. The body is handed over as the JavaScript stream it
// is, so a watch streams through and a client going away cancels it upstream.
func relay(w http.ResponseWriter, res *http.Response) {
	defer res.Body.Close()
	for name, values := range res.Header {
		w.Header()[name] = values
	}
	w.WriteHeader(res.StatusCode)
	// Once the status line is out there is no way left to report a failed copy.
	_, _ = io.Copy(w, res.Body)
}
