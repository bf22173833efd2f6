package apiserver

import (
	"errors"
	"fmt"

	"kubeplay/core/apierrors"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/object"
	"kubeplay/core/schema"
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
	obj, apiVersion, kind, err := decodeProtobufDocument(body)
	switch {
	case err != nil && kind != "" && !protobuf.Supported(apiVersion, kind):
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): no kind %q is registered for version %q", res.Kind, kind, apiVersion))
	case err != nil:
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return obj, nil
}

// decodeProtobufDocument reads an enveloped protobuf object into the JSON
// object form, with the kind and apiVersion of its envelope (also returned,
// when the envelope could be read, to name what failed).
func decodeProtobufDocument(data []byte) (obj object.Object, apiVersion, kind string, err error) {
	apiVersion, kind, raw, err := protobuf.ParseEnvelope(data)
	if err != nil {
		return nil, "", "", err
	}
	if obj, err = protobuf.Unmarshal(apiVersion, kind, raw); err != nil {
		return nil, apiVersion, kind, err
	}
	obj["apiVersion"], obj["kind"] = apiVersion, kind
	return obj, apiVersion, kind, nil
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
