package types

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

func walkMessage(m *Message, obj map[string]any, visit func(string, map[string]any)) {
	visit(GoTypes[m.GoType], obj)
	for i := range m.Fields {
		f := &m.Fields[i]
		if f.Flags&FlagInline != 0 {
			walkMessage(&Messages[f.Msg], obj, visit)
			continue
		}
		switch v := obj[f.Name].(type) {
		case map[string]any:
			switch {
			case f.Flags&FlagMap != 0:
				visit(GoTypes[f.GoType], v)
			case f.Kind == KindMessage:
				walkMessage(&Messages[f.Msg], v, visit)
			}
		case []any:
			if f.Kind != KindMessage || f.Flags&FlagRepeated == 0 {
				continue
			}
			for _, e := range v {
				if e, ok := e.(map[string]any); ok {
					walkMessage(&Messages[f.Msg], e, visit)
				}
			}
		case nil:
			if f.Kind != KindMessage || f.Flags&(FlagPointer|FlagRepeated|FlagMap) != 0 {
				continue
			}
			empty := map[string]any{}
			walkMessage(&Messages[f.Msg], empty, visit)
			if len(empty) > 0 {
				obj[f.Name] = empty
			}
		}
	}
}
