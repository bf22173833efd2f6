package main

// These tests cover the pure parts only: nothing here starts a server.

import (
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestAdvantage(t *testing.T) {
	if got := advantage(3000, 1000, true); got != 3 {
		t.Errorf("rate: %v, want 3", got)
	}
	if got := advantage(10, 40, false); got != 4 {
		t.Errorf("time: %v, want 4", got)
	}
	if got := advantage(0, 40, false); got != 0 {
		t.Errorf("missing value: %v, want 0", got)
	}
}

func TestThousands(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 999.6: "1,000", 2514: "2,514", 31003.2: "31,003", 1234567: "1,234,567"} {
		if got := thousands(in); got != want {
			t.Errorf("thousands(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestCountUntilSplitMatches(t *testing.T) {
	pattern := []byte(`"name":"fan0-`)
	var stream strings.Builder
	for i := range 100 {
		stream.WriteString(`{"type":"ADDED","object":{"metadata":{"name":"fan0-` + string(rune('a'+i%26)) + `"}}}` + "\n")
		stream.WriteString(`{"type":"ADDED","object":{"metadata":{"name":"other"}}}` + "\n")
	}
	// One byte at a time splits every match across reads.
	n, err := countUntil(iotest.OneByteReader(strings.NewReader(stream.String())), pattern, 1000)
	if err != nil || n != 100 {
		t.Fatalf("one byte at a time: %d, %v; want 100", n, err)
	}
	n, err = countUntil(strings.NewReader(stream.String()), pattern, 40)
	if err != nil || n < 40 {
		t.Fatalf("stop at 40: %d, %v", n, err)
	}
	n, err = countUntil(iotest.ErrReader(io.ErrUnexpectedEOF), pattern, 1)
	if err == nil || n != 0 {
		t.Fatalf("error: %d, %v", n, err)
	}
}

func TestParseStatusKB(t *testing.T) {
	status := []byte("Name:\tplayground\nVmHWM:\t   61234 kB\nVmRSS:\t   58000 kB\n")
	if got := parseStatusKB(status, "VmRSS:"); got != 58000*1024 {
		t.Errorf("VmRSS = %v", got)
	}
	if got := parseStatusKB(status, "VmHWM:"); got != 61234*1024 {
		t.Errorf("VmHWM = %v", got)
	}
	if got := parseStatusKB(status, "VmSwap:"); got != 0 {
		t.Errorf("missing key = %v", got)
	}
}

func TestCompareMarksMissedGoals(t *testing.T) {
	cfg := &config{objects: 2000, objectBytes: 2048, conns: 8, writes: 100, watchers: 200}
	vals := map[string]map[string]float64{
		rowCreate:     {"kp": 2514, "kube": 1365},
		rowGet:        {"kp": 31003, "kube": 2992},
		rowListJSONGz: {"kp": 20.9, "kube": 23.9},
		rowListJSON:   {"kp": 8.2, "kube": 26.0},
		rowListPBGz:   {"kp": 20.0, "kube": 21.6},
		rowListPB:     {"kp": 5, "kube": 10},
		rowFanout:     {"kp": 154, "kube": 329},
		rowRSS:        {"kp": 58, "kube": 397},
	}
	rows := compare(rowDefs(cfg), func(row, col string) float64 { return vals[row][col] }, "kp", "kube", nil)
	var missed []bool
	for _, r := range rows {
		missed = append(missed, r.missed)
	}
	// create 1.84×, GET 10.4×, lists 1.14×, 3.17×, 1.08×, 2×, fan-out 2.14×, memory 6.84×
	want := []bool{true, false, true, false, true, false, false, false}
	if !slices.Equal(missed, want) {
		t.Errorf("missed %v, want %v", missed, want)
	}
	if rows[0].ratio != "1.84×" || rows[0].goal != "≥2× MISS" || rows[7].goal != "≥5× ok" {
		t.Errorf("rows: %+v / %+v", rows[0], rows[7])
	}
	if rows[5].goal != "≥2× ok" {
		t.Errorf("exactly 2× meets the goal: %+v", rows[5])
	}
	table := formatTable([]string{"row", "kp", "kube", "ratio", "goal"}, [][]string{
		{rows[0].label, rows[0].kubeplay, rows[0].kube, rows[0].ratio, rows[0].goal},
		{rows[7].label, rows[7].kubeplay, rows[7].kube, rows[7].ratio, rows[7].goal},
	})
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 4 || !strings.Contains(lines[2], "2,514") || !strings.Contains(lines[3], "6.84×") {
		t.Errorf("table:\n%s", table)
	}
}
