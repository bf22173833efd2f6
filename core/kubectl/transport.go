package kubectl

import (
	"errors"
	"io"
	"net/url"
	"strconv"
	"strings"

	"kubeplay/core/web"
)

// This file owns requests that no server answered. A handler over a
// transport (the page's fetch, wasm/jsio's Fetch) answers a failed one with
// a 503 Status carrying the failure's message and web.HeaderTransportError;
// a server's own 503 has no such header and stays a *StatusError. Such an
// answer is a *TransportError, which kubectl prints as it prints a request
// that never reached the server (its url.Error): "The connection to the
// server HOST was refused - did you specify the right host or port?" for a
// refused connection, "Unable to connect to the server: MESSAGE" for any
// other failure, and discovery's failures first logged as client-go's
// memory cache logs them.

// TransportError is a request no server answered: Go's url.Error, as
// client-go returns it.
type TransportError struct {
	Method, URL string
	// Message is the failure's: the JavaScript error's message in the page
	// ("Failed to fetch").
	Message string
}

// Error is url.Error's text: `Get "URL": MESSAGE`.
func (e *TransportError) Error() string {
	op := e.Method[:1] + strings.ToLower(e.Method[1:])
	return op + " " + strconv.Quote(e.URL) + ": " + e.Message
}

// transportError is the *TransportError of an answer marked as no
// server's (its body read and closed), or nil.
func transportError(method, rawURL string, resp *Response) *TransportError {
	if resp.Header.Get(web.HeaderTransportError) == "" {
		return nil
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return &TransportError{Method: method, URL: rawURL, Message: newStatusError(resp.Code, data).Status.Message}
}

// transportText is what kubectl's CheckErr prints for a request that
// reached no server (false if err is not one): a refused connection
// anywhere in err, or err itself a transport failure.
func transportText(err error) (string, bool) {
	var te *TransportError
	if !errors.As(err, &te) {
		return "", false
	}
	if strings.Contains(te.Message, "connection refused") {
		host := te.URL
		if u, perr := url.Parse(te.URL); perr == nil {
			host = u.Host
		}
		return "The connection to the server " + host + " was refused - did you specify the right host or port?", true
	}
	if err != error(te) {
		return "", false
	}
	return "Unable to connect to the server: " + te.Message, true
}

// discoveryRetries is how many times kubectl's RESTMapper asks for the
// server's groups when they cannot be fetched, each failure logged (its
// deferred mapper, its shortcut expander and its category expander each
// ask again): five E lines before a resource's failure.
const discoveryRetries = 5

// mapperRetries logs the failures of kubectl's RESTMapper's asking again
// when err is discovery's transport failure (Discovery logged the first).
func (c *Cmd) mapperRetries(err error) {
	var te *TransportError
	if errors.As(err, &te) {
		c.logDiscoveryFailure(te, discoveryRetries-1)
	}
}

// logDiscoveryFailure logs a failure to fetch discovery n times, as
// client-go's memory cache logs each attempt.
func (c *Cmd) logDiscoveryFailure(err error, n int) {
	for range n {
		c.klog('E', "memcache.go:265", `"Unhandled Error" err=%s`, strconv.Quote("couldn't get current server API group list: "+err.Error()))
	}
}
