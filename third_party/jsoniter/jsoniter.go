// Package jsoniter is the part of github.com/json-iterator/go's API that
// sigs.k8s.io/structured-merge-diff v4 (server-side apply's merge library)
// calls, with the behaviour of json-iterator's ConfigCompatibleWithStandardLibrary:
// a reader of JSON values (numbers as float64), objects read field by field, and
// a writer of JSON (values as encoding/json writes them). structured-merge-diff
// uses it for managedFields' FieldsV1 and the path elements in them.
//
// kubeplay's go.mod replaces the module with this one: json-iterator's
// reflection-driven codecs and github.com/modern-go/reflect2, which nothing
// here uses but which its initialisation links in, are 210 KB of the gzipped
// wasm every visitor downloads.
package jsoniter

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// API is a configuration; the one there is reads and writes as encoding/json.
type API interface{ compatible() }

type standardConfig struct{}

func (standardConfig) compatible() {}

// ConfigCompatibleWithStandardLibrary reads and writes as encoding/json does.
var ConfigCompatibleWithStandardLibrary API = standardConfig{}

// maxDepth is how deeply values may nest, as json-iterator's limit.
const maxDepth = 10000

// Iterator reads JSON values from a buffer. Error is the first error met;
// reading goes on regardless, as json-iterator's does, reading nothing more.
type Iterator struct {
	buf   []byte
	head  int
	depth int
	Error error
}

// NewIterator is an iterator with nothing to read: use Pool().BorrowIterator.
func NewIterator(API) *Iterator { return &Iterator{} }

// Parse reads all of r and returns an iterator over it.
func Parse(_ API, r io.Reader, _ int) *Iterator {
	data, err := io.ReadAll(r)
	return &Iterator{buf: data, Error: err}
}

// IteratorPool lends iterators over byte slices.
type IteratorPool interface {
	BorrowIterator(data []byte) *Iterator
	ReturnIterator(iter *Iterator)
}

type iteratorPool struct{}

// Pool is a pool of iterators like it.
func (it *Iterator) Pool() IteratorPool { return iteratorPool{} }

func (iteratorPool) BorrowIterator(data []byte) *Iterator { return &Iterator{buf: data} }
func (iteratorPool) ReturnIterator(*Iterator)             {}

// ReportError records an error (the first one only).
func (it *Iterator) ReportError(operation, msg string) {
	if it.Error != nil {
		return
	}
	it.Error = fmt.Errorf("%s: %s, error found in #%d byte of %q", operation, msg, it.head, context(it.buf, it.head))
	it.head = len(it.buf)
}

func context(buf []byte, at int) []byte {
	from, to := max(0, at-10), min(len(buf), at+10)
	return buf[from:to]
}

// nextToken is the next byte that is not white space, consumed (0 at the end).
func (it *Iterator) nextToken() byte {
	for it.head < len(it.buf) {
		c := it.buf[it.head]
		it.head++
		switch c {
		case ' ', '\n', '\t', '\r':
			continue
		}
		return c
	}
	return 0
}

func (it *Iterator) unreadByte() { it.head-- }

// literal consumes the rest of a literal (null, true, false) whose first byte
// was read.
func (it *Iterator) literal(rest string) bool {
	if len(it.buf)-it.head < len(rest) || string(it.buf[it.head:it.head+len(rest)]) != rest {
		it.ReportError("read literal", "expect "+rest)
		return false
	}
	it.head += len(rest)
	return true
}

func (it *Iterator) enter() bool {
	it.depth++
	if it.depth > maxDepth {
		it.ReportError("read", "exceeded max depth")
		return false
	}
	return true
}

func (it *Iterator) leave() { it.depth-- }

