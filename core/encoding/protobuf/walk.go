package protobuf

import "kubeplay/core/object"

// Walk calls visit for every struct and map in obj, an object of kind in
// apiVersion in JSON form, with the name of its Go type as kube's errors print
// it ("v1.PodSpec", "v1.Container", "v1.ResourceList"): a value first, then
// the values in it, in field order, so that what visit adds to a value is
// walked too. This is the order of kube's generated defaulters, which default
// a type wherever it occurs (a Container in a Deployment's template as in a
// Pod).
//
// As the typed object always holds its struct fields (those that are no
// pointers), an absent one is visited as an empty struct, and kept only if
// visit filled it (a Namespace's status gets its phase). An inlined struct is
// visited with the map of the struct holding it (a Volume's VolumeSource).
// Values the type does not allow are skipped, and so are maps of structs (no
// served kind has one). Walk reports whether the kind has a message here.
func Walk(apiVersion, kind string, obj object.Object, visit func(goType string, v map[string]any)) bool {
	m, err := lookup(apiVersion, kind)
	if err != nil {
		return false
	}
	walkMessage(m, obj, visit)
	return true
}

func walkMessage(m *message, obj map[string]any, visit func(string, map[string]any)) {
	visit(goTypes[m.goType], obj)
	for i := range m.fields {
		f := &m.fields[i]
		if f.flags&flagInline != 0 {
			walkMessage(&messages[f.msg], obj, visit)
			continue
		}
		switch v := obj[f.name].(type) {
		case map[string]any:
			switch {
			case f.flags&flagMap != 0:
				visit(goTypes[f.goType], v)
			case f.kind == kindMessage:
				walkMessage(&messages[f.msg], v, visit)
			}
		case []any:
			if f.kind != kindMessage || f.flags&flagRepeated == 0 {
				continue
			}
			for _, e := range v {
				if e, ok := e.(map[string]any); ok {
					walkMessage(&messages[f.msg], e, visit)
				}
			}
		case nil:
			if f.kind != kindMessage || f.flags&(flagPointer|flagRepeated|flagMap) != 0 {
				continue
			}
			empty := map[string]any{}
			walkMessage(&messages[f.msg], empty, visit)
			if len(empty) > 0 {
				obj[f.name] = empty
			}
		}
	}
}
