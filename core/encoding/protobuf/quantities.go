package protobuf

import "kubeplay/core/object"

// RewriteQuantities replaces every resource quantity in obj, an object of kind
// in apiVersion in JSON form, with what rewrite returns for it (kube-apiserver
// stores quantities in canonical form), following the kind's message table. A
// value that is no string is left alone (encoding reports it); rewrite's error
// stops the walk and is returned as it is (kube's decoding errors name no field).
func RewriteQuantities(apiVersion, kind string, obj object.Object, rewrite func(string) (string, error)) error {
	m, err := lookup(apiVersion, kind)
	if err != nil {
		return err
	}
	return rewriteMessage(m, obj, rewrite)
}

func rewriteMessage(m *message, obj map[string]any, rewrite func(string) (string, error)) error {
	for i := range m.fields {
		f := &m.fields[i]
		if f.kind != kindQuantity && f.kind != kindMessage {
			continue
		}
		if f.flags&flagInline != 0 {
			if err := rewriteMessage(&messages[f.msg], obj, rewrite); err != nil {
				return err
			}
			continue
		}
		v, ok := obj[f.name]
		if !ok || v == nil {
			continue
		}
		var err error
		switch {
		case f.flags&flagMap != 0:
			if entries, ok := v.(map[string]any); ok {
				for k, ev := range entries {
					if entries[k], err = rewriteValue(f, ev, rewrite); err != nil {
						return err
					}
				}
			}
		case f.flags&flagRepeated != 0:
			if list, ok := v.([]any); ok {
				for i, ev := range list {
					if list[i], err = rewriteValue(f, ev, rewrite); err != nil {
						return err
					}
				}
			}
		default:
			if obj[f.name], err = rewriteValue(f, v, rewrite); err != nil {
				return err
			}
		}
	}
	return nil
}

func rewriteValue(f *field, v any, rewrite func(string) (string, error)) (any, error) {
	switch v := v.(type) {
	case string:
		if f.kind != kindQuantity {
			return v, nil
		}
		c, err := rewrite(v)
		if err != nil {
			return v, err // the object keeps what it had
		}
		return c, nil
	case map[string]any:
		if f.kind == kindMessage {
			return v, rewriteMessage(&messages[f.msg], v, rewrite)
		}
	}
	return v, nil
}