// ReadString reads a string.
func (it *Iterator) ReadString() string {
	if c := it.nextToken(); c != '"' {
		if c == 'n' && it.literal("ull") {
			return ""
		}
		it.ReportError("ReadString", `expects " or n, but found `+string([]byte{c}))
		return ""
	}
	start := it.head
	plain := true
	for it.head < len(it.buf) {
		switch c := it.buf[it.head]; {
		case c == '"':
			raw := it.buf[start:it.head]
			it.head++
			if plain && utf8.Valid(raw) {
				return string(raw)
			}
			var s string
			if err := json.Unmarshal(it.buf[start-1:it.head], &s); err != nil {
				it.ReportError("ReadString", err.Error())
			}
			return s
		case c == '\\':
			plain = false
			it.head += 2
		case c < 0x20:
			it.ReportError("ReadString", "invalid control character in string")
			return ""
		default:
			it.head++
		}
	}
	it.ReportError("ReadString", "incomplete string")
	return ""
}

// Read reads any value: objects as map[string]interface{}, arrays as
// []interface{}, numbers as float64.
func (it *Iterator) Read() interface{} {
	c := it.nextToken()
	switch {
	case c == '"':
		it.unreadByte()
		return it.ReadString()
	case c == 'n':
		it.literal("ull")
		return nil
	case c == 't':
		it.literal("rue")
		return true
	case c == 'f':
		it.literal("alse")
		return false
	case c == '[':
		if !it.enter() {
			return nil
		}
		defer it.leave()
		list := []interface{}{}
		if c := it.nextToken(); c == ']' {
			return list
		}
		it.unreadByte()
		for {
			list = append(list, it.Read())
			switch c := it.nextToken(); c {
			case ',':
				continue
			case ']':
				return list
			default:
				it.ReportError("ReadArray", "expect , or ], but found "+string([]byte{c}))
				return list
			}
		}
	case c == '{':
		it.unreadByte()
		m := map[string]interface{}{}
		it.ReadMapCB(func(it *Iterator, key string) bool {
			m[key] = it.Read()
			return it.Error == nil
		})
		return m
	case c == '-' || c >= '0' && c <= '9':
		start := it.head - 1
		for it.head < len(it.buf) && isNumberByte(it.buf[it.head]) {
			it.head++
		}
		f, err := strconv.ParseFloat(string(it.buf[start:it.head]), 64)
		if err != nil {
			it.ReportError("ReadFloat64", err.Error())
		}
		return f
	case c == 0: // the end, which json-iterator reports as io.EOF
		if it.Error == nil {
			it.Error = io.EOF
		}
	default:
		it.ReportError("Read", "unexpected character: "+string([]byte{c}))
	}
	return nil
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// Skip reads a value and drops it.
func (it *Iterator) Skip() { it.Read() }

// ReadMapCB reads an object (or null), calling callback with each key, the
// iterator at its value; callback says whether to go on.
func (it *Iterator) ReadMapCB(callback func(*Iterator, string) bool) bool {
	return it.readObject("ReadMapCB", callback)
}

// ReadObjectCB is ReadMapCB, for an object's fields.
func (it *Iterator) ReadObjectCB(callback func(*Iterator, string) bool) bool {
	return it.readObject("ReadObjectCB", callback)
}

func (it *Iterator) readObject(op string, callback func(*Iterator, string) bool) bool {
	switch c := it.nextToken(); c {
	case 'n':
		return it.literal("ull")
	case '{':
	default:
		it.ReportError(op, "expect { or n, but found "+string([]byte{c}))
		return false
	}
	if !it.enter() {
		return false
	}
	defer it.leave()
	c := it.nextToken()
	if c == '}' {
		return true
	}
	for {
		if c != '"' {
			it.ReportError(op, `expect " after { or ,, but found `+string([]byte{c}))
			return false
		}
		it.unreadByte()
		key := it.ReadString()
		if c := it.nextToken(); c != ':' {
			it.ReportError(op, "expect : after object field, but found "+string([]byte{c}))
			return false
		}
		if !callback(it, key) || it.Error != nil {
			return false
		}
		switch c = it.nextToken(); c {
		case ',':
			c = it.nextToken()
		case '}':
			return true
		default:
			it.ReportError(op, "object not ended with }")
			return false
		}
	}
}

// Stream writes JSON into a buffer, and from it to its writer (when it has one).
type Stream struct {
	out   io.Writer
	buf   []byte
	Error error
}

// NewStream is a stream writing to out.
func NewStream(_ API, out io.Writer, size int) *Stream {
	return &Stream{out: out, buf: make([]byte, 0, size)}
}

// StreamPool lends streams writing to a writer.
type StreamPool interface {
	BorrowStream(writer io.Writer) *Stream
	ReturnStream(stream *Stream)
}

type streamPool struct{}

// Pool is a pool of streams like s.
func (s *Stream) Pool() StreamPool { return streamPool{} }

func (streamPool) BorrowStream(w io.Writer) *Stream {
	return &Stream{out: w, buf: make([]byte, 0, 512)}
}
func (streamPool) ReturnStream(*Stream) {}

// Write writes p after what is buffered, through to the writer.
func (s *Stream) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	if s.out == nil {
		return len(p), nil
	}
	n, err := s.out.Write(s.buf)
	s.buf = s.buf[n:]
	return n, err
}

