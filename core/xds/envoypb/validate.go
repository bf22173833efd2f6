package envoypb

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"kubeplay/core/field"
)

// Rules are one field's protoc-gen-validate rules (Envoy's validate.rules
// annotations), as tools/envoytablegen flattens them: the rule names of
// validate.proto over the message rules and the rules of the field's kind.
// Bounds, constants and lists are text, as protoc-gen-validate's messages
// print them; a duration's is Go's time.Duration text.
type Rules struct {
	Kind        string `json:"kind"` // validate.proto's name of the kind's rules: string, uint32, duration, any…
	Required    bool   `json:"required"`
	Skip        bool   `json:"skip"`
	IgnoreEmpty bool   `json:"ignore_empty"`
	DefinedOnly bool   `json:"defined_only"`
	Unique      bool   `json:"unique"`

	Const, Lt, Lte, Gt, Gte *string
	In                      []string `json:"in"`
	NotIn                   []string `json:"not_in"`

	Len      *uint64 `json:"len"`
	MinLen   *uint64 `json:"min_len"`
	MaxLen   *uint64 `json:"max_len"`
	LenBytes *uint64 `json:"len_bytes"`
	MinBytes *uint64 `json:"min_bytes"`
	MaxBytes *uint64 `json:"max_bytes"`

	Pattern, Prefix, Suffix, Contains *string
	NotContains                       *string `json:"not_contains"`

	MinItems *uint64 `json:"min_items"`
	MaxItems *uint64 `json:"max_items"`
	MinPairs *uint64 `json:"min_pairs"`
	MaxPairs *uint64 `json:"max_pairs"`

	Items, Keys, Values *Rules

	compile sync.Once
	regexp  *regexp.Regexp
}

// newRules reads a field's rules from the table.
func newRules(raw any) *Rules {
	data, err := json.Marshal(raw)
	r := &Rules{}
	if err == nil {
		err = json.Unmarshal(data, r)
	}
	if err != nil {
		panic("envoypb: table.json: rules: " + err.Error())
	}
	return r
}

// Validate checks wire, a message of type m as Encode writes it, against
// the protoc-gen-validate rules Envoy declares, as go-control-plane's
// ValidateAll does (and Envoy before it accepts a resource), and returns
// every violation at its field under p (by JSON name), with
// protoc-gen-validate's reason as the detail. Unlike ValidateAll it also
// checks the messages Any fields carry, as Envoy does when it loads them.
//
// Most resources break no rule, so the first walk names no field; only a
// resource that breaks one is walked again, with paths, to name where.
func (m *Message) Validate(wire []byte, p *field.Path) field.ErrorList {
	v := validator{}
	v.message(m, wire, nil)
	if len(v.errs) == 0 {
		return nil
	}
	v = validator{named: true}
	v.message(m, wire, p)
	return v.errs
}

type validator struct {
	errs  field.ErrorList
	depth int
	named bool // the walk builds the paths of the fields it visits
}

// child is the path to a field of the message at p, when the walk is named.
func (v *validator) child(p *field.Path, name string) *field.Path {
	if !v.named {
		return nil
	}
	return p.Child(name)
}

// index is the path to item i of the list at p, when the walk is named.
func (v *validator) index(p *field.Path, i int) *field.Path {
	if !v.named {
		return nil
	}
	return p.Index(i)
}

// key is the path to the value at key k (of field f) of the map at p, when
// the walk is named.
func (v *validator) key(p *field.Path, f *Field, k wireValue) *field.Path {
	if !v.named {
		return nil
	}
	return p.Key(fmt.Sprint(display(f, k)))
}

// wireValue is one value of a field in the wire form: a varint or fixed
// number, or length-delimited bytes.
type wireValue struct {
	u uint64
	b []byte
}

