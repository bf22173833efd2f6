package kubectl

// This file owns -v: the lines kubectl's client (client-go's debugging
// round tripper and REST client) logs on stderr at -v=6 to -v=9, in klog's
// format: the request line or curl command, request headers, the status
// and time, response headers, and the bodies (truncated to 1024 bytes at
// -v=8, 10240 at -v=9).

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/web"
)

// logf writes one klog line from source ("round_trippers.go:560").
func (c *Cmd) logf(source, format string, args ...any) { c.klog('I', source, format, args...) }

// fatal is klog.Exitf: kubectl's fatal line, and exit code 1.
func (c *Cmd) fatal(source, format string, args ...any) error {
	c.klog('F', source, format, args...)
	return &exitError{code: 1, err: errSilent}
}

// klog writes a line in klog's format: severity, date, time, pid, source.
func (c *Cmd) klog(severity byte, source, format string, args ...any) {
	now := time.Now()
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(c.Stderr, "%c%s %7d %s] %s\n", severity, now.Format("0102 15:04:05.000000"), os.Getpid(), source, msg)
}

// logRequest logs a request as it leaves, by -v's level; before the
// first, where kubectl loads its kubeconfig, the kubeconfig's path.
func (c *Cmd) logRequest(req *Request, r *web.Request, rawURL string) {
	if !c.configLogged && c.Env.Kubeconfig != "" {
		c.configLogged = true
		c.logf("loader.go:402", "Config loaded from file:  %s", c.Env.Kubeconfig)
	}
	if c.Verbosity >= 8 {
		c.logBody(req, "Request Body", req.Body)
	}
	switch {
	case c.Verbosity >= 9:
		var h strings.Builder
		for _, kv := range requestHeaders(r) {
			h.WriteString(" -H " + strconv.Quote(kv[0]+": "+kv[1]))
		}
		c.logf("round_trippers.go:473", "curl -v -X%s %s '%s'", req.Method, h.String(), rawURL)
	case c.Verbosity >= 7:
		c.logf("round_trippers.go:470", "%s %s", req.Method, rawURL)
		c.logf("round_trippers.go:476", "Request Headers:")
		for _, kv := range requestHeaders(r) {
			c.logf("round_trippers.go:480", "    %s: %s", kv[0], kv[1])
		}
	}
}

// requestHeaders are r's headers as -v shows them, Authorization masked.
func requestHeaders(r *web.Request) [][2]string {
	var out [][2]string
	for k, vs := range r.Header {
		for _, v := range vs {
			if strings.EqualFold(k, "Authorization") {
				if typ, _, ok := strings.Cut(v, " "); ok {
					v = typ + " <masked>"
				}
			}
			out = append(out, [2]string{k, v})
		}
	}
	return out
}

// logResponse logs an answer's status and headers as they come.
func (c *Cmd) logResponse(req *Request, rawURL string, code int, header web.Header, took time.Duration) {
	ms := took.Milliseconds()
	status := strconv.Itoa(code) + " " + statusText(code)
	switch {
	case c.Verbosity >= 9:
		c.logf("round_trippers.go:560", "%s %s %s in %d milliseconds", req.Method, rawURL, status, ms)
		c.logf("round_trippers.go:577", "HTTP Statistics: GetConnection 0 ms ServerProcessing %d ms Duration %d ms", ms, ms)
	case c.Verbosity >= 7:
		c.logf("round_trippers.go:581", "Response Status: %s in %d milliseconds", status, ms)
	case c.Verbosity >= 6:
		c.logf("round_trippers.go:560", "%s %s %s in %d milliseconds", req.Method, rawURL, status, ms)
	}
	if c.Verbosity >= 8 {
		c.logf("round_trippers.go:584", "Response Headers:")
		for k, vs := range header {
			for _, v := range vs {
				c.logf("round_trippers.go:587", "    %s: %s", k, v)
			}
		}
	}
}

