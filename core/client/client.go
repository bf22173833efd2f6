// Package client is an in-process Kubernetes API client over the core's handler:
// its requests go through the same filter chain as a network client's (request
// log, and later authentication and API Priority and Fairness) with the caller's
// own identity, and its responses stream, so watches work. It is what the core's
// controllers, the xDS server and tests use, natively and in wasm alike: no
// network, no HTTP parsing. Informer keeps a local, indexed copy of a collection
// on top of it, as client-go's reflector and indexer do.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"kubeplay/core/object"
	"kubeplay/core/request"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// Client sends requests to a handler as one caller.
type Client struct {
	handler   web.Handler
	user      user.User
	userAgent string
	header    web.Header // sent with every request
	metadata  bool       // reads ask for PartialObjectMetadata
}

// New is a client of h acting as user, announcing itself as userAgent.
func New(h web.Handler, user user.User, userAgent string) *Client {
	return &Client{handler: h, user: user, userAgent: userAgent}
}

// WithHeader is a copy of c that sends the header name: value with every
// request (an Accept header replaces the client's own).
func (c *Client) WithHeader(name, value string) *Client {
	out := *c
	out.header = c.header.Clone()
	if out.header == nil {
		out.header = web.Header{}
	}
	out.header.Set(name, value)
	return &out
}

// MetadataOnly is a copy of c whose reads (gets, lists and watches) ask for
// objects reduced to their metadata (meta.k8s.io/v1 PartialObjectMetadata
// and PartialObjectMetadataList), as client-go's metadata client does: what
// a controller that reads only metadata (the garbage collector) keeps.
func (c *Client) MetadataOnly() *Client {
	out := *c
	out.metadata = true
	return &out
}

// Response is an answer whose body is still streaming: Body must be closed.
type Response = web.Response

// Error is an answer that is not a success: the Status kube-apiserver sent.
type Error struct {
	Code    int
	Reason  string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Code, e.Reason, e.Message) }

// IsNotFound and the others say what a failed call's Status was.
func IsNotFound(err error) bool { return hasCode(err, web.StatusNotFound) }

// IsConflict is a 409: the object changed, or already exists.
func IsConflict(err error) bool { return hasCode(err, web.StatusConflict) }

// IsForbidden is a 403: refused, as a create in a terminating namespace is.
func IsForbidden(err error) bool { return hasCode(err, web.StatusForbidden) }

// IsInvalid is a 422: the object (or the patched object) is not valid.
func IsInvalid(err error) bool { return hasCode(err, web.StatusUnprocessableEntity) }

// IsGone is a 410: the resourceVersion is older than the history kept.
func IsGone(err error) bool { return hasCode(err, web.StatusGone) }

func hasCode(err error, code int) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// Stream sends a request and returns as soon as the handler has written its
// status, with the body still coming (a watch keeps it open). Cancelling ctx
// ends the request.
func (c *Client) Stream(ctx context.Context, method, path, contentType string, body []byte) (*Response, error) {
	ctx, cancel := context.WithCancel(user.WithUser(ctx, c.user))
	r, err := web.NewRequest(ctx, method, "http://kubeplay.local"+path, body)
	if err != nil {
		cancel()
		return nil, err
	}
	for k, v := range c.header {
		r.Header[k] = v
	}
	r.Header.Set("Accept", c.accept(r))
	r.Header.Set("User-Agent", c.userAgent)
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	return web.RoundTrip(c.handler, r, cancel), nil
}

// accept is what c accepts as the answer to r.
func (c *Client) accept(r *web.Request) string {
	if a := c.header.Get("Accept"); a != "" {
		return a
	}
	if !c.metadata || r.Method != web.MethodGet {
		return "application/json"
	}
	if request.ParseRequestInfo(r).Verb == "list" {
		return "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
	}
	return "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
}

// Do sends a request and reads the whole answer: the body of a success, or an
// *Error with the Status of a failure.
func (c *Client) Do(ctx context.Context, method, path, contentType string, body []byte) ([]byte, error) {
	resp, err := c.Stream(ctx, method, path, contentType, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.Code/100 != 2 {
		return nil, statusError(resp.Code, data)
	}
	return data, nil
}

func statusError(code int, body []byte) error {
	var st struct{ Reason, Message string }
	_ = json.Unmarshal(body, &st)
	if st.Message == "" {
		st.Message = string(bytes.TrimSpace(body))
	}
	return &Error{Code: code, Reason: st.Reason, Message: st.Message}
}

// Get reads one object (or any JSON answer) at path.
func (c *Client) Get(ctx context.Context, path string) (object.Object, error) {
	return decoded(c.Do(ctx, web.MethodGet, path, "", nil))
}

// Create POSTs obj to the collection at path and returns what was stored.
func (c *Client) Create(ctx context.Context, path string, obj object.Object) (object.Object, error) {
	return c.send(ctx, web.MethodPost, path, "application/json", obj)
}

// Update PUTs obj at path (an object or a subresource) and returns what was stored.
func (c *Client) Update(ctx context.Context, path string, obj object.Object) (object.Object, error) {
	return c.send(ctx, web.MethodPut, path, "application/json", obj)
}

// Delete deletes the object at path; the answer is the object when it stays
// (finalizers) or a Status.
func (c *Client) Delete(ctx context.Context, path string) (object.Object, error) {
	return decoded(c.Do(ctx, web.MethodDelete, path, "", nil))
}

func (c *Client) send(ctx context.Context, method, path, contentType string, obj object.Object) (object.Object, error) {
	body, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return decoded(c.Do(ctx, method, path, contentType, body))
}

func decoded(data []byte, err error) (object.Object, error) {
	if err != nil {
		return nil, err
	}
	return object.Decode(data)
}