func (v *validator) message(m *Message, wire []byte, p *field.Path) {
	if m.Unchecked {
		return
	}
	if v.depth++; v.depth > maxDepth {
		return
	}
	defer func() { v.depth-- }()
	if m.Name == "google.protobuf.Any" {
		url, value := anyParts(wire)
		if inner := ForTypeURL(url); inner != nil {
			v.message(inner, value, p)
		}
		return
	}
	if strings.HasPrefix(m.Name, "google.protobuf.") {
		return // the well-known types declare no rules
	}
	values := split(m, wire)
	var set map[int]bool // the required oneofs set
	for _, f := range m.Fields {
		if f.Rules == nil && f.Message == nil && m.RequiredOneofs == nil {
			continue // nothing to check
		}
		vs := values[f.Number]
		if f.Oneof > 0 {
			if len(vs) == 0 {
				continue // a oneof's rules apply to the member set
			}
			if m.RequiredOneofs != nil {
				if set == nil {
					set = map[int]bool{}
				}
				set[f.Oneof] = true
			}
		}
		if f.Rules == nil && len(vs) == 0 {
			continue // an absent message without rules
		}
		v.field(f, vs, v.child(p, f.JSONName))
	}
	oneofs := make([]int, 0, len(m.RequiredOneofs))
	for o := range m.RequiredOneofs {
		oneofs = append(oneofs, o)
	}
	sort.Ints(oneofs)
	for _, o := range oneofs {
		if set[o] {
			continue
		}
		var members []string
		for _, f := range m.Fields {
			if f.Oneof == o {
				members = append(members, f.JSONName)
			}
		}
		name := m.RequiredOneofs[o]
		v.errs = append(v.errs, field.Required(p.Child(jsonName(name)),
			fmt.Sprintf("value is required: one of %s must be set (oneof %s of %s)", strings.Join(members, ", "), name, m.Name)))
	}
}

// split reads wire's fields of m by number, a packed list's items each a
// value of its own. Encode wrote wire, so it is well formed.
func split(m *Message, wire []byte) map[protowire.Number][]wireValue {
	out := map[protowire.Number][]wireValue{}
	for len(wire) > 0 {
		num, typ, n := protowire.ConsumeTag(wire)
		if n < 0 {
			return out
		}
		wire = wire[n:]
		if f := m.byNumber[num]; typ == protowire.BytesType && f != nil && f.Repeated && packable(f.Kind) {
			packed, n := protowire.ConsumeBytes(wire)
			if n < 0 {
				return out
			}
			wire = wire[n:]
			for len(packed) > 0 {
				w, n := consume(wireType(f.Kind), packed)
				if n < 0 {
					break
				}
				packed = packed[n:]
				out[num] = append(out[num], w)
			}
			continue
		}
		w, n := consume(typ, wire)
		if n < 0 {
			return out
		}
		wire = wire[n:]
		out[num] = append(out[num], w)
	}
	return out
}

func consume(typ protowire.Type, b []byte) (wireValue, int) {
	switch typ {
	case protowire.VarintType:
		u, n := protowire.ConsumeVarint(b)
		return wireValue{u: u}, n
	case protowire.Fixed32Type:
		u, n := protowire.ConsumeFixed32(b)
		return wireValue{u: uint64(u)}, n
	case protowire.Fixed64Type:
		u, n := protowire.ConsumeFixed64(b)
		return wireValue{u: u}, n
	case protowire.BytesType:
		s, n := protowire.ConsumeBytes(b)
		return wireValue{b: s}, n
	}
	return wireValue{}, -1
}

// anyParts is an Any's type URL and value.
func anyParts(wire []byte) (url string, value []byte) {
	for len(wire) > 0 {
		num, typ, n := protowire.ConsumeTag(wire)
		if n < 0 {
			break
		}
		wire = wire[n:]
		w, n := consume(typ, wire)
		if n < 0 {
			break
		}
		wire = wire[n:]
		switch num {
		case 1:
			url = string(w.b)
		case 2:
			value = w.b
		}
	}
	return url, value
}

// jsonName is a proto name as proto JSON writes it (lowerCamelCase).
func jsonName(name string) string {
	var b strings.Builder
	up := false
	for _, c := range name {
		switch {
		case c == '_':
			up = true
		case up && 'a' <= c && c <= 'z':
			b.WriteRune(c - 'a' + 'A')
			up = false
		default:
			b.WriteRune(c)
			up = false
		}
	}
	return b.String()
}

func (v *validator) fail(p *field.Path, value any, reason string) {
	v.errs = append(v.errs, field.Invalid(p, value, reason))
}

