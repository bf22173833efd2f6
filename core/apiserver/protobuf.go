package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"kubeplay/core/encoding"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/object"
	"kubeplay/core/schema"
	"kubeplay/core/storage"
)

// protobufServed: the built-in kinds have protobuf messages; custom resources
// do not, and clients asking for protobuf fall back to what else they accept.
func protobufServed(res *schema.Resource) bool {
	return protobuf.Supported(res.APIVersion(), res.Kind)
}

// typeMetaOf reads kind and apiVersion off a JSON document's object.
func typeMetaOf(obj object.Object) (apiVersion, kind string, err error) {
	apiVersion, _ = obj["apiVersion"].(string)
	kind, _ = obj["kind"].(string)
	if apiVersion == "" || kind == "" {
		return "", "", errors.New("the object has no kind and apiVersion")
	}
	return apiVersion, kind, nil
}

// protobufObject is a JSON document (with kind and apiVersion) as an enveloped
// protobuf object.
func protobufObject(doc []byte) ([]byte, error) {
	obj, err := object.Decode(doc)
	if err != nil {
		return nil, err
	}
	apiVersion, kind, err := typeMetaOf(obj)
	if err != nil {
		return nil, err
	}
	raw, err := protobuf.Marshal(nil, apiVersion, kind, obj)
	if err != nil {
		return nil, err
	}
	return protobuf.AppendEnvelope(nil, apiVersion, kind, raw), nil
}

// protobufWatchFrame is one length-delimited WatchEvent of a protobuf watch.
func protobufWatchFrame(typ string, doc []byte) ([]byte, error) {
	obj, err := protobufObject(doc)
	if err != nil {
		return nil, err
	}
	return protobuf.AppendFrame(nil, protobuf.AppendWatchEvent(nil, typ, obj)), nil
}

// decodeProtobuf reads an enveloped protobuf request body into the JSON object
// form, with the kind and apiVersion of its envelope.
func decodeProtobuf(res *schema.Resource, body []byte) (object.Object, error) {
	apiVersion, kind, raw, err := protobuf.ParseEnvelope(body)
	if err != nil {
		return nil, errBadRequest(err.Error())
	}
	obj, err := protobuf.Unmarshal(apiVersion, kind, raw)
	if err != nil {
		if !protobuf.Supported(apiVersion, kind) {
			return nil, errBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): no kind %q is registered for version %q", res.Kind, kind, apiVersion))
		}
		return nil, errBadRequest(err.Error())
	}
	obj["apiVersion"] = apiVersion
	obj["kind"] = kind
	return obj, nil
}

// messageCache keeps the protobuf message of stored objects, so that serving a
// list in protobuf costs about a copy per item, as serving it in JSON does
// (JSON is the stored form). An entry is valid while the stored value it was
// made from is the current one; the cache is emptied when it outgrows its
// budget.
type messageCache struct {
	mu      sync.Mutex
	entries map[string]cachedMessage // by storage key
	size    int
}

type cachedMessage struct {
	stored string // the stored JSON the message encodes
	raw    []byte
}

// messageCacheBudget bounds the bytes of cached messages.
const messageCacheBudget = 64 << 20

// message is the protobuf message of a stored object of res.
func (c *messageCache) message(res *schema.Resource, it storage.Item) ([]byte, error) {
	c.mu.Lock()
	e, ok := c.entries[it.Key]
	c.mu.Unlock()
	if ok && e.stored == it.Value {
		return e.raw, nil
	}
	obj, err := object.Decode([]byte(it.Value))
	if err != nil {
		return nil, err
	}
	raw, err := protobuf.Marshal(nil, res.APIVersion(), res.Kind, obj)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || c.size+len(raw) > messageCacheBudget {
		c.entries, c.size = map[string]cachedMessage{}, 0
	}
	c.size += len(raw) - len(c.entries[it.Key].raw)
	c.entries[it.Key] = cachedMessage{stored: it.Value, raw: raw}
	return raw, nil
}

// writeProtobufList answers with a <Kind>List of stored items as an enveloped
// protobuf object. Like the JSON list it hands the (cached) item messages to w
// one by one instead of building the whole body; with gzip it builds it.
func (rep reply) writeProtobufList(w http.ResponseWriter, res *schema.Resource, meta listMeta, items []storage.Item) {
	msgs := make([][]byte, len(items))
	for i, it := range items {
		m, err := rep.messages.message(res, it)
		if err != nil {
			rep.writeStatus(w, errInternal(err))
			return
		}
		msgs[i] = m
	}
	lm := object.Object{}
	if meta.ResourceVersion != "" {
		lm["resourceVersion"] = meta.ResourceVersion
	}
	if meta.Continue != "" {
		lm["continue"] = meta.Continue
	}
	if meta.RemainingItemCount != nil {
		lm["remainingItemCount"] = json.Number(strconv.FormatInt(*meta.RemainingItemCount, 10))
	}
	listHead, err := protobuf.AppendList(nil, lm, nil)
	if err != nil {
		rep.writeStatus(w, errInternal(err))
		return
	}
	size := len(listHead)
	for _, m := range msgs {
		size += len(protobuf.AppendListItemHead(nil, len(m))) + len(m)
	}
	head := protobuf.AppendEnvelopeHead(nil, res.APIVersion(), res.ListKind(), size)
	head = append(head, listHead...)
	tail := protobuf.AppendEnvelopeTail(nil)
	if total := len(head) + size - len(listHead) + len(tail); rep.gzip && total > gzipThreshold {
		body := make([]byte, 0, total)
		body = append(body, head...)
		for _, m := range msgs {
			body = append(protobuf.AppendListItemHead(body, len(m)), m...)
		}
		rep.send(w, http.StatusOK, encoding.Protobuf.ContentType(), append(body, tail...))
		return
	}
	h := w.Header()
	h.Set("Content-Type", encoding.Protobuf.ContentType())
	h.Set("Content-Length", strconv.Itoa(len(head)+size-len(listHead)+len(tail)))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(head); err != nil {
		return
	}
	var itemHead [16]byte
	for _, m := range msgs {
		if _, err := w.Write(protobuf.AppendListItemHead(itemHead[:0], len(m))); err != nil {
			return
		}
		if _, err := w.Write(m); err != nil {
			return
		}
	}
	_, _ = w.Write(tail)
}
