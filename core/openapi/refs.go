package openapi

import (
	"bytes"
	"encoding/json"
	"sync"
)

// builtinSchemas are the component schemas of the built-in v3 documents, by
// name: what an extra document may reference (a custom resource's metadata
// is meta/v1's ObjectMeta).
var builtinSchemas struct {
	once    sync.Once
	schemas map[string]json.RawMessage
}

// refPrefix begins a reference to a component schema.
const refPrefix = `"$ref":"#/components/schemas/`

// withBuiltinSchemas adds to an extra document the built-in component
// schemas it references, and those they reference. The built-in documents
// must be unpacked.
func withBuiltinSchemas(body []byte) []byte {
	builtinSchemas.once.Do(func() {
		docs := make([][]byte, 0, len(builtins.v3))
		for _, d := range builtins.v3 {
			docs = append(docs, d)
		}
		builtinSchemas.schemas = ComponentSchemas(docs)
	})
	return WithReferencedSchemas(body, builtinSchemas.schemas)
}

// ComponentSchemas are the component schemas of v3 documents, by name.
func ComponentSchemas(docs [][]byte) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, d := range docs {
		var doc struct {
			Components struct{ Schemas map[string]json.RawMessage }
		}
		if json.Unmarshal(d, &doc) == nil {
			for k, v := range doc.Components.Schemas {
				out[k] = v
			}
		}
	}
	return out
}

// WithReferencedSchemas adds to a v3 document the component schemas of from
// that it references, and those they reference, or what it lacks of them: a
// document made apart (a custom resource's, the xDS group's) gets meta/v1's
// ObjectMeta and what it needs, and may give one of them its own
// x-kubernetes-group-version-kind. A body that is not a document is returned
// as it is.
func WithReferencedSchemas(body []byte, from map[string]json.RawMessage) []byte {
	var doc map[string]any
	if json.Unmarshal(body, &doc) != nil {
		return body
	}
	components, _ := doc["components"].(map[string]any)
	schemas, _ := components["schemas"].(map[string]any)
	if schemas == nil {
		return body
	}
	done := map[string]bool{}
	for todo := [][]byte{body}; len(todo) > 0; {
		b := todo[0]
		todo = todo[1:]
		for {
			i := bytes.Index(b, []byte(refPrefix))
			if i < 0 {
				break
			}
			b = b[i+len(refPrefix):]
			name := string(b[:bytes.IndexByte(b, '"')])
			s, ok := from[name]
			if !ok || done[name] {
				continue
			}
			done[name] = true
			own, _ := schemas[name].(map[string]any)
			var full map[string]any
			if json.Unmarshal(s, &full) != nil {
				continue
			}
			for k, v := range own {
				full[k] = v
			}
			schemas[name] = full
			todo = append(todo, s)
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return body
	}
	return out
}
