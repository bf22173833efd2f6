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

// TestLEARN_6_NativeImportPost: the native server's own sandbox takes an
// export at POST /debug/kubeplay/import, as the other hosts' do: 409 once a
// client wrote, unless ?replace=true; a damaged file is 400 and changes
// nothing; the import's objects byte for byte, its revision going on;
// with --data, the directory keeps it across a restart.
func TestLEARN_6_NativeImportPost(t *testing.T) {
	const cm = "/api/v1/namespaces/default/configmaps"
	jsonBody := map[string]string{"Content-Type": "application/json"}
	a := startPlayground(t, options{})
	if code, _, body := send(t, a, "POST", cm, "", jsonBody, `{"metadata":{"name":"given"},"data":{"k":"v"}}`); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	_, _, file := send(t, a, "GET", export.Path, "", nil, "")
	_, _, want := send(t, a, "GET", cm+"/given", "", nil, "")
	damaged := []byte(file)
	damaged[len(damaged)-40] ^= 0x40

	for _, data := range []string{"", filepath.Join(t.TempDir(), "data")} {
		b := startPlayground(t, options{data: data})
		if code, _, body := send(t, b, "POST", cm, "", jsonBody, `{"metadata":{"name":"mine"}}`); code != 201 {
			t.Fatalf("create: %d %s", code, body)
		}
		if code, _, body := send(t, b, "POST", export.ImportPath, "", nil, file); code != 409 || !strings.Contains(body, `"reason":"Conflict"`) {
			t.Errorf("data=%q: an import over what a client wrote: %d %s", data, code, body)
		}
		if code, _, body := send(t, b, "POST", export.ImportPath+"?replace=true", "", nil, string(damaged)); code != 400 || !strings.Contains(body, "the snapshot is damaged") {
			t.Errorf("data=%q: a damaged import: %d %s", data, code, body)
		}
		if code, _, _ := send(t, b, "GET", cm+"/mine", "", nil, ""); code != 200 {
			t.Errorf("data=%q: a refused import changed the sandbox: %d", data, code)
		}
		if code, _, body := send(t, b, "POST", export.ImportPath+"?replace=true", "", nil, file); code != 200 || !strings.Contains(body, `"kind":"KubeplayImport"`) {
			t.Fatalf("data=%q: import: %d %s", data, code, body)
		}
		if code, _, got := send(t, b, "GET", cm+"/given", "", nil, ""); code != 200 || got != want {
			t.Errorf("data=%q: imported %d %s, want %s", data, code, got, want)
		}
		if code, _, _ := send(t, b, "GET", cm+"/mine", "", nil, ""); code != 404 {
			t.Errorf("data=%q: what the import replaced is still there: %d", data, code)
		}
		// The revision goes on from the export's.
		if code, _, body := send(t, b, "POST", cm, "", jsonBody, `{"metadata":{"name":"after"}}`); code != 201 {
			t.Errorf("data=%q: a write after the import: %d %s", data, code, body)
		}
		if data == "" {
			continue
		}
		if err := b.shutdown(); err != nil {
			t.Fatal(err)
		}
		c := startPlayground(t, options{data: data})
		if code, _, got := send(t, c, "GET", cm+"/given", "", nil, ""); code != 200 || got != want {
			t.Errorf("after a restart: %d %s", code, got)
		}
		if code, _, body := send(t, c, "POST", export.ImportPath, "", nil, file); code != 409 {
			t.Errorf("an import into a --data sandbox kept from before: %d %s", code, body)
		}
	}
}
