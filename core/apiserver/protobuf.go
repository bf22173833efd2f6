package apiserver

import (
	"kubeplay/core/api"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/object"
	"kubeplay/core/types"
)

// protobufServed: the built-in kinds have protobuf messages (the
// CustomResourceDefinition too, though kubeplay reads its JSON untyped);
// custom resources do not, and clients asking for protobuf fall back to what
// else they accept.
func protobufServed(res *api.Resource) bool {
	return types.LookupProtobuf(res.APIVersion(), res.Kind) != nil
}

// decodeProtobuf reads an enveloped protobuf request body for kind in version,
// sent to an endpoint of target kind,
// into the JSON object form, with the kind and apiVersion of its envelope.
func decodeProtobuf(version, kind, target string, body []byte) (object.Object, error) {
	obj, enveloped, err := protobuf.DecodeDocument(body)
	switch {
	case err != nil && !enveloped:
		return nil, unrecognized(kind, err, body)
	case err != nil:
		return nil, decodeError(version, kind, target, err, body)
	}
	return obj, nil
}

// protobufListFrame is an enveloped <Kind>List message around its encoded
// items: the bytes before the first item's field head and after the last item.
func protobufListFrame(res *api.Resource, meta listMeta, items [][]byte) (head, tail []byte, err error) {
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