// Buffer is what is buffered.
func (s *Stream) Buffer() []byte { return s.buf }

// SetBuffer replaces the buffer.
func (s *Stream) SetBuffer(b []byte) { s.buf = b }

// Flush writes what is buffered to the writer.
func (s *Stream) Flush() error {
	if s.out == nil {
		return nil
	}
	if s.Error != nil {
		return s.Error
	}
	if _, err := s.out.Write(s.buf); err != nil {
		s.Error = err
		return err
	}
	s.buf = s.buf[:0]
	return nil
}

// WriteRaw writes s as it is.
func (s *Stream) WriteRaw(raw string) { s.buf = append(s.buf, raw...) }

// WriteObjectStart writes {.
func (s *Stream) WriteObjectStart() { s.buf = append(s.buf, '{') }

// WriteObjectEnd writes }.
func (s *Stream) WriteObjectEnd() { s.buf = append(s.buf, '}') }

// WriteEmptyObject writes {}.
func (s *Stream) WriteEmptyObject() { s.buf = append(s.buf, '{', '}') }

// WriteMore writes the comma between fields.
func (s *Stream) WriteMore() { s.buf = append(s.buf, ',') }

// WriteInt writes an integer.
func (s *Stream) WriteInt(i int) { s.buf = strconv.AppendInt(s.buf, int64(i), 10) }

// WriteObjectField writes a field's name and colon: the name quoted with only
// quotes, backslashes and control characters escaped, as json-iterator does.
func (s *Stream) WriteObjectField(field string) {
	s.buf = append(s.buf, '"')
	for i := 0; i < len(field); i++ {
		switch c := field[i]; {
		case c == '"' || c == '\\':
			s.buf = append(s.buf, '\\', c)
		case c == '\n':
			s.buf = append(s.buf, '\\', 'n')
		case c == '\r':
			s.buf = append(s.buf, '\\', 'r')
		case c == '\t':
			s.buf = append(s.buf, '\\', 't')
		case c < 0x20:
			s.buf = append(s.buf, fmt.Sprintf(`\u%04x`, c)...)
		default:
			s.buf = append(s.buf, c)
		}
	}
	s.buf = append(s.buf, '"', ':')
}

// WriteVal writes a value as encoding/json does (structured-merge-diff's
// values: maps, lists, strings, numbers, booleans, null).
func (s *Stream) WriteVal(v interface{}) {
	b, err := json.Marshal(stringKeys(v))
	if err != nil {
		if s.Error == nil {
			s.Error = err
		}
		return
	}
	s.buf = append(s.buf, b...)
}

// stringKeys is v with maps keyed by any type (YAML's) keyed by their text.
func stringKeys(v interface{}) interface{} {
	switch v := v.(type) {
	case map[interface{}]interface{}:
		out := make(map[string]interface{}, len(v))
		for k, e := range v {
			out[fmt.Sprint(k)] = stringKeys(e)
		}
		return out
	case map[string]interface{}:
		out := make(map[string]interface{}, len(v))
		for k, e := range v {
			out[k] = stringKeys(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(v))
		for i, e := range v {
			out[i] = stringKeys(e)
		}
		return out
	}
	return v
}
