package validation

import (
	"encoding/base64"
	"encoding/json"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// The rules of ConfigMaps and Secrets (ValidateConfigMap, ValidateSecret and
// their updates): keys, total size, the keys each Secret type requires, and
// data that does not change once the object is immutable.

// maxDataBytes is kube's limit on the bytes of a ConfigMap's or Secret's
// values (api.MaxSecretSize).
const maxDataBytes = 1 << 20

// immutableWhenSet is kube's word on changing an immutable object's data.
const immutableWhenSet = "field is immutable when `immutable` is set"

// ConfigMap checks a ConfigMap's keys and size (the size is reported on the
// object itself, "[]").
func ConfigMap(cm object.Object) field.ErrorList {
	data, binary := fields(cm).strMap("data"), fields(cm).strMap("binaryData")
	var errs field.ErrorList
	size := 0
	for _, k := range sortedKeys(data) {
		addInvalid(&errs, field.NewPath("data").Key(k), k, configKey(k))
		if _, ok := binary[k]; ok {
			add(&errs, field.Invalid(field.NewPath("data").Key(k), k, "duplicate of key present in binaryData"))
		}
		size += len(data[k])
	}
	for _, k := range sortedKeys(binary) {
		addInvalid(&errs, field.NewPath("binaryData").Key(k), k, configKey(k))
		size += base64.StdEncoding.DecodedLen(len(binary[k]))
	}
	if size > maxDataBytes {
		add(&errs, field.TooLong(field.NewPath("").Key(""), maxDataBytes))
	}
	return errs
}

// ConfigMapUpdate checks an update of a ConfigMap: an immutable one keeps its
// data.
func ConfigMapUpdate(cm, old object.Object) field.ErrorList {
	var errs field.ErrorList
	if immutable(old) {
		if !immutable(cm) {
			add(&errs, field.Forbidden(field.NewPath("immutable"), immutableWhenSet))
		}
		for _, f := range []string{"data", "binaryData"} {
			if !semanticEqual(cm[f], old[f]) {
				add(&errs, field.Forbidden(field.NewPath(f), immutableWhenSet))
			}
		}
	}
	return append(errs, ConfigMap(cm)...)
}

func immutable(obj object.Object) bool {
	b, _ := obj["immutable"].(bool)
	return b
}

// Secret checks a Secret's keys, size and the keys its type requires.
func Secret(secret object.Object) field.ErrorList {
	s := fields(secret)
	data := s.strMap("data")
	dataPath := field.NewPath("data")
	var errs field.ErrorList
	size := 0
	for _, k := range sortedKeys(data) {
		addInvalid(&errs, dataPath.Key(k), k, configKey(k))
		size += base64.StdEncoding.DecodedLen(len(data[k]))
	}
	if size > maxDataBytes {
		add(&errs, field.TooLong(dataPath, maxDataBytes))
	}
	required := func(keys ...string) {
		for _, k := range keys {
			add(&errs, field.Required(dataPath.Key(k), ""))
		}
	}
	switch s.str("type") {
	case "kubernetes.io/service-account-token":
		if s.obj("metadata").strMap("annotations")["kubernetes.io/service-account.name"] == "" {
			add(&errs, field.Required(field.NewPath("metadata", "annotations").Key("kubernetes.io/service-account.name"), ""))
		}
	case "kubernetes.io/dockercfg", "kubernetes.io/dockerconfigjson":
		key := map[string]string{"kubernetes.io/dockercfg": ".dockercfg", "kubernetes.io/dockerconfigjson": ".dockerconfigjson"}[s.str("type")]
		v, ok := data[key]
		if !ok {
			required(key)
			break
		}
		raw, _ := base64.StdEncoding.DecodeString(v)
		if err := json.Unmarshal(raw, &map[string]any{}); err != nil {
			add(&errs, field.Invalid(dataPath.Key(key), "<secret contents redacted>", err.Error()))
		}
	case "kubernetes.io/basic-auth":
		_, user := data["username"]
		_, password := data["password"]
		if !user && !password {
			required("username", "password")
		}
	case "kubernetes.io/ssh-auth":
		if data["ssh-privatekey"] == "" {
			required("ssh-privatekey")
		}
	case "kubernetes.io/tls":
		for _, k := range []string{"tls.crt", "tls.key"} {
			if _, ok := data[k]; !ok {
				required(k)
			}
		}
	}
	return errs
}

// SecretUpdate checks an update of a Secret: its type does not change, and an
// immutable one keeps its data.
func SecretUpdate(secret, old object.Object) field.ErrorList {
	var errs field.ErrorList
	if typ, oldType := fields(secret).str("type"), fields(old).str("type"); typ != oldType {
		add(&errs, field.Invalid(field.NewPath("type"), typ, fieldImmutable))
	}
	if immutable(old) {
		if !immutable(secret) {
			add(&errs, field.Forbidden(field.NewPath("immutable"), immutableWhenSet))
		}
		if !semanticEqual(secret["data"], old["data"]) {
			add(&errs, field.Forbidden(field.NewPath("data"), immutableWhenSet))
		}
	}
	return append(errs, Secret(secret)...)
}
