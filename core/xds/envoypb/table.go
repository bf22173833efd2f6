// Package envoypb owns Envoy's message definitions as kubeplay uses them: a
// table of every message and enum of the Envoy API files it knows
// (table.json, generated from go-control-plane's descriptors by
// tools/envoytablegen), and Encode, which turns a message written in proto JSON
// into the protobuf wire format, checking it on the way as protojson does
// (unknown fields, wrong types, enum names, oneofs, the well-known types'
// forms, Any's @type) and naming the field of every error. It links none of
// go-control-plane's generated code and no protobuf reflection, so the xDS
// WebAssembly module stays small; tests compare it with protojson over
// go-control-plane's types.
package envoypb

import (
	_ "embed"
	"encoding/json"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
)

//go:generate go run ../../../tools/envoytablegen -o table.json

//go:embed table.json
var tableBytes []byte

// Kind is a field's protobuf type, numbered as protoreflect.Kind.
type Kind int

// The kinds.
const (
	DoubleKind   Kind = 1
	FloatKind    Kind = 2
	Int64Kind    Kind = 3
	Uint64Kind   Kind = 4
	Int32Kind    Kind = 5
	Fixed64Kind  Kind = 6
	Fixed32Kind  Kind = 7
	BoolKind     Kind = 8
	StringKind   Kind = 9
	GroupKind    Kind = 10
	MessageKind  Kind = 11
	BytesKind    Kind = 12
	Uint32Kind   Kind = 13
	EnumKind     Kind = 14
	Sfixed32Kind Kind = 15
	Sfixed64Kind Kind = 16
	Sint32Kind   Kind = 17
	Sint64Kind   Kind = 18
)

// Message is one message type.
type Message struct {
	Name   string // full name, e.g. envoy.config.cluster.v3.Cluster
	Fields []*Field
	// Unchecked: protoc-gen-validate checks nothing in it (disabled or
	// ignored); RequiredOneofs: the oneofs one of whose fields must be set,
	// by 1 + index (Field.Oneof), with their names.
	Unchecked      bool
	RequiredOneofs map[int]string
	byName         map[string]*Field // by name and by JSON name
	byNumber       map[protowire.Number]*Field
}

// Field is one field of a message.
type Field struct {
	Number   protowire.Number
	Name     string // as declared: connect_timeout
	JSONName string // as proto JSON writes it: connectTimeout
	Kind     Kind
	Message  *Message // for message fields and map entries
	Enum     *Enum    // for enum fields
	Repeated bool
	Map      bool
	Presence bool   // a zero value is still written (oneof members, optional, messages)
	Oneof    int    // 1 + the index of its oneof; 0 when in none
	Rules    *Rules // its protoc-gen-validate rules (validate.go), or nil
}

// Enum is one enum type.
type Enum struct {
	Name   string
	Values map[string]int32
}

// Field returns the field named name (as declared or in JSON), or nil.
func (m *Message) Field(name string) *Field { return m.byName[name] }

// TypeURL is the type URL of messages of this type.
func (m *Message) TypeURL() string { return TypePrefix + m.Name }

// TypePrefix is how the type URLs of Envoy's resources begin.
const TypePrefix = "type.googleapis.com/"

var (
	loadOnce sync.Once
	messages map[string]*Message
)

// Lookup returns the message type with this full name, or nil.
func Lookup(name string) *Message {
	loadOnce.Do(load)
	return messages[name]
}

// ForTypeURL returns the message type a type URL names (what follows its
// last slash, as protobuf's resolvers read it), or nil.
func ForTypeURL(url string) *Message {
	return Lookup(url[strings.LastIndexByte(url, '/')+1:])
}

// tableJSON is table.json's shape (tools/envoytablegen's table).
type tableJSON struct {
	Messages []struct {
		Name     string  `json:"n"`
		Fields   [][]any `json:"f"`
		Disabled bool    `json:"d"`
		Required [][]any `json:"r"`
	} `json:"m"`
	Enums []struct {
		Name   string           `json:"n"`
		Values map[string]int32 `json:"v"`
	} `json:"e"`
}

func load() {
	var t tableJSON
	if err := json.Unmarshal(tableBytes, &t); err != nil {
		panic("envoypb: table.json: " + err.Error())
	}
	enums := make([]*Enum, len(t.Enums))
	for i, e := range t.Enums {
		enums[i] = &Enum{Name: e.Name, Values: e.Values}
	}
	msgs := make([]*Message, len(t.Messages))
	messages = make(map[string]*Message, len(t.Messages))
	for i, m := range t.Messages {
		msgs[i] = &Message{Name: m.Name, Unchecked: m.Disabled, byName: make(map[string]*Field, 2*len(m.Fields)),
			byNumber: make(map[protowire.Number]*Field, len(m.Fields))}
		for _, o := range m.Required {
			if msgs[i].RequiredOneofs == nil {
				msgs[i].RequiredOneofs = map[int]string{}
			}
			msgs[i].RequiredOneofs[int(o[0].(float64))] = o[1].(string)
		}
		messages[m.Name] = msgs[i]
	}
	for i, m := range t.Messages {
		for _, raw := range m.Fields {
			num := func(i int) int { return int(raw[i].(float64)) }
			f := &Field{Number: protowire.Number(num(0)), Name: raw[1].(string), JSONName: raw[2].(string),
				Kind: Kind(num(3)), Repeated: num(5)&1 != 0, Map: num(5)&2 != 0, Presence: num(5)&4 != 0, Oneof: num(6)}
			switch f.Kind {
			case MessageKind, GroupKind:
				f.Message = msgs[num(4)]
			case EnumKind:
				f.Enum = enums[num(4)]
			}
			if len(raw) > 7 {
				f.Rules = newRules(raw[7])
			}
			msgs[i].Fields = append(msgs[i].Fields, f)
			msgs[i].byName[f.Name] = f
			msgs[i].byName[f.JSONName] = f
			msgs[i].byNumber[f.Number] = f
		}
	}
}
