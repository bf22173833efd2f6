package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"kubeplay/core/storage"
)

// exportOf is the export of a store holding n objects.
func exportOf(t testing.TB, n int) []byte {
	t.Helper()
	st, err := storage.Open(storage.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := range n {
		v := fmt.Appendf(nil, `{"metadata":{"name":"o%d"}}`, i)
		if _, _, err := st.Mutate(fmt.Sprintf("configmaps/default/o%d", i), func([]byte, int64) (storage.Change, error) {
			return storage.Change{Op: storage.Put, Value: v}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	h, snap, err := snapshot(st, Cluster{Mode: "simulated", Nodes: 3}, time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC), true)
	if err != nil {
		t.Fatal(err)
	}
	return append(headerLine(h), snap...)
}

// TestLEARN_6_ExportReadsBack: Read takes what Handler writes, header and
// snapshot, and names what it holds.
func TestLEARN_6_ExportReadsBack(t *testing.T) {
	file := exportOf(t, 5)
	h, snap, err := Read(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	want := Header{Kind: kind, Version: 1, Server: h.Server, ExportedAt: time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC), Revision: 5, Objects: 5, Bytes: h.Bytes,
		Cluster: Cluster{Mode: "simulated", Nodes: 3}}
	if h != want || h.Bytes == 0 || !strings.HasSuffix(h.Server, "+kubeplay") {
		t.Errorf("header %+v, want %+v", h, want)
	}
	if !bytes.HasSuffix(file, snap) || bytes.IndexByte(file, '\n') != len(file)-len(snap)-1 {
		t.Error("the snapshot is not the file after its header line")
	}
}

// TestLEARN_6_BadExports: every damaged or foreign file is refused with
// what is wrong with it, and nothing else is read.
func TestLEARN_6_BadExports(t *testing.T) {
	file := exportOf(t, 20)
	nl := bytes.IndexByte(file, '\n')
	head, snap := file[:nl], file[nl+1:]
	var h Header
	if err := json.Unmarshal(head, &h); err != nil {
		t.Fatal(err)
	}
	withHeader := func(edit func(*Header)) []byte {
		c := h
		edit(&c)
		b, _ := json.Marshal(c)
		return append(append(b, '\n'), snap...)
	}
	flip := func(at int) []byte {
		b := bytes.Clone(file)
		b[at] ^= 0x40
		return b
	}
	for name, tc := range map[string]struct {
		file []byte
		max  int64
		want string
	}{
		"empty":              {nil, 1 << 20, "no header line"},
		"not one":            {[]byte("apiVersion: v1\nkind: ConfigMap\n"), 1 << 20, "not a kubeplay export"},
		"a long first line":  {bytes.Repeat([]byte("x"), MaxHeaderBytes+10), 1 << 20, "first line is over"},
		"another kind":       {withHeader(func(h *Header) { h.Kind = "List" }), 1 << 20, `not a header of kind "KubeplayExport"`},
		"a newer format":     {withHeader(func(h *Header) { h.Version = 2 }), 1 << 20, "format version 2"},
		"an unknown cluster": {withHeader(func(h *Header) { h.Cluster.Mode = "kind" }), 1 << 20, `cluster.mode is "kind"`},
		"a header that lies": {withHeader(func(h *Header) { h.Objects = 19 }), 1 << 20, "its snapshot holds revision 20 (history from 0) and 20 objects"},
		"no snapshot":        {append(bytes.Clone(head), '\n'), 1 << 20, "the snapshot is empty"},
		"a flipped byte":     {flip(nl + 1 + len(snap)/2), 1 << 20, "the snapshot is damaged"},
		"cut short":          {file[:nl+1+len(snap)/2], 1 << 20, "the snapshot is"},
		"too large":          {file, int64(len(file) - 1), fmt.Sprintf("over %d bytes", len(file)-1)},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := Read(bytes.NewReader(tc.file), tc.max)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// FuzzRead: no input panics Read, and what it accepts reads back the same.
func FuzzRead(f *testing.F) {
	file := exportOf(f, 3)
	f.Add(file)
	f.Add(file[:len(file)/2])
	f.Add([]byte(`{"kind":"KubeplayExport","version":1,"cluster":{"mode":"api-only"}}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, snap, err := Read(bytes.NewReader(b), 1<<20)
		if err != nil {
			return
		}
		info, err := storage.CheckSnapshot(snap)
		if err != nil || info.Revision != h.Revision || info.Objects != h.Objects {
			t.Fatalf("accepted %+v, its snapshot %+v %v", h, info, err)
		}
	})
}