// field checks one field's values: a map's entries, a list's items, or a
// single value (a scalar's zero value when it is not written, as
// protoc-gen-validate reads an unset scalar).
func (v *validator) field(f *Field, vs []wireValue, p *field.Path) {
	r := f.Rules
	switch {
	case f.Map:
		key, val := f.Message.Fields[0], f.Message.Fields[1]
		if key.Number != 1 {
			key, val = val, key
		}
		if r != nil && !(r.IgnoreEmpty && len(vs) == 0) {
			v.size(len(vs), len(vs), nil, r.MinPairs, r.MaxPairs, "pair", countWords, p)
		}
		for _, entry := range vs {
			parts := split(f.Message, entry.b)
			k, value := last(parts[key.Number]), last(parts[val.Number])
			kp := v.key(p, key, k)
			if r != nil && r.Keys != nil {
				v.value(key, r.Keys, k, kp)
			}
			var vr *Rules
			if r != nil {
				vr = r.Values
			}
			if val.Message != nil || vr != nil {
				v.value(val, vr, value, kp)
			}
		}
	case f.Repeated:
		var ir *Rules
		if r != nil {
			ir = r.Items
			if !(r.IgnoreEmpty && len(vs) == 0) {
				v.size(len(vs), len(vs), nil, r.MinItems, r.MaxItems, "item", countWords, p)
			}
		}
		seen := map[wireKey]bool{}
		for i, it := range vs {
			if r != nil && r.Unique {
				k := wireKey{it.u, string(it.b)}
				if seen[k] {
					v.fail(p.Index(i), display(f, it), "repeated value must contain unique items")
				}
				seen[k] = true
			}
			if f.Message != nil || ir != nil {
				v.value(f, ir, it, v.index(p, i))
			}
		}
	case f.Message != nil:
		if len(vs) == 0 {
			if r != nil && r.Required {
				reason := "value is required"
				if wrapper(f.Message.Name) && r.Kind != "" {
					reason = "value is required and must not be nil." // protoc-gen-validate's wrapper template
				}
				v.errs = append(v.errs, field.Required(p, reason))
			}
			return
		}
		v.value(f, r, vs[len(vs)-1], p)
	case r != nil:
		if f.Presence && len(vs) == 0 {
			return // an optional scalar's rules apply once it is set
		}
		v.value(f, r, last(vs), p)
	}
}

type wireKey struct {
	u uint64
	b string
}

func last(vs []wireValue) wireValue {
	if len(vs) == 0 {
		return wireValue{}
	}
	return vs[len(vs)-1]
}

// wrapper says whether a message is one of protobuf's wrappers of a scalar.
func wrapper(name string) bool {
	switch name {
	case "google.protobuf.DoubleValue", "google.protobuf.FloatValue", "google.protobuf.Int64Value",
		"google.protobuf.UInt64Value", "google.protobuf.Int32Value", "google.protobuf.UInt32Value",
		"google.protobuf.BoolValue", "google.protobuf.StringValue", "google.protobuf.BytesValue":
		return true
	}
	return false
}

// value checks one value of f (an item of a list or a map's key or value)
// against r, which may be nil, and the message it is.
func (v *validator) value(f *Field, r *Rules, w wireValue, p *field.Path) {
	if f.Message == nil {
		if r != nil {
			v.scalar(f, r, w, p)
		}
		return
	}
	if r != nil {
		switch name := f.Message.Name; {
		case wrapper(name):
			inner := f.Message.Fields[0]
			v.scalar(inner, r, last(split(f.Message, w.b)[inner.Number]), p)
			return
		case name == "google.protobuf.Duration":
			v.duration(r, w.b, p)
			return
		case name == "google.protobuf.Any":
			url, _ := anyParts(w.b)
			v.in(r, url, url, "type URL must", p)
		case r.Kind == "any":
			return // any rules on another message check its presence alone, as protoc-gen-validate's template does
		}
		if r.Skip {
			return
		}
	}
	v.message(f.Message, w.b, p)
}

// number is a value or a bound of a numeric rule.
type number struct {
	kind byte // 'i' signed, 'u' unsigned, 'f' floating point
	i    int64
	u    uint64
	f    float64
}

func (a number) less(b number) bool {
	switch a.kind {
	case 'i':
		return a.i < b.i
	case 'u':
		return a.u < b.u
	}
	return a.f < b.f
}

func (a number) lessEq(b number) bool {
	switch a.kind {
	case 'i':
		return a.i <= b.i
	case 'u':
		return a.u <= b.u
	}
	return a.f <= b.f
}

