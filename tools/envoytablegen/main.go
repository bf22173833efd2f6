// Command envoytablegen writes the Envoy message table of
// kubeplay/core/xds/envoypb: every message and enum of the Envoy API files
// imported below (the discovery service's own, the five resource types, and
// the extensions their Any fields most often carry), walked through the
// descriptors go-control-plane registers. The output is data the core
// embeds, so it validates and encodes Envoy resources without linking
// go-control-plane's generated code (tens of megabytes in WebAssembly). Run
// it with `go generate` in core/xds/envoypb.
package main

import (
	"encoding/json"
	"flag"
	"log"
	"os"
	"sort"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	_ "kubeplay/tools/envoytablegen/envoytypes"
)

// table is the generated file's shape (core/xds/envoypb's tableJSON).
type table struct {
	Messages []message `json:"m"`
	Enums    []enum    `json:"e"`
}

type message struct {
	Name     string   `json:"n"`
	Fields   []field  `json:"f"`
	Disabled bool     `json:"d,omitempty"` // protoc-gen-validate checks nothing in it
	Required [][2]any `json:"r,omitempty"` // oneofs that must be set: [1 + index, name]
}

// field is [number, name, jsonName, kind, type, flags, oneof] and, when the
// field has protoc-gen-validate rules, those rules (rules.go): type indexes
// Messages (message kinds) or Enums (enum kinds), -1 otherwise; flags are
// 1 repeated, 2 map, 4 explicit presence; oneof is 1 + the real oneof's
// index, 0 for none.
type field []any

type enum struct {
	Name   string           `json:"n"`
	Values map[string]int32 `json:"v"`
}

func main() {
	out := flag.String("o", "table.json", "file to write")
	flag.Parse()
	var files []protoreflect.FileDescriptor
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		files = append(files, fd)
		return true
	})
	var msgs []protoreflect.MessageDescriptor
	var enums []protoreflect.EnumDescriptor
	for _, fd := range files {
		collect(fd.Messages(), fd.Enums(), &msgs, &enums)
	}
	sort.Slice(msgs, func(i, j int) bool { return msgs[i].FullName() < msgs[j].FullName() })
	sort.Slice(enums, func(i, j int) bool { return enums[i].FullName() < enums[j].FullName() })
	mi := map[protoreflect.FullName]int{}
	for i, m := range msgs {
		mi[m.FullName()] = i
	}
	ei := map[protoreflect.FullName]int{}
	for i, e := range enums {
		ei[e.FullName()] = i
	}
	var t table
	for _, m := range msgs {
		out := message{Name: string(m.FullName()), Fields: []field{}}
		out.Disabled, out.Required = messageRules(m)
		fs := m.Fields()
		for i := 0; i < fs.Len(); i++ {
			f := fs.Get(i)
			typ := -1
			switch f.Kind() {
			case protoreflect.MessageKind, protoreflect.GroupKind:
				typ = index(mi, f.Message().FullName())
			case protoreflect.EnumKind:
				typ = index(ei, f.Enum().FullName())
			}
			flags := 0
			if f.IsList() {
				flags |= 1
			}
			if f.IsMap() {
				flags |= 3
			}
			if f.HasPresence() {
				flags |= 4
			}
			oneof := 0
			if o := f.ContainingOneof(); o != nil && !o.IsSynthetic() {
				oneof = o.Index() + 1
			}
			fl := field{int(f.Number()), string(f.Name()), f.JSONName(), int(f.Kind()), typ, flags, oneof}
			if r := fieldRules(f); r != nil {
				fl = append(fl, r)
			}
			out.Fields = append(out.Fields, fl)
		}
		t.Messages = append(t.Messages, out)
	}
	for _, e := range enums {
		out := enum{Name: string(e.FullName()), Values: map[string]int32{}}
		vs := e.Values()
		for i := 0; i < vs.Len(); i++ {
			out.Values[string(vs.Get(i).Name())] = int32(vs.Get(i).Number())
		}
		t.Enums = append(t.Enums, out)
	}
	data, err := json.Marshal(t)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, append(data, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d messages, %d enums, %d bytes", len(t.Messages), len(t.Enums), len(data))
}

func index(of map[protoreflect.FullName]int, name protoreflect.FullName) int {
	i, ok := of[name]
	if !ok {
		log.Fatalf("%s is referenced but not collected", name)
	}
	return i
}

// collect appends the messages and enums declared in ms and es, nested ones
// included, leaving out descriptor.proto's options (no Envoy resource holds
// them).
func collect(ms protoreflect.MessageDescriptors, es protoreflect.EnumDescriptors, msgs *[]protoreflect.MessageDescriptor, enums *[]protoreflect.EnumDescriptor) {
	for i := 0; i < es.Len(); i++ {
		*enums = append(*enums, es.Get(i))
	}
	for i := 0; i < ms.Len(); i++ {
		m := ms.Get(i)
		if strings.HasPrefix(string(m.FullName()), "google.protobuf.") && strings.HasSuffix(string(m.ParentFile().Path()), "descriptor.proto") {
			continue
		}
		*msgs = append(*msgs, m)
		collect(m.Messages(), m.Enums(), msgs, enums)
	}
}
