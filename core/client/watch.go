package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"kubeplay/core/object"
	"kubeplay/core/web"
)

// Event is one watch event.
type Event struct {
	Type   string // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
	Object object.Object
}

// Watch is an open watch.
type Watch struct {
	body io.ReadCloser
	dec  *json.Decoder
}

// Watch opens a watch on the collection at path (which may carry a query of
// its own, such as a selector) with query (without watch=1).
func (c *Client) Watch(ctx context.Context, path, query string) (*Watch, error) {
	q := "watch=1"
	if query != "" {
		q += "&" + query
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	resp, err := c.Stream(ctx, web.MethodGet, path+sep+q, "", nil)
	if err != nil {
		return nil, err
	}
	if resp.Code != web.StatusOK {
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return nil, statusError(resp.Code, data)
	}
	return &Watch{body: resp.Body, dec: json.NewDecoder(resp.Body)}, nil
}

// Next returns the next event; io.EOF when the server ended the watch.
func (w *Watch) Next() (Event, error) {
	typ, raw, err := w.next()
	if err != nil {
		return Event{}, err
	}
	obj, err := object.Decode(raw)
	if err != nil {
		return Event{}, fmt.Errorf("client: watch event %s: %w", typ, err)
	}
	return Event{Type: typ, Object: obj}, nil
}

// next reads the next event's type and object, as JSON.
func (w *Watch) next() (string, []byte, error) {
	var frame struct {
		Type   string          `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	err := w.dec.Decode(&frame)
	return frame.Type, frame.Object, err
}

// Stop ends the watch.
func (w *Watch) Stop() { w.body.Close() }