// scalarNumber is a wire value of kind k as a number, and its text.
func scalarNumber(k Kind, w wireValue) (number, string) {
	switch k {
	case Int32Kind, Sfixed32Kind:
		n := int64(int32(w.u))
		return number{kind: 'i', i: n}, strconv.FormatInt(n, 10)
	case Int64Kind, Sfixed64Kind:
		return number{kind: 'i', i: int64(w.u)}, strconv.FormatInt(int64(w.u), 10)
	case Sint32Kind, Sint64Kind:
		n := protowire.DecodeZigZag(w.u)
		return number{kind: 'i', i: n}, strconv.FormatInt(n, 10)
	case Uint32Kind, Fixed32Kind, Uint64Kind, Fixed64Kind:
		return number{kind: 'u', u: w.u}, strconv.FormatUint(w.u, 10)
	case FloatKind:
		f := float64(math.Float32frombits(uint32(w.u)))
		return number{kind: 'f', f: f}, strconv.FormatFloat(f, 'g', -1, 32)
	}
	f := math.Float64frombits(w.u)
	return number{kind: 'f', f: f}, strconv.FormatFloat(f, 'g', -1, 64)
}

// parseBound reads a rule's bound for a value of kind k.
func parseBound(k Kind, s string) number {
	switch k {
	case Int32Kind, Sfixed32Kind, Int64Kind, Sfixed64Kind, Sint32Kind, Sint64Kind:
		n, _ := strconv.ParseInt(s, 10, 64)
		return number{kind: 'i', i: n}
	case Uint32Kind, Fixed32Kind, Uint64Kind, Fixed64Kind:
		n, _ := strconv.ParseUint(s, 10, 64)
		return number{kind: 'u', u: n}
	case FloatKind:
		f, _ := strconv.ParseFloat(s, 32)
		return number{kind: 'f', f: f}
	}
	f, _ := strconv.ParseFloat(s, 64)
	return number{kind: 'f', f: f}
}

// display is a wire value of f as an error shows it.
func display(f *Field, w wireValue) any {
	switch f.Kind {
	case StringKind:
		return string(w.b)
	case BytesKind:
		return w.b
	case BoolKind:
		return w.u != 0
	case EnumKind:
		return enumName(f.Enum, int32(w.u))
	case MessageKind, GroupKind:
		return nil
	}
	_, text := scalarNumber(f.Kind, w)
	return text
}

func enumName(e *Enum, n int32) string {
	for name, v := range e.Values {
		if v == n {
			return name
		}
	}
	return strconv.Itoa(int(n))
}

// scalar checks a scalar value against r.
func (v *validator) scalar(f *Field, r *Rules, w wireValue, p *field.Path) {
	switch f.Kind {
	case StringKind:
		v.text(r, string(w.b), p)
	case BytesKind:
		v.size(w.b, len(w.b), r.Len, r.MinLen, r.MaxLen, "bytes", lengthWords, p)
	case BoolKind:
		if r.Const != nil && strconv.FormatBool(w.u != 0) != *r.Const {
			v.fail(p, w.u != 0, "value must equal "+*r.Const)
		}
	case EnumKind:
		n := int32(w.u)
		name := enumName(f.Enum, n)
		if r.Const != nil && strconv.Itoa(int(n)) != *r.Const {
			c, _ := strconv.Atoi(*r.Const)
			v.fail(p, name, "value must equal "+enumName(f.Enum, int32(c)))
		}
		names := func(list []string) []string {
			out := make([]string, len(list))
			for i, s := range list {
				c, _ := strconv.Atoi(s)
				out[i] = enumName(f.Enum, int32(c))
			}
			return out
		}
		text := strconv.Itoa(int(n))
		if len(r.In) > 0 && !contains(r.In, text) {
			v.fail(p, name, fmt.Sprint("value must be in list ", names(r.In)))
		} else if len(r.NotIn) > 0 && contains(r.NotIn, text) {
			v.fail(p, name, fmt.Sprint("value must not be in list ", names(r.NotIn)))
		}
		if r.DefinedOnly && enumName(f.Enum, n) == text {
			v.fail(p, name, "value must be one of the defined enum values")
		}
	default:
		n, text := scalarNumber(f.Kind, w)
		if r.Const != nil && parseBound(f.Kind, *r.Const) != n {
			v.fail(p, text, "value must equal "+*r.Const)
		}
		v.bounds(r, n, text, func(s string) number { return parseBound(f.Kind, s) }, p)
		v.in(r, text, text, "value must", p)
	}
}

