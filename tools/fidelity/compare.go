package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A Diff is one place where the two normalized answers differ.
type Diff struct {
	Path     string // where: status, header.Warning, body.metadata.labels, events[2].object…
	Kubeplay string // kubeplay's value there (<absent> when it has none), cut for the report
	Kube     string // kube-apiserver's
	values   [2]any // the two values whole (absentValue when absent)
}

func (d Diff) String() string {
	return fmt.Sprintf("%s: kubeplay %s, kube %s", d.Path, d.Kubeplay, d.Kube)
}

const absent = "<absent>"

// maxDiffs bounds the differences kept per answer.
const maxDiffs = 20

// compare lists where a (kubeplay's normalized answer) and b (kube's) differ.
func compare(a, b any) []Diff {
	var out []Diff
	diffAt("", a, b, &out)
	return out
}

func diffAt(path string, a, b any, out *[]Diff) {
	if len(*out) >= maxDiffs {
		return
	}
	add := func(p string, x, y any) {
		if len(*out) < maxDiffs {
			*out = append(*out, Diff{Path: p, Kubeplay: render(x, 160), Kube: render(y, 160), values: [2]any{x, y}})
		}
	}
	switch av := a.(type) {
	case *object:
		bv, ok := b.(*object)
		if !ok {
			add(path, a, b)
			return
		}
		ordered := !av.unordered && !bv.unordered
		if ordered && sameKeys(av, bv) && !slices.Equal(av.keys, bv.keys) {
			add(join(path, "(key order)"), strings.Join(av.keys, ","), strings.Join(bv.keys, ","))
		}
		for _, k := range av.keys {
			if _, ok := bv.vals[k]; !ok {
				add(join(path, k), av.vals[k], absentValue{})
				continue
			}
			diffAt(join(path, k), av.vals[k], bv.vals[k], out)
		}
		for _, k := range bv.keys {
			if _, ok := av.vals[k]; !ok {
				add(join(path, k), absentValue{}, bv.vals[k])
			}
		}
	case []any:
		bv, ok := b.([]any)
		if !ok {
			add(path, a, b)
			return
		}
		for i := 0; i < len(av) || i < len(bv); i++ {
			p := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case i >= len(av):
				add(p, absentValue{}, bv[i])
			case i >= len(bv):
				add(p, av[i], absentValue{})
			default:
				diffAt(p, av[i], bv[i], out)
			}
		}
	default:
		if render(a, 0) != render(b, 0) {
			add(path, a, b)
		}
	}
}

type absentValue struct{}

func sameKeys(a, b *object) bool {
	if len(a.keys) != len(b.keys) {
		return false
	}
	for _, k := range a.keys {
		if _, ok := b.vals[k]; !ok {
			return false
		}
	}
	return true
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// render writes a document as compact JSON (keys in their order), cut to max
// bytes when max > 0.
func render(v any, max int) string {
	var b strings.Builder
	writeDoc(&b, v, "", "")
	if max > 0 {
		return cut(b.String(), max)
	}
	return b.String()
}

// renderIndented writes a document as indented JSON, for the report.
func renderIndented(v any) string {
	var b strings.Builder
	writeDoc(&b, v, "\n", "  ")
	return b.String()
}

func writeDoc(b *strings.Builder, v any, nl, indent string) {
	switch v := v.(type) {
	case absentValue:
		b.WriteString(absent)
	case *object:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		inner := nl + indent
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(inner)
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			if nl != "" {
				b.WriteByte(' ')
			}
			writeDoc(b, v.vals[k], nl+indent, indent)
		}
		b.WriteString(nl)
		b.WriteByte('}')
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(nl + indent)
			writeDoc(b, x, nl+indent, indent)
		}
		b.WriteString(nl)
		b.WriteByte(']')
	case string:
		b.WriteString(strconv.Quote(v))
	case json.Number:
		b.WriteString(string(v))
	case nil:
		b.WriteString("null")
	default:
		fmt.Fprint(b, v)
	}
}
