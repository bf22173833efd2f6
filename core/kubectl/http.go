package kubectl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"kubeplay/core/web"
)

// Request is one request a command sends: kubectl's method, path, query,
// headers (in the order client-go sets them) and body.
type Request struct {
	Method string
	Path   string // absolute, without the query: /api/v1/namespaces/default/pods
	Query  url.Values
	Header [][2]string // in addition to User-Agent, which every request has
	Body   []byte
}

// Response is an answer whose body may still be streaming: Body must be
// closed.
type Response struct {
	Code   int
	Header web.Header
	Body   io.ReadCloser
}

// exchangeBodyLimit bounds the bytes of a body an Exchange keeps.
const exchangeBodyLimit = 64 << 10

// URL is req's URL as kubectl shows it (-v, errors): the server's, the
// path, and the query in url.Values' order, as client-go encodes it.
func (c *Cmd) URL(req *Request) string {
	u := strings.TrimRight(c.Server, "/") + req.Path
	if q := req.Query.Encode(); q != "" {
		u += "?" + q
	}
	return u
}

// Stream sends req and returns once the answer's status has come, its body
// still streaming; closing the body ends the request.
func (c *Cmd) Stream(req *Request) (*Response, error) {
	ctx, cancel := context.WithCancel(c.Ctx)
	rawURL := c.URL(req)
	r, err := web.NewRequest(ctx, req.Method, rawURL, req.Body)
	if err != nil {
		cancel()
		return nil, err
	}
	for _, h := range req.Header {
		r.Header.Add(h[0], h[1])
	}
	r.Header.Set("User-Agent", c.Env.UserAgent())
	if c.As != "" {
		r.Header.Set("Impersonate-User", c.As)
	}
	for _, g := range c.AsGroups {
		r.Header.Add("Impersonate-Group", g)
	}
	if c.Verbosity >= 6 {
		c.logRequest(req, r, rawURL)
	}
	start := time.Now()
	resp := web.RoundTrip(c.Handler, r, cancel)
	if c.Verbosity >= 6 {
		c.logResponse(req, rawURL, resp.Code, resp.Header, time.Since(start))
	}
	c.printWarnings(resp.Header.Values("Warning"))
	ex := &Exchange{Method: req.Method, URL: rawURL, RequestBody: req.Body, Status: resp.Code, ResponseStarted: true}
	for k, vs := range r.Header {
		for _, v := range vs {
			ex.RequestHeader = append(ex.RequestHeader, [2]string{k, v})
		}
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			ex.ResponseHeader = append(ex.ResponseHeader, [2]string{k, v})
		}
	}
	return &Response{Code: resp.Code, Header: resp.Header, Body: &recordedBody{ReadCloser: resp.Body, c: c, ex: ex, start: start}}, nil
}

// Do sends req and reads the whole answer: the body of a success, or a
// *StatusError.
func (c *Cmd) Do(req *Request) ([]byte, error) {
	resp, err := c.Stream(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if c.Verbosity >= 8 {
		c.logBody(req, "Response Body", data)
	}
	if resp.Code/100 != 2 {
		return nil, newStatusError(resp.Code, data)
	}
	return data, nil
}

// recordedBody tells Env.Exchange of its exchange when it is closed, with
// the body's first bytes.
type recordedBody struct {
	io.ReadCloser
	c     *Cmd
	ex    *Exchange
	start time.Time
	kept  bytes.Buffer
	done  bool
}

func (b *recordedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if room := exchangeBodyLimit - b.kept.Len(); room > 0 {
		b.kept.Write(p[:min(n, room)])
	}
	return n, err
}

func (b *recordedBody) Close() error {
	err := b.ReadCloser.Close()
	if !b.done {
		b.done = true
		b.ex.ResponseBody = b.kept.Bytes()
		b.ex.Milliseconds = float64(time.Since(b.start).Microseconds()) / 1000
		if b.c.Exchange != nil {
			b.c.Exchange(*b.ex)
		}
	}
	return err
}

// StatusError is an answer that is not a success: the Status the server
// sent, printed as kubectl prints it.
type StatusError struct {
	Code   int
	Status Status
}

// Status is metav1.Status as kubectl reads it.
type Status struct {
	Status  string         `json:"status"`
	Message string         `json:"message"`
	Reason  string         `json:"reason"`
	Details *StatusDetails `json:"details,omitempty"`
	Code    int            `json:"code"`
}

// StatusDetails are a Status's details.
type StatusDetails struct {
	Name   string `json:"name"`
	Group  string `json:"group"`
	Kind   string `json:"kind"`
	Causes []struct {
		Type    string `json:"reason"`
		Message string `json:"message"`
		Field   string `json:"field"`
	} `json:"causes"`
}

func newStatusError(code int, body []byte) *StatusError {
	e := &StatusError{Code: code}
	if err := json.Unmarshal(body, &e.Status); err != nil || e.Status.Reason == "" && e.Status.Message == "" {
		e.Status = Status{Status: "Failure", Code: code, Message: strings.TrimSpace(string(body))}
	}
	return e
}

func (e *StatusError) Error() string { return e.Status.Message }

// kubectlText is the line kubectl's CheckErr prints for the error:
// "Error from server (Reason): message".
func (e *StatusError) kubectlText() string {
	reason := e.Status.Reason
	if reason == "" {
		reason = fmt.Sprint(e.Code)
	}
	return "Error from server (" + reason + "): " + e.Status.Message
}
