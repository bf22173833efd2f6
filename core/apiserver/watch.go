package apiserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"maps"
	"math/rand/v2"
	"strconv"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/clock"
	"kubeplay/core/encoding"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/request"
	"kubeplay/core/selector"
	"kubeplay/core/types"
	"kubeplay/core/web"
)

// kube-apiserver's --min-request-timeout: a watch without timeoutSeconds lives
// between one and two of these.
const minRequestTimeout = 30 * time.Minute

// initialEventsEndAnnotation marks the bookmark that ends a watch's initial events.
const initialEventsEndAnnotation = "k8s.io/initial-events-end"

// serveWatch streams changes as kube-apiserver's watch handler does: newline
// separated JSON WatchEvents, each flushed as it happens.
func (s *Server) serveWatch(w web.ResponseWriter, r *web.Request, t target) error {
	if !t.res.HasVerb("watch") { // kube's componentstatuses
		return apierrors.New(web.StatusMethodNotAllowed, "MethodNotAllowed", "watch is not supported on resources of kind "+strconv.Quote(t.res.Plural),
			&apierrors.StatusDetails{Group: t.res.Group, Kind: t.res.Plural})
	}
	q := r.URL.Query()
	if q.Get("watch") == "" {
		q = maps.Clone(q)
		q.Set("watch", "true")
	}
	o, err := parseListOptions(q, t.res)
	if err != nil {
		return err
	}
	initialEvents := o.SendInitialEvents != nil && *o.SendInitialEvents
	if initialEvents && o.AllowBookmarks && t.rep.out.Convert != nil && t.rep.out.Convert.Kind == "Table" {
		// A watch list is converted to no Table: the next clause, or 406.
		out, err := encoding.NegotiateOutput(t.rep.accept, encoding.Endpoint{Protobuf: t.rep.protobuf, Conversions: true, Watch: true, NoTable: true})
		if err != nil {
			return notAcceptable(err)
		}
		t.rep.out = out
	}
	if t.name != "" {
		o.Fields = append(o.Fields, selector.Term{Field: "metadata.name", Equal: true, Value: t.name})
	}
	timeout := minRequestTimeout + time.Duration(rand.Int64N(int64(minRequestTimeout)))
	if o.TimeoutSeconds != nil && *o.TimeoutSeconds != 0 {
		timeout = time.Duration(*o.TimeoutSeconds) * time.Second
	}
	if s.cfg.MaxWatchTimeout > 0 && timeout > s.cfg.MaxWatchTimeout {
		timeout = s.cfg.MaxWatchTimeout
	}

	watcher, err := s.store.Watch(r.Context(), t.res, t.namespace, o)
	var expired *registry.ExpiredWatch
	if errors.As(err, &expired) {
		// kube-apiserver answers 200 and ends the stream with an ERROR event.
		codec := newWatchCodec(t)
		codec.start(w)
		b, _ := json.Marshal(expired.Status)
		_, _ = w.Write(codec.frame("ERROR", b))
		return nil
	}
	if err != nil {
		return err
	}
	defer watcher.Stop()

	codec := newWatchCodec(t)
	codec.start(w)
	_ = web.Flush(w)
	// The initial events are queued for this client (the watcher holds them from
	// its snapshot): for API Priority and Fairness the watch is initialized, as
	// kube's cacher says once it has handed them to the watch's buffer, whether
	// or not the client reads them.
	request.WatchInitialized(r.Context())

	ctx, cancel := clock.WithTimeout(r.Context(), s.cfg.Clock, timeout)
	defer cancel()
	if o.AllowBookmarks {
		go s.requestBookmarks(ctx, watcher, timeout)
	}

	// Queued events (initial state or retained history) go out first, then the
	// end-of-initial-events bookmark, then live changes. A burst is gathered
	// in a buffer held while it is written and flushed once no other event
	// is queued, as kube's watch server flushes once its channel is empty:
	// one write per burst, not a TLS record and a system call per event.
	var burst web.Buffered
	defer burst.Release()
	flush := func() error {
		if burst.Writer != nil {
			if err := burst.Flush(); err != nil {
				return err
			}
			burst.Release()
		}
		return web.Flush(w)
	}
	replaying := true
	for {
		if replaying && !watcher.Replaying() {
			replaying = false
			if flush() != nil || initialEvents && o.AllowBookmarks && codec.writeInitialEnd(w, watcher.StartRevision()) != nil {
				return nil
			}
		}
		e, err := watcher.Next(ctx)
		if err != nil {
			return nil // the deadline, a gone client, stopped, too slow, or the store closed
		}
		// kube's watch cache cannot decode a corrupt object either: its
		// watchers hear nothing of it.
		skip := e.Type == registry.Bookmark && !o.AllowBookmarks || e.Type != registry.Bookmark && registry.IsCorrupt(e.Object)
		if !skip {
			if burst.Writer == nil {
				burst = web.NewBuffered(w, web.WatchBuffer)
			}
			if _, err := burst.Write(codec.event(e)); err != nil {
				return nil
			}
		}
		if !replaying && !watcher.Pending() && flush() != nil {
			return nil
		}
	}
}

