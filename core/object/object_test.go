package object

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// Encode must write every value exactly as encoding/json does (kube-apiserver's
// serializer), only ordering metadata as ObjectMeta does.
func FuzzEncodeMatchesEncodingJSON(f *testing.F) {
	for _, seed := range []string{
		`{"data":{"a":"<b>&amp;\u2028\u2029\u0001\n\t\"\\"}}`,
		`{"spec":{"replicas":3,"f":1.5e300,"big":123456789012345678901234567890,"n":null,"t":true,"l":[1,"x",{}]}}`,
		`{"data":{"bad":"\xff\xfe","emoji":"😀","k":"日本語"}}`,
		`{"metadata":{"labels":{"a":"b"},"name":"x","uid":"u","namespace":"n"},"data":{}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := Decode(data)
		if err != nil {
			return
		}
		delete(obj, "metadata")
		delete(obj, "kind")
		delete(obj, "apiVersion")
		got, err := Encode(obj)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("Encode\n got %s\nwant %s", got, want)
		}
	})
}

func TestEncodeMetadataOrder(t *testing.T) {
	obj, err := Decode([]byte(`{"kind":"ConfigMap","apiVersion":"v1","data":{"k":"v"},"metadata":{"labels":{"a":"b"},"uid":"u","name":"n","namespace":"ns","resourceVersion":"5","x-unknown":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"name":"n","namespace":"ns","uid":"u","resourceVersion":"5","labels":{"a":"b"},"x-unknown":1},"data":{"k":"v"}}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	typed := WithTypeMeta(b, "ConfigMap", "v1")
	if string(typed) != `{"kind":"ConfigMap","apiVersion":"v1",`+want[1:] {
		t.Fatalf("WithTypeMeta: %s", typed)
	}
}

// The fast decoder must agree with encoding/json (UseNumber) on every input it
// accepts, and accept every plain object encoding/json accepts.
func FuzzDecodeMatchesEncodingJSON(f *testing.F) {
	for _, seed := range []string{
		`{"a":"\u00e9\ud83d\ude00\ud800x\\\"\/\b\f\n\r\t","b":[1,-0.5e+3,0,1E2,true,false,null,{}],"c":{"d":[]}}`,
		`{"bad":"\xff","dup":1,"dup":2,"e":"é日本"}`,
		` {"x" : [ ] } `, `{"n":01}`, `{"n":-}`, `{"s":"\u12"}`, `[1]`, `{"a":1}x`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := decodeFast(data)
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		err := dec.Decode(&want)
		if err == nil {
			if _, e := dec.Token(); e != io.EOF {
				err = errors.New("trailing data")
			}
		}
		m, isObj := want.(map[string]any)
		if !ok && err == nil && isObj && len(data) < 1000 { // deeper nesting may fall back
			t.Fatalf("fast decoder rejected a valid object: %q", data)
		}
		if ok {
			if err != nil || !isObj {
				t.Fatalf("fast decoder accepted what encoding/json rejects (%v): %q", err, data)
			}
			if !reflect.DeepEqual(fast, m) {
				t.Fatalf("decoders differ on %q:\nfast %#v\njson %#v", data, fast, m)
			}
		}
	})
}

// FuzzRestampInPlaceMatchesDecode: the in-place rewrite of a stored object's
// resourceVersion gives exactly what decoding, setting and encoding it gives, or
// declines.
func FuzzRestampInPlaceMatchesDecode(f *testing.F) {
	for _, s := range []string{
		`{"metadata":{"name":"a","namespace":"default","uid":"u","resourceVersion":"12"},"data":{"resourceVersion":"9"}}`,
		`{"metadata":{"name":"a\"resourceVersion\":\"1","resourceVersion":"5","labels":{"x":"y"}}}`,
		`{"aaa":{"resourceVersion":"3"},"metadata":{"name":"n","resourceVersion":"4"}}`,
		`{"metadata":{"name":"n","generation":2,"resourceVersion":"7"}}`,
		`{"metadata":{"name":"n"},"spec":{"template":{"metadata":{"resourceVersion":"1"}}}}`,
		`{"metadata":{"name":"n","resourceVersion":"x1"}}`,
	} {
		f.Add([]byte(s), int64(42))
	}
	f.Fuzz(func(t *testing.T, data []byte, rev int64) {
		obj, err := Decode(data)
		if err != nil || rev < 0 {
			return
		}
		stored, err := Encode(obj)
		if err != nil {
			return
		}
		fast, ok := restampInPlace(stored, rev)
		if !ok {
			return
		}
		SetResourceVersion(obj, rev)
		want, err := Encode(obj)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fast, want) {
			t.Fatalf("in place %s\n    want %s", fast, want)
		}
	})
}

