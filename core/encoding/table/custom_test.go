package table

import (
	"testing"

	"k8s.io/client-go/util/jsonpath"
)

func TestK8S_ENC_5_CustomColumnParseError(t *testing.T) {
	// Like tableconvertor.New: the error names the path, and the printer keeps
	// the columns before the bad one (kube-apiserver serves it as the fallback).
	p, err := ForCustom([]CustomColumn{
		{Name: "Size", Type: "integer", JSONPath: ".spec.size"},
		{Name: "Bad", Type: "string", JSONPath: ".spec.items[0"},
		{Name: "After", Type: "string", JSONPath: ".spec.after"},
	})
	if err == nil || err.Error() != `unrecognized column definition ".spec.items[0"` {
		t.Fatalf("error %v", err)
	}
	if jp := jsonpath.New("x"); jp.Parse("{.spec.items[0}") == nil {
		t.Fatal("client-go accepts the path this test calls bad")
	}
	var names []string
	for _, c := range p.Columns() {
		names = append(names, c.Name)
	}
	if len(names) != 2 || names[0] != "Name" || names[1] != "Size" {
		t.Fatalf("columns %v", names)
	}
	obj := map[string]any{"metadata": map[string]any{"name": "a"}, "spec": map[string]any{"size": int64(4)}}
	if cells := p.Cells(obj, goldenNow); len(cells) != 2 || cells[1] != int64(4) {
		t.Fatalf("cells %v", cells)
	}
}

func TestK8S_ENC_5_CustomDefaultAge(t *testing.T) {
	p, err := ForCustom(nil)
	if err != nil {
		t.Fatal(err)
	}
	cols := p.Columns()
	if len(cols) != 2 || cols[1].Name != "Age" || cols[1].Type != "date" || cols[1].Description != descCreationTimestamp {
		t.Fatalf("columns %+v", cols)
	}
}