// requestBookmarks asks for a BOOKMARK every BookmarkInterval and, like kube's
// watch cache, one just before the watch's deadline, so the client can resume
// from a fresh revision.
func (s *Server) requestBookmarks(ctx context.Context, watcher *registry.Watcher, timeout time.Duration) {
	tick := s.cfg.Clock.NewTicker(s.cfg.BookmarkInterval)
	defer tick.Stop()
	var last <-chan time.Time
	if timeout > 2*time.Second {
		t := s.cfg.Clock.NewTimer(timeout - 2*time.Second)
		defer t.Stop()
		last = t.C()
	}
	for {
		select {
		case <-tick.C():
			watcher.RequestBookmark()
		case <-last:
			watcher.RequestBookmark()
		case <-ctx.Done():
			return
		}
	}
}

// jsonEventFrame encodes one event as a JSON WatchEvent line.
func jsonEventFrame(res *api.Resource, e *registry.Event) []byte {
	if e.Type == registry.Bookmark {
		return watchFrame(nil, string(e.Type), bookmarkObject(res, e.Rev, ""))
	}
	buf := appendFrameHead(make([]byte, 0, len(e.Object)+len(res.Kind)+len(res.APIVersion())+64), string(e.Type))
	buf = object.AppendWithTypeMeta(buf, e.Object, res.Kind, res.APIVersion())
	return append(buf, "}\n"...)
}

// watchFrame appends a WatchEvent line whose object is obj.
func watchFrame(dst []byte, typ string, obj []byte) []byte {
	return append(append(appendFrameHead(dst, typ), obj...), "}\n"...)
}

// appendFrameHead appends a WatchEvent up to its object: {"type":"T","object":
func appendFrameHead(dst []byte, typ string) []byte {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, typ...)
	return append(dst, `","object":`...)
}

// bookmarkObject is the object of a BOOKMARK event: an empty object of the
// kind with the revision, as kube-apiserver sends it (what its Go type always
// writes included: a Pod's spec and status); with a blueprint, the
// end-of-initial-events annotations.
func bookmarkObject(res *api.Resource, rev int64, blueprint string) []byte {
	meta := map[string]any{"resourceVersion": strconv.FormatInt(rev, 10)}
	if blueprint != "" {
		meta["annotations"] = map[string]any{initialEventsEndAnnotation: "true", initialEventsListBlueprintAnnotation: blueprint}
	}
	obj := object.Object{"metadata": meta}
	if res.Sub("scale") != nil {
		// kube's object is its empty internal one, converted: the replica
		// count of a scalable kind is a value there, a pointer outside.
		obj["spec"] = map[string]any{"replicas": json.Number("0")}
	}
	types.Complete(res.APIVersion(), res.Kind, obj)
	b, _ := object.EncodeOrdered(obj, types.Order(res.APIVersion(), res.Kind)) // strings and maps only
	return object.WithTypeMeta(b, res.Kind, res.APIVersion())
}

// initialEventsListBlueprintAnnotation carries, on the end-of-initial-events
// bookmark, the base64 of an empty list of the resource in the response's encoding:
// client-go's typed List over WatchList (1.32+) builds its result from it and
// fails without it.
const initialEventsListBlueprintAnnotation = "kubernetes.io/initial-events-list-blueprint"

// listBlueprint is the empty <Kind>List kube-apiserver encodes into the
// blueprint annotation, in the watch's media, base64-encoded.
func listBlueprint(res *api.Resource, media encoding.Media) string {
	list := []byte(`{"kind":"` + res.ListKind() + `","apiVersion":"` + res.APIVersion() + `","metadata":{},"items":null}` + "\n")
	switch media {
	case encoding.Protobuf:
		if raw, err := protobuf.AppendList(nil, object.Object{}, nil); err == nil {
			list = protobuf.AppendEnvelope(nil, res.APIVersion(), res.ListKind(), raw)
		}
	case encoding.CBOR:
		if b, err := encoding.AppendCBOR(nil, map[string]any{"kind": res.ListKind(), "apiVersion": res.APIVersion(), "metadata": map[string]any{}, "items": nil}); err == nil {
			list = b
		}
	}
	return base64.StdEncoding.EncodeToString(list)
}