// FuzzEqualMatchesEncoding: two objects are Equal exactly when they encode to the
// same stored bytes; a DeepCopy is Equal and shares no map or list.
func FuzzEqualMatchesEncoding(f *testing.F) {
	f.Add([]byte(`{"a":{"b":[1,"1",{"c":null}]},"d":true}`), []byte(`{"d":true,"a":{"b":[1,"1",{"c":null}]}}`))
	f.Add([]byte(`{"a":1}`), []byte(`{"a":"1"}`))
	f.Add([]byte(`{"a":1.0}`), []byte(`{"a":1}`))
	f.Add([]byte(`{"a":[]}`), []byte(`{"a":{}}`))
	f.Fuzz(func(t *testing.T, x, y []byte) {
		a, err1 := Decode(x)
		b, err2 := Decode(y)
		if err1 != nil || err2 != nil {
			return
		}
		ea, err1 := Encode(a)
		eb, err2 := Encode(b)
		if err1 != nil || err2 != nil {
			return
		}
		if got, want := Equal(map[string]any(a), map[string]any(b)), bytes.Equal(ea, eb); got != want {
			t.Fatalf("Equal %v, encodings equal %v:\n%s\n%s", got, want, ea, eb)
		}
		c := DeepCopy(a)
		if !Equal(map[string]any(c), map[string]any(a)) {
			t.Fatal("copy differs")
		}
		var scribble func(v any)
		scribble = func(v any) {
			switch t := v.(type) {
			case map[string]any:
				for k, e := range t {
					scribble(e)
					t[k] = "changed"
				}
			case []any:
				for i, e := range t {
					scribble(e)
					t[i] = "changed"
				}
			}
		}
		scribble(map[string]any(c))
		if again, _ := Encode(a); !bytes.Equal(again, ea) {
			t.Fatal("changing the copy changed the original")
		}
	})
}

// Skip must accept exactly the documents encoding/json accepts, nesting limit
// included: the typed decoders rely on it to tell syntax errors. Inside
// containers the Scanner opened, the limit counts them too (a value nested
// 9,999 deep inside one object is one too many).
func FuzzScannerSkipMatchesValid(f *testing.F) {
	for _, seed := range []string{
		`{"a":[1,{"b":"\u00e9"},[],{}],"c":null}`, ` [ true , false ] `, `"x\"y"`, `-0.5e+3`,
		`{"a":1,}`, `[1,]`, `{"a" 1}`, `{1:2}`, `"\x"`, `tru`, `[`, `{"a":"b"}x`,
		strings.Repeat("[", maxNesting) + strings.Repeat("]", maxNesting),
		strings.Repeat("[", maxNesting+1) + strings.Repeat("]", maxNesting+1),
		strings.Repeat("[", maxNesting-2) + strings.Repeat("]", maxNesting-2),
		strings.Repeat("[", maxNesting-1) + strings.Repeat("]", maxNesting-1),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewScanner(data)
		if got, want := s.Skip() && s.AtEnd(), json.Valid(data); got != want {
			t.Fatalf("Skip says %v, encoding/json %v: %q", got, want, data)
		}
		wrapped := append(append([]byte(`{"x":[`), data...), "]}"...)
		s = NewScanner(wrapped)
		ok := s.Consume('{')
		if ok {
			_, ok = s.Key()
		}
		if ok = ok && s.Consume('['); ok && !s.Empty(']') {
			for more := true; ok && more; {
				if ok = s.Skip(); ok {
					more, ok = s.Next(']')
				}
			}
		}
		if ok {
			more, closed := s.Next('}')
			ok = closed && !more
		}
		if got, want := ok && s.AtEnd(), json.Valid(wrapped); got != want {
			t.Fatalf("Skip inside two containers says %v, encoding/json %v: %q", got, want, wrapped)
		}
	})
}
