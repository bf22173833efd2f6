package apiserver

import (
	"errors"

	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/object"
	"kubeplay/core/schema"
	"kubeplay/core/types"
)

// protobufServed: the built-in kinds have protobuf messages; custom resources
// do not, and clients asking for protobuf fall back to what else they accept.
func protobufServed(res *schema.Resource) bool {
	return types.Known(res.APIVersion(), res.Kind)
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

// decodeProtobuf reads an enveloped protobuf request body for kind in version,
// sent to an endpoint of target kind,
// into the JSON object form, with the kind and apiVersion of its envelope.
func decodeProtobuf(version, kind, target string, body []byte) (object.Object, error) {
	obj, enveloped, err := decodeProtobufDocument(body)
	switch {
	case err != nil && !enveloped:
		return nil, unrecognized(kind, err, body)
	case err != nil:
		return nil, decodeError(version, kind, target, err, body)
	}
	return obj, nil
}

// decodeProtobufDocument reads an enveloped protobuf object into the JSON
// object form, with the kind and apiVersion of its envelope, and says whether
// the envelope could be read.
func decodeProtobufDocument(data []byte) (obj object.Object, enveloped bool, err error) {
	apiVersion, kind, raw, err := protobuf.ParseEnvelope(data)
	if err != nil {
		return nil, false, err
	}
	if obj, err = protobuf.Unmarshal(apiVersion, kind, raw); err != nil {
		return nil, true, err
	}
	obj["apiVersion"], obj["kind"] = apiVersion, kind
	return obj, true, nil
}

// protobufListFrame is an enveloped <Kind>List message around its encoded
// items: the bytes before the first item's field head and after the last item.
func protobufListFrame(res *schema.Resource, meta listMeta, items [][]byte) (head, tail []byte, err error) {
	listMeta, err := protobuf.AppendList(nil, meta.object(), nil)
	if err != nil {
		return nil, nil, err
	}
	size := len(listMeta)
	var scratch [16]byte
	for _, m := range items {
		size += len(protobuf.AppendListItemHead(scratch[:0], len(m))) + len(m)
	}
	head = protobuf.AppendEnvelopeHead(nil, res.APIVersion(), res.ListKind(), size)
	return append(head, listMeta...), protobuf.AppendEnvelopeTail(nil), nil
}
