package kinds

import (
	"encoding/base64"
	"slices"

	"kubeplay/core/api"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// secret is v1 Secret.
func secret() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "Secret", Plural: "secrets", Singular: "secret",
		Namespaced: true, Verbs: allVerbs,
		Fields: map[string]func(object.Object) string{"type": str("type")},
		// SetDefaults_Secret: an Opaque one.
		Defaults: func(m map[string]any) { defaults.SetString(m, "type", "Opaque") },
		Hooks: api.Hooks{
			LabelChecksOnUpdate: 4,
			Canonicalize:        writeStringData,
			Validate:            validation.Secret,
			ValidateUpdate:      anySubresource(validation.SecretUpdate),
		},
		Printer: table.Secret,
	}
}

// writeStringData is kube's conversion of a Secret: stringData is written
// into data.
func writeStringData(obj object.Object) {
	sd, _ := obj["stringData"].(map[string]any)
	data, _ := obj["data"].(map[string]any)
	if data == nil && len(sd) > 0 {
		data = map[string]any{}
		obj["data"] = data
	}
	keys := make([]string, 0, len(sd))
	for k := range sd {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if s, ok := sd[k].(string); ok {
			data[k] = base64.StdEncoding.EncodeToString([]byte(s))
		}
	}
	delete(obj, "stringData")
}
