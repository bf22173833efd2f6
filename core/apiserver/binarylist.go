package apiserver

import (
	"encoding/json"
	"strconv"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/encoding"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/gzipjoin"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/web"
)

// object is the list metadata in the JSON object form.
func (m listMeta) object() object.Object {
	lm := object.Object{}
	if m.ResourceVersion != "" {
		lm["resourceVersion"] = m.ResourceVersion
	}
	if m.Continue != "" {
		lm["continue"] = m.Continue
	}
	if m.RemainingItemCount != nil {
		lm["remainingItemCount"] = json.Number(strconv.FormatInt(*m.RemainingItemCount, 10))
	}
	return lm
}

// writeBinaryList answers with a <Kind>List of stored items in protobuf or
// CBOR. Like the JSON list it hands the (cached) item encodings to w one by one
// instead of building the whole body; with gzip it builds it.
func (rep reply) writeBinaryList(w web.ResponseWriter, res *api.Resource, meta listMeta, items []registry.Item) {
	media := rep.out.Media
	encoded := make([][]byte, len(items))
	size := 0
	for i, it := range items {
		b, err := rep.store.Encoded(media, res, it)
		if err != nil {
			rep.writeStatus(w, apierrors.NewInternal(err))
			return
		}
		encoded[i] = b
		size += len(b)
	}
	var head, tail []byte
	var itemHead func(dst []byte, n int) []byte
	var err error
	if media == encoding.Protobuf {
		head, tail, err = protobufListFrame(res, meta, encoded)
		itemHead = protobuf.AppendListItemHead
	} else {
		head, tail, err = encoding.CBORListFrame(res.ListKind(), res.APIVersion(), meta.object(), len(encoded))
		itemHead = func(dst []byte, _ int) []byte { return dst }
	}
	if err != nil {
		rep.writeStatus(w, apierrors.NewInternal(err))
		return
	}
	var scratch [16]byte
	total := len(head) + len(tail) + size
	for _, b := range encoded {
		total += len(itemHead(scratch[:0], len(b)))
	}
	if rep.gzip && total > gzipjoin.Threshold {
		rep.writeJoinedList(w, res, head, tail, items, func(i int, _ registry.Item) ([]byte, []byte) {
			return itemHead(scratch[:0], len(encoded[i])), encoded[i] // used before the next item's
		})
		return
	}
	h := w.Header()
	h.Set("Content-Type", media.ContentType())
	h.Set("Content-Length", strconv.Itoa(total))
	w.WriteHeader(web.StatusOK)
	bw := web.NewBuffered(w, web.ListBuffer)
	defer bw.Release()
	_, _ = bw.Write(head)
	for _, b := range encoded {
		_, _ = bw.Write(itemHead(scratch[:0], len(b)))
		if _, err := bw.Write(b); err != nil {
			return
		}
	}
	_, _ = bw.Write(tail)
	_ = bw.Flush()
}
