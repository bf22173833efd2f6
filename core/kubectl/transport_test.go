package kubectl

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"kubeplay/core/web"
)

// failingTransport answers every request as wasm/jsio's Fetch answers one
// whose fetch failed: a 503 Status with the failure's message, marked as no
// server's answer; unmarked, it is a server's own 503.
func failingTransport(message string, marked bool) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		w.Header().Set("Content-Type", "application/json")
		if marked {
			w.Header().Set(web.HeaderTransportError, "1")
		}
		w.WriteHeader(503)
		w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"` + message + `","reason":"ServiceUnavailable","code":503}`))
	})
}

// TestLEARN_1_TransportFailure: a request no server answered prints what
// kubectl prints when it cannot reach the server (real kubectl 1.32
// against a closed port: five discovery E lines, then the refusal, exit
// 1); a failure other than a refusal is "Unable to connect to the server";
// a server's own 503 stays an error from the server.
func TestLEARN_1_TransportFailure(t *testing.T) {
	klogPrefix := regexp.MustCompile(`(?m)^E\d{4} \d\d:\d\d:\d\d\.\d{6}\s+\d+ `)
	const discoveryLine = `E memcache.go:265] "Unhandled Error" err="couldn't get current server API group list: Get \"http://127.0.0.1:1/api?timeout=32s\": `
	cases := []struct {
		handler web.Handler
		args    []string
		stderr  string
	}{
		{failingTransport("dial tcp 127.0.0.1:1: connect: connection refused", true), []string{"get", "pods"},
			strings.Repeat(discoveryLine+`dial tcp 127.0.0.1:1: connect: connection refused"`+"\n", 5) +
				"The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n"},
		{failingTransport("Failed to fetch", true), []string{"describe", "pods"},
			strings.Repeat(discoveryLine+`Failed to fetch"`+"\n", 5) + "Unable to connect to the server: Failed to fetch\n"},
		{failingTransport("Failed to fetch", true), []string{"get", "--raw", "/version"},
			"Unable to connect to the server: Failed to fetch\n"},
		{failingTransport("no endpoints", false), []string{"get", "--raw", "/version"},
			"Error from server (ServiceUnavailable): no endpoints\n"},
		{failingTransport("dial tcp 127.0.0.1:1: connect: connection refused", true), []string{"api-versions"},
			discoveryLine + `dial tcp 127.0.0.1:1: connect: connection refused"` + "\n" +
				`error: couldn't get available api versions from server: Get "http://127.0.0.1:1/api?timeout=32s": dial tcp 127.0.0.1:1: connect: connection refused` + "\n"},
		// A manifest's mapping: one E line, the builder's error with the
		// cause's text and no refusal line.
		{failingTransport("dial tcp 127.0.0.1:1: connect: connection refused", true), []string{"apply", "--validate=false", "-f", "-"},
			discoveryLine + `dial tcp 127.0.0.1:1: connect: connection refused"` + "\n" +
				`error: unable to recognize "STDIN": Get "http://127.0.0.1:1/api?timeout=32s": dial tcp 127.0.0.1:1: connect: connection refused` + "\n"},
	}
	for _, tc := range cases {
		var out, errOut bytes.Buffer
		env := &Env{Handler: tc.handler, Server: "http://127.0.0.1:1", Stdout: &out, Stderr: &errOut,
			Stdin: strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")}
		code := Run(context.Background(), env, tc.args)
		got := klogPrefix.ReplaceAllString(errOut.String(), "E ")
		if code != 1 || got != tc.stderr || out.Len() != 0 {
			t.Errorf("kubectl %s: exit %d, stdout %q, stderr\n%s\nwant exit 1, stderr\n%s", strings.Join(tc.args, " "), code, out.String(), got, tc.stderr)
		}
	}
	// api-resources prints its header before the error, as kubectl does.
	var out, errOut bytes.Buffer
	env := &Env{Handler: failingTransport("Failed to fetch", true), Server: "http://127.0.0.1:1", Stdout: &out, Stderr: &errOut}
	code := Run(context.Background(), env, []string{"api-resources"})
	if code != 1 || out.String() != "NAME   SHORTNAMES   APIVERSION   NAMESPACED   KIND\n" || !strings.HasSuffix(errOut.String(), "\nUnable to connect to the server: Failed to fetch\n") {
		t.Errorf("api-resources: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
