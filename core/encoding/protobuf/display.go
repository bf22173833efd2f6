package protobuf

import (
	"fmt"
	"kubeplay/core/encoding"
	"mime"
)

// DecodeForDisplay turns a body in a binary media into JSON values, so that
// a binary response can be shown: Kubernetes protobuf (an object, or a
// watch stream with ";stream=watch", a list of {type, object} events), CBOR
// (an object) or a CBOR sequence (a watch's events).
func DecodeForDisplay(contentType string, body []byte) (any, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return nil, fmt.Errorf("Content-Type %q: %v", contentType, err)
	}
	switch {
	case mt == encoding.Protobuf.ContentType() && params["stream"] == "watch":
		events := []any{}
		for len(body) > 0 {
			msg, rest, err := SplitFrame(body)
			if err != nil {
				return nil, err
			}
			typ, obj, err := ParseWatchEvent(msg)
			if err != nil {
				return nil, err
			}
			o, _, err := DecodeDocument(obj)
			if err != nil {
				return nil, err
			}
			events = append(events, map[string]any{"type": typ, "object": o})
			body = rest
		}
		return events, nil
	case mt == encoding.Protobuf.ContentType():
		obj, _, err := DecodeDocument(body)
		return obj, err
	case mt == encoding.CBOR.ContentType():
		return encoding.DecodeCBOR(body)
	case mt == "application/cbor-seq":
		events := []any{}
		for len(body) > 0 {
			item, rest, err := encoding.SplitCBORSequence(body)
			if err != nil {
				return nil, err
			}
			ev, err := encoding.DecodeCBOR(item)
			if err != nil {
				return nil, err
			}
			events = append(events, ev)
			body = rest
		}
		return events, nil
	}
	return nil, fmt.Errorf("%s is not a binary media kubeplay decodes (protobuf, protobuf;stream=watch, cbor, cbor-seq)", mt)
}
