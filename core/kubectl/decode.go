package kubectl

// This file holds two helpers the kwrite branch defines alike (manifest.go's
// decodeObject, write.go's errorList): whichever branch merges second drops
// this file.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// decodeObject reads a JSON object as kubectl's unstructured decoding
// does: whole numbers as int64, others as float64.
func decodeObject(data []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	obj, ok := numbers(v).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("json: cannot unmarshal %s into Go value of type map[string]interface {}", jsonKind(v))
	}
	return obj, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "bool"
	}
	return "number"
}

// numbers replaces json.Numbers with int64 or float64.
func numbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return v
}

// errorList is the errors of many objects, which kubectl prints one a line
// after the others' outcomes (an aggregate); one error alone prints as
// itself.
type errorList []error

func (l errorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// reduce is nil, the one error, or the list.
func (l errorList) reduce() error {
	switch len(l) {
	case 0:
		return nil
	case 1:
		return l[0]
	}
	return l
}
