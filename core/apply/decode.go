package apply

import (
	"encoding/json"

	"sigs.k8s.io/structured-merge-diff/v4/typed"
	"sigs.k8s.io/yaml"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/encoding"
	"kubeplay/core/object"
	"kubeplay/core/types"
)

// The media types of apply patches.
const (
	YAMLPatch = "application/apply-patch+yaml" // YAML, and so JSON
	CBORPatch = "application/apply-patch+cbor"
)

// IsPatch says whether a patch's media type is a server-side apply's.
func IsPatch(mediaType string) bool { return mediaType == YAMLPatch || mediaType == CBORPatch }

// ReadConfig reads an apply patch's body of media type mediaType (YAMLPatch or
// CBORPatch), an applied configuration, as kube does: into a free-form object
// whose numbers are integers or floats. Anything else is kube's 400 "error
// decoding YAML", whichever the media type.
func ReadConfig(mediaType string, body []byte) (object.Object, error) {
	var obj map[string]any
	var err error
	if mediaType == CBORPatch {
		obj, err = encoding.DecodeCBOR(body)
	} else {
		err = yaml.Unmarshal(body, &obj, func(d *json.Decoder) *json.Decoder { d.UseNumber(); return d })
	}
	if err == nil {
		err = checkNumbers(obj)
	}
	if err != nil {
		return nil, apierrors.NewBadRequest("error decoding YAML: " + err.Error())
	}
	return obj, nil
}

// checkNumbers refuses numbers that are neither an int64 nor a float64, as
// kube's conversion of a decoded patch's numbers does.
func checkNumbers(v any) error {
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			if err := checkNumbers(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range v {
			if err := checkNumbers(e); err != nil {
				return err
			}
		}
	case json.Number:
		if _, err := v.Int64(); err != nil {
			_, err := v.Float64()
			return err
		}
	}
	return nil
}

// typedObject is a merged object read into its kind's Go type, as kube
// converts an apply's result: values come out as the typed object writes
// them (core/types' typed decoding, for the built-in kinds).
func typedObject(res *api.Resource, tv *typed.TypedValue) (object.Object, error) {
	doc, err := json.Marshal(tv.AsValue().Unstructured())
	if err != nil {
		return nil, err
	}
	if types.Known(res.APIVersion(), res.Kind) {
		return types.DecodeJSON(res.APIVersion(), res.Kind, doc)
	}
	return object.Decode(doc)
}