// duration checks a Duration's value.
func (v *validator) duration(r *Rules, wire []byte, p *field.Path) {
	var secs, nanos int64
	for _, f := range []struct {
		num protowire.Number
		to  *int64
	}{{1, &secs}, {2, &nanos}} {
		vs := split(Lookup("google.protobuf.Duration"), wire)[f.num]
		if len(vs) > 0 {
			*f.to = int64(vs[len(vs)-1].u)
		}
	}
	nanos = int64(int32(nanos))
	d := time.Duration(nanos)
	switch {
	case secs > math.MaxInt64/int64(time.Second)-1:
		d = math.MaxInt64
	case secs < math.MinInt64/int64(time.Second)+1:
		d = math.MinInt64
	default:
		d += time.Duration(secs) * time.Second
	}
	parse := func(s string) number {
		b, _ := time.ParseDuration(s)
		return number{kind: 'i', i: int64(b)}
	}
	text := d.String()
	if r.Const != nil && parse(*r.Const).i != int64(d) {
		v.fail(p, text, "value must equal "+*r.Const)
	}
	v.bounds(r, number{kind: 'i', i: int64(d)}, text, parse, p)
	var in, notIn []string
	for _, s := range r.In {
		in = append(in, strconv.FormatInt(parse(s).i, 10))
	}
	for _, s := range r.NotIn {
		notIn = append(notIn, strconv.FormatInt(parse(s).i, 10))
	}
	key := strconv.FormatInt(int64(d), 10)
	if len(in) > 0 && !contains(in, key) {
		v.fail(p, text, fmt.Sprint("value must be in list ", r.In))
	} else if len(notIn) > 0 && contains(notIn, key) {
		v.fail(p, text, fmt.Sprint("value must not be in list ", r.NotIn))
	}
}

