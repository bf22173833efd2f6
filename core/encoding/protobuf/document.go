package protobuf

import (
	"errors"

	"kubeplay/core/object"
)

// EncodeDocument is a JSON document (with kind and apiVersion) as an
// enveloped message.
func EncodeDocument(doc []byte) ([]byte, error) {
	obj, err := object.Decode(doc)
	if err != nil {
		return nil, err
	}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if apiVersion == "" || kind == "" {
		return nil, errors.New("the object has no kind and apiVersion")
	}
	raw, err := Marshal(nil, apiVersion, kind, obj)
	if err != nil {
		return nil, err
	}
	return AppendEnvelope(nil, apiVersion, kind, raw), nil
}

// WatchFrame is one length-delimited WatchEvent of a watch in protobuf, of
// type typ around a JSON document (with kind and apiVersion).
func WatchFrame(typ string, doc []byte) ([]byte, error) {
	obj, err := EncodeDocument(doc)
	if err != nil {
		return nil, err
	}
	return AppendFrame(nil, AppendWatchEvent(nil, typ, obj)), nil
}

// DecodeDocument reads an enveloped message into the JSON object form, with
// the kind and apiVersion of its envelope, and says whether the envelope
// could be read.
func DecodeDocument(data []byte) (obj object.Object, enveloped bool, err error) {
	apiVersion, kind, raw, err := ParseEnvelope(data)
	if err != nil {
		return nil, false, err
	}
	if obj, err = Unmarshal(apiVersion, kind, raw); err != nil {
		return nil, true, err
	}
	obj["apiVersion"], obj["kind"] = apiVersion, kind
	return obj, true, nil
}