// logBody is the REST client's "Request Body" and "Response Body" lines:
// klog's quoted value, or its block of tab-indented lines when the body has
// line breaks; a hex dump for bytes below a line feed.
func (c *Cmd) logBody(req *Request, prefix string, body []byte) {
	text := string(body)
	if bytes.IndexFunc(body, func(r rune) bool { return r < 0x0a }) != -1 {
		text = hex.Dump(body)
	}
	limit := 1024
	if c.Verbosity >= 10 {
		limit = len(text)
	} else if c.Verbosity >= 9 {
		limit = 10240
	}
	if len(text) > limit {
		text = text[:limit] + fmt.Sprintf(" [truncated %d chars]", len(text)-limit)
	}
	c.logf(bodySource(req), "%q body%s", prefix, klogString(text))
}

// klogString is a structured value as klog writes it after its key.
func klogString(v string) string {
	if !strings.Contains(v, "\n") {
		return "=" + strconv.Quote(v)
	}
	var b strings.Builder
	b.WriteString("=<\n")
	for {
		i := strings.IndexByte(v, '\n')
		if i < 0 {
			break
		}
		b.WriteString("\t" + v[:i+1])
		v = v[i+1:]
	}
	if v == "" {
		b.WriteString(" >")
	} else {
		b.WriteString("\t" + v + "\n >")
	}
	return b.String()
}

// bodySource is the client-go call site kubectl's body lines name.
func bodySource(req *Request) string {
	switch {
	case req.Path == "/api":
		return "discovery_client.go:253"
	case req.Path == "/apis":
		return "discovery_client.go:319"
	case req.Method == "GET" && req.Query.Has("limit"):
		return "helper.go:113"
	case req.Method == "GET":
		return "helper.go:105"
	}
	return "request.go:1296"
}

// statusText is net/http's StatusText for the codes an API server sends.
func statusText(code int) string {
	switch code {
	case 200:
		return "OK"
	case 201:
		return "Created"
	case 202:
		return "Accepted"
	case 204:
		return "No Content"
	case 304:
		return "Not Modified"
	case 400:
		return "Bad Request"
	case 401:
		return "Unauthorized"
	case 403:
		return "Forbidden"
	case 404:
		return "Not Found"
	case 405:
		return "Method Not Allowed"
	case 406:
		return "Not Acceptable"
	case 409:
		return "Conflict"
	case 410:
		return "Gone"
	case 413:
		return "Request Entity Too Large"
	case 415:
		return "Unsupported Media Type"
	case 422:
		return "Unprocessable Entity"
	case 429:
		return "Too Many Requests"
	case 500:
		return "Internal Server Error"
	case 503:
		return "Service Unavailable"
	case 504:
		return "Gateway Timeout"
	}
	return ""
}

// logStatusError is kubectl's line at -v=4 and above for an error the
// server sent: "server response object: %s[" the Status, indented, "]" (a
// format klog prints unformatted).
func (c *Cmd) logStatusError(se *StatusError) {
	if c.Verbosity < 4 {
		return
	}
	type cause struct {
		Type    string `json:"reason,omitempty"`
		Message string `json:"message,omitempty"`
		Field   string `json:"field,omitempty"`
	}
	type details struct {
		Name   string  `json:"name,omitempty"`
		Group  string  `json:"group,omitempty"`
		Kind   string  `json:"kind,omitempty"`
		Causes []cause `json:"causes,omitempty"`
	}
	s := struct {
		Kind       string   `json:"kind"`
		APIVersion string   `json:"apiVersion"`
		Metadata   struct{} `json:"metadata"`
		Status     string   `json:"status,omitempty"`
		Message    string   `json:"message,omitempty"`
		Reason     string   `json:"reason,omitempty"`
		Details    *details `json:"details,omitempty"`
		Code       int      `json:"code,omitempty"`
	}{Kind: "Status", APIVersion: "v1", Status: se.Status.Status, Message: se.Status.Message, Reason: se.Status.Reason, Code: se.Status.Code}
	if d := se.Status.Details; d != nil {
		s.Details = &details{Name: d.Name, Group: d.Group, Kind: d.Kind}
		for _, c := range d.Causes {
			s.Details.Causes = append(s.Details.Causes, cause{Type: c.Type, Message: c.Message, Field: c.Field})
		}
	}
	data, _ := json.MarshalIndent(s, "", "  ")
	c.logf("helpers.go:246", "server response object: %%s[%s]", data)
}
