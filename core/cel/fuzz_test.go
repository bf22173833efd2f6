package cel

import (
	"context"
	"testing"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// FuzzK8S_CEL_RulesNeverPanic: whatever a definition's schema and a custom
// resource say (rules that do not parse or type-check, values of the wrong
// type, formats that do not parse, deep nesting), checking the rules and
// evaluating them on the object and an old one answers errors, never a
// panic, and within kube's cost limits.
func FuzzK8S_CEL_RulesNeverPanic(f *testing.F) {
	f.Add(`{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.a > 0","messageExpression":"'a is ' + string(self.a)"}],"properties":{"a":{"type":"integer"}}}}}`,
		`{"spec":{"a":-1}}`, `{"spec":{"a":2}}`)
	f.Add(`{"type":"object","properties":{"spec":{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","properties":{"k":{"type":"string"},"t":{"type":"string","format":"date-time"}},"x-kubernetes-validations":[{"rule":"self.t < timestamp('2030-01-01T00:00:00Z') && self == oldSelf","fieldPath":".t"}]}}}}}}`,
		`{"spec":{"l":[{"k":"a","t":"2020-01-01T00:00:00Z"},{"k":"b","t":"nope"}]}}`, `{"spec":{"l":[{"k":"a","t":"2020-01-01T00:00:00Z"}]}}`)
	f.Add(`{"type":"object","x-kubernetes-validations":[{"rule":"self.metadata.name.startsWith('a')","optionalOldSelf":true},{"rule":"oldSelf.hasValue()","optionalOldSelf":true}],"properties":{"spec":{"x-kubernetes-int-or-string":true,"x-kubernetes-validations":[{"rule":"type(self) == int","reason":"FieldValueForbidden"}]}}}`,
		`{"metadata":{"name":"b"},"spec":"x"}`, ``)
	f.Add(`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string","format":"byte"},"x-kubernetes-validations":[{"rule":"self.all(k, size(self[k]) < 3) && quantity('1Gi').isGreaterThan(quantity('1')) && isCIDR('10.0.0.0/8')"}]}}}`,
		`{"m":{"a":"AAEC","b":"!!"}}`, `{"m":[]}`)
	f.Fuzz(func(t *testing.T, schema, obj, old string) {
		s, err := ParseSchema([]byte(schema))
		if err != nil || s == nil {
			return
		}
		CheckRules(s, field.NewPath("spec", "validation", "openAPIV3Schema"), CheckOptions{})
		o, err := object.Decode([]byte(obj))
		if err != nil {
			return
		}
		p, _ := object.Decode([]byte(old))
		NewRules(s).Validate(context.Background(), o, p)
	})
}
