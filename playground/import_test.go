package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kubeplay/core/export"
)

// TestLEARN_6_NativeImport: the native command starts from another
// sandbox's export (--import), in memory or into an empty --data directory
// that then keeps it; it refuses a directory that holds a sandbox, and a
// damaged file, saying why.
func TestLEARN_6_NativeImport(t *testing.T) {
	dir := t.TempDir()
	a := startPlayground(t, options{})
	const cm = "/api/v1/namespaces/default/configmaps"
	if code, _, body := send(t, a, "POST", cm, "", map[string]string{"Content-Type": "application/json"}, `{"metadata":{"name":"kept"},"data":{"k":"v"}}`); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	code, h, file := send(t, a, "GET", export.Path, "", nil, "")
	if code != 200 || h.Get("Content-Type") != export.MediaType {
		t.Fatalf("export: %d %v", code, h)
	}
	exported := filepath.Join(dir, "state.kubeplay")
	if err := os.WriteFile(exported, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, want := send(t, a, "GET", cm+"/kept", "", nil, "")

	data := filepath.Join(dir, "data")
	for _, o := range []options{{importFile: exported}, {importFile: exported, data: data}, {data: data}} {
		s := startPlayground(t, o)
		if code, _, got := send(t, s, "GET", cm+"/kept", "", nil, ""); code != 200 || got != want {
			t.Errorf("%+v: %d %s, want %s", o, code, got, want)
		}
		if err := s.shutdown(); err != nil {
			t.Fatal(err)
		}
	}

	o := options{importFile: exported, data: data, apiOnly: true, listen: "127.0.0.1:0", limits: defaultLimits}
	if _, err := start(o); err == nil || !strings.Contains(err.Error(), "already holds a sandbox") {
		t.Errorf("an import into a kept sandbox: %v", err)
	}
	damaged := []byte(file)
	damaged[len(damaged)-40] ^= 0x40
	if err := os.WriteFile(exported, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	o = options{importFile: exported, apiOnly: true, listen: "127.0.0.1:0", limits: defaultLimits}
	if _, err := start(o); err == nil || !strings.Contains(err.Error(), "--import "+exported+": the export cannot be used: the snapshot is damaged") {
		t.Errorf("a damaged export: %v", err)
	}
}
