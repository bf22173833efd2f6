package main

import (
	"fmt"
	"log"

	"github.com/envoyproxy/protoc-gen-validate/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/durationpb"
)

// The regular expressions protoc-gen-validate writes for its well-known
// regexes (its module/checker.go): a header name, a header value, and the
// non-strict form of both.
const (
	headerNameRegex  = "^:?[0-9a-zA-Z!#$%&'*+-.^_|~\x60]+$"
	headerValueRegex = "^[^\u0000-\u0008\u000A-\u001F\u007F]*$"
	headerRegex      = "^[^\u0000\u000A\u000D]*$"
)

// fieldRules is a field's protoc-gen-validate rules (validate.rules) as the
// table keeps them, or nil: validate.proto's rule names flattened over the
// message rules and the rules of the field's kind, named by "kind" (string,
// uint32, duration, any…). Counts are numbers;
// bounds, constants and lists are the text protoc-gen-validate's Go code
// prints in its messages (a duration as Go writes a time.Duration); a
// well-known regex is the pattern it stands for, as protoc-gen-validate
// expands it. A rule the core does not enforce stops the generator, so a
// newer Envoy cannot bring rules that are silently dropped.
func fieldRules(f protoreflect.FieldDescriptor) map[string]any {
	r, _ := proto.GetExtension(f.Options(), validate.E_Rules).(*validate.FieldRules)
	if r == nil {
		return nil
	}
	out := flatten(f, r)
	if len(out) == 0 {
		return nil
	}
	return out
}

func flatten(f protoreflect.FieldDescriptor, r *validate.FieldRules) map[string]any {
	out := map[string]any{}
	if m := r.GetMessage(); m != nil {
		if m.GetRequired() {
			out["required"] = true
		}
		if m.GetSkip() {
			out["skip"] = true
		}
	}
	rm := r.ProtoReflect()
	kind := rm.WhichOneof(rm.Descriptor().Oneofs().ByName("type"))
	if kind == nil {
		return out
	}
	out["kind"] = string(kind.Name())
	strict := true
	rm.Get(kind).Message().Range(func(k protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := string(k.Name())
		if kind.Name() == "bytes" && name != "min_len" && name != "max_len" && name != "len" {
			log.Fatalf("%s: the rule bytes.%s is not enforced by core/xds/envoypb (add it there first)", f.FullName(), name)
		}
		switch name {
		case "items", "keys", "values":
			out[name] = flatten(f, v.Message().Interface().(*validate.FieldRules))
		case "required", "defined_only", "unique", "ignore_empty", "no_sparse":
			if v.Bool() {
				out[name] = true
			}
		case "strict":
			strict = v.Bool()
		case "min_len", "max_len", "len", "min_bytes", "max_bytes", "len_bytes",
			"min_items", "max_items", "min_pairs", "max_pairs":
			out[name] = v.Uint()
		case "const", "lt", "lte", "gt", "gte":
			out[name] = text(v)
		case "in", "not_in":
			var list []string
			for i := 0; i < v.List().Len(); i++ {
				list = append(list, text(v.List().Get(i)))
			}
			out[name] = list
		case "pattern", "prefix", "suffix", "contains", "not_contains":
			out[name] = v.String()
		case "well_known_regex":
			out["well_known_regex"] = validate.KnownRegex(v.Enum()).String()
		default:
			log.Fatalf("%s: the rule %s.%s is not enforced by core/xds/envoypb (add it there first)", f.FullName(), kind.Name(), name)
		}
		return true
	})
	if wk, ok := out["well_known_regex"].(string); ok {
		delete(out, "well_known_regex")
		switch {
		case !strict && (wk == "HTTP_HEADER_NAME" || wk == "HTTP_HEADER_VALUE"):
			out["pattern"] = headerRegex
		case wk == "HTTP_HEADER_NAME":
			out["pattern"] = headerNameRegex
		case wk == "HTTP_HEADER_VALUE":
			out["pattern"] = headerValueRegex
		default:
			log.Fatalf("%s: unknown well-known regex %s", f.FullName(), wk)
		}
	}
	return out
}

// text is a rule's value as protoc-gen-validate's messages print it.
func text(v protoreflect.Value) string {
	if m, ok := v.Interface().(protoreflect.Message); ok {
		d, ok := m.Interface().(*durationpb.Duration)
		if !ok {
			log.Fatalf("a rule's value of type %s is not enforced by core/xds/envoypb", m.Descriptor().FullName())
		}
		return d.AsDuration().String()
	}
	return fmt.Sprint(v.Interface())
}

// messageRules are a message's own rules: validation disabled (or the
// message ignored, which leaves it unchecked as well) and the oneofs one of
// whose fields must be set, as [1 + index, name].
func messageRules(m protoreflect.MessageDescriptor) (disabled bool, required [][2]any) {
	disabled = proto.GetExtension(m.Options(), validate.E_Disabled).(bool) ||
		proto.GetExtension(m.Options(), validate.E_Ignored).(bool)
	os := m.Oneofs()
	for i := 0; i < os.Len(); i++ {
		o := os.Get(i)
		if !o.IsSynthetic() && proto.GetExtension(o.Options(), validate.E_Required).(bool) {
			required = append(required, [2]any{i + 1, string(o.Name())})
		}
	}
	return disabled, required
}