// in checks r's in and not_in lists; what says what must be in them.
func (v *validator) in(r *Rules, key string, shown any, what string, p *field.Path) {
	if len(r.In) > 0 && !contains(r.In, key) {
		v.fail(p, shown, fmt.Sprint(what+" be in list ", r.In))
	} else if len(r.NotIn) > 0 && contains(r.NotIn, key) {
		v.fail(p, shown, fmt.Sprint(what+" not be in list ", r.NotIn))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// bounds checks a number against r's lt, lte, gt and gte, with
// protoc-gen-validate's message for each combination (its ltgt template):
// bounds that cross describe a range the value must stay outside of.
func (v *validator) bounds(r *Rules, n number, text string, parse func(string) number, p *field.Path) {
	var fail bool
	var reason string
	switch {
	case r.Lt != nil && r.Gt != nil:
		lt, gt := parse(*r.Lt), parse(*r.Gt)
		if gt.less(lt) {
			fail, reason = n.lessEq(gt) || lt.lessEq(n), "value must be inside range ("+*r.Gt+", "+*r.Lt+")"
		} else {
			fail, reason = lt.lessEq(n) && n.lessEq(gt), "value must be outside range ["+*r.Lt+", "+*r.Gt+"]"
		}
	case r.Lt != nil && r.Gte != nil:
		lt, gte := parse(*r.Lt), parse(*r.Gte)
		if gte.less(lt) {
			fail, reason = n.less(gte) || lt.lessEq(n), "value must be inside range ["+*r.Gte+", "+*r.Lt+")"
		} else {
			fail, reason = lt.lessEq(n) && n.less(gte), "value must be outside range ["+*r.Lt+", "+*r.Gte+")"
		}
	case r.Lt != nil:
		fail, reason = parse(*r.Lt).lessEq(n), "value must be less than "+*r.Lt
	case r.Lte != nil && r.Gt != nil:
		lte, gt := parse(*r.Lte), parse(*r.Gt)
		if gt.less(lte) {
			fail, reason = n.lessEq(gt) || lte.less(n), "value must be inside range ("+*r.Gt+", "+*r.Lte+"]"
		} else {
			fail, reason = lte.less(n) && n.lessEq(gt), "value must be outside range ("+*r.Lte+", "+*r.Gt+"]"
		}
	case r.Lte != nil && r.Gte != nil:
		lte, gte := parse(*r.Lte), parse(*r.Gte)
		if gte.less(lte) {
			fail, reason = n.less(gte) || lte.less(n), "value must be inside range ["+*r.Gte+", "+*r.Lte+"]"
		} else {
			fail, reason = lte.less(n) && n.less(gte), "value must be outside range ("+*r.Lte+", "+*r.Gte+")"
		}
	case r.Lte != nil:
		fail, reason = parse(*r.Lte).less(n), "value must be less than or equal to "+*r.Lte
	case r.Gt != nil:
		fail, reason = n.lessEq(parse(*r.Gt)), "value must be greater than "+*r.Gt
	case r.Gte != nil:
		fail, reason = n.less(parse(*r.Gte)), "value must be greater than or equal to "+*r.Gte
	}
	if fail {
		v.fail(p, text, reason)
	}
}

// text checks a string, in the order of protoc-gen-validate's string
// template.
func (v *validator) text(r *Rules, s string, p *field.Path) {
	if r.IgnoreEmpty && s == "" {
		return
	}
	if r.Const != nil && s != *r.Const {
		v.fail(p, s, "value must equal "+*r.Const)
	}
	v.in(r, s, s, "value must", p)
	v.size(s, utf8.RuneCountInString(s), r.Len, r.MinLen, r.MaxLen, "runes", lengthWords, p)
	v.size(s, len(s), r.LenBytes, r.MinBytes, r.MaxBytes, "bytes", lengthWords, p)
	for _, c := range []struct {
		rule *string
		ok   func(string, string) bool
		says string
	}{
		{r.Prefix, strings.HasPrefix, "value does not have prefix %q"},
		{r.Suffix, strings.HasSuffix, "value does not have suffix %q"},
		{r.Contains, strings.Contains, "value does not contain substring %q"},
		{r.NotContains, func(s, sub string) bool { return !strings.Contains(s, sub) }, "value contains substring %q"},
	} {
		if c.rule != nil && !c.ok(s, *c.rule) {
			v.fail(p, s, fmt.Sprintf(c.says, *c.rule))
		}
	}
	if r.Pattern != nil {
		r.compile.Do(func() { r.regexp = regexp.MustCompile(*r.Pattern) })
		if !r.regexp.MatchString(s) {
			v.fail(p, s, fmt.Sprintf("value does not match regex pattern %q", *r.Pattern))
		}
	}
}

// The words of protoc-gen-validate's size messages: a string's or bytes'
// length (in runes or bytes), a list's items, a map's pairs. Each is the
// exact form, the range, the lower and the upper bound; %[1]d and %[2]d are
// the bounds, %[3]s the unit.
var (
	lengthWords = [4]string{"value length must be %[1]d %[3]s", "value length must be between %[1]d and %[2]d %[3]s, inclusive",
		"value length must be at least %[1]d %[3]s", "value length must be at most %[1]d %[3]s"}
	countWords = [4]string{"value must contain exactly %[1]d %[3]s(s)", "value must contain between %[1]d and %[2]d %[3]ss, inclusive",
		"value must contain at least %[1]d %[3]s(s)", "value must contain no more than %[1]d %[3]s(s)"}
)

// size checks a size n (of shown) against an exact size or bounds (the
// same bounds are an exact size), in protoc-gen-validate's words.
func (v *validator) size(shown any, n int, exact, lo, hi *uint64, unit string, words [4]string, p *field.Path) {
	if lo != nil && hi != nil && *lo == *hi {
		exact = lo
	}
	l := uint64(n)
	switch {
	case exact != nil:
		if l != *exact {
			v.fail(p, shown, fmt.Sprintf(words[0], *exact, 0, unit))
		}
	case lo != nil && hi != nil:
		if l < *lo || l > *hi {
			v.fail(p, shown, fmt.Sprintf(words[1], *lo, *hi, unit))
		}
	case lo != nil:
		if l < *lo {
			v.fail(p, shown, fmt.Sprintf(words[2], *lo, 0, unit))
		}
	case hi != nil:
		if l > *hi {
			v.fail(p, shown, fmt.Sprintf(words[3], *hi, 0, unit))
		}
	}
}
