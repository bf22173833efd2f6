package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/fxamacker/cbor/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// A document is a body decoded for comparison: JSON values whose objects keep
// their keys' order (*object), whatever representation it came in.
type object struct {
	keys []string
	vals map[string]any
	// unordered: the representation does not fix the order of keys (CBOR maps,
	// YAML's sorted keys seen through JSON); their order is not compared.
	unordered bool
}

func (o *object) get(k string) any { return o.vals[k] }

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// parseJSON reads one JSON value keeping key order; numbers stay json.Number.
func parseJSON(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := parseJSON(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[k]; dup {
					k = k + " (again)"
				}
				o.set(k, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := parseJSON(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// parseJSONStream reads every JSON value in b (one for an answer, one per
// event for a watch).
func parseJSONStream(b []byte) ([]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out []any
	for {
		v, err := parseJSON(dec)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
}

// plain turns a document into Go's plain JSON values (for serverState.observe).
func plain(v any) any {
	switch v := v.(type) {
	case *object:
		m := make(map[string]any, len(v.vals))
		for k, x := range v.vals {
			m[k] = plain(x)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = plain(x)
		}
		return out
	}
	return v
}

// fromPlain makes a document of plain values (maps' keys sorted, unordered).
func fromPlain(v any) any {
	switch v := v.(type) {
	case map[string]any:
		o := &object{vals: map[string]any{}, unordered: true}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			o.set(k, fromPlain(v[k]))
		}
		return o
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = fromPlain(x)
		}
		return out
	case []byte:
		return base64.StdEncoding.EncodeToString(v)
	case float64:
		return json.Number(strings.TrimSuffix(fmt.Sprint(v), ".0"))
	case int64, uint64, int, float32:
		return json.Number(fmt.Sprint(v))
	}
	return v
}

// decoded is an answer's body (or a watch stream's events) as documents, with
// what the decoding itself noticed (bytes a representation's own encoder would
// not have written, a missing CBOR tag).
type decoded struct {
	docs  []any
	notes []string
}

// mediaType is a Content-Type's type without parameters.
func mediaType(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return strings.TrimSpace(strings.Split(contentType, ";")[0])
	}
	return mt
}

// decodeBody decodes a body (or a stream of watch events) by its Content-Type.
func decodeBody(contentType string, body []byte, stream bool) decoded {
	if len(body) == 0 {
		return decoded{}
	}
	switch mt := mediaType(contentType); {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		docs, err := parseJSONStream(body)
		if err != nil {
			return decoded{docs: append(docs, "<invalid JSON: "+err.Error()+">")}
		}
		return decoded{docs: docs}
	case mt == "application/yaml":
		return decodeYAML(body, stream)
	case mt == "application/vnd.kubernetes.protobuf" || mt == "application/vnd.kubernetes.protobuf;stream=watch":
		return decodeProtobuf(body, stream)
	case mt == "application/cbor" || mt == "application/cbor-seq":
		return decodeCBOR(body)
	default:
		return decoded{docs: []any{string(body)}}
	}
}

var yamlKey = regexp.MustCompile(`(?m)^\s*(?:- )?([A-Za-z0-9_.\-/]+):`)

// yamlKeysNote is where a YAML document notes its keys in the order written.
const yamlKeysNote = "<yaml keys in order>"

// decodeYAML reads YAML through JSON (objects' keys come sorted, as kube's
// YAML writes them); the order of the keys as written is kept as a note
// string beside, so a different order still shows.
func decodeYAML(body []byte, stream bool) decoded {
	var parts [][]byte
	if stream {
		parts = bytes.Split(body, []byte("\n---\n"))
	} else {
		parts = [][]byte{body}
	}
	var d decoded
	for _, p := range parts {
		j, err := yaml.YAMLToJSON(p)
		if err != nil {
			d.docs = append(d.docs, "<invalid YAML: "+err.Error()+">")
			continue
		}
		var v any
		if err := json.Unmarshal(j, &v); err != nil {
			d.docs = append(d.docs, "<invalid YAML: "+err.Error()+">")
			continue
		}
		doc := fromPlain(v)
		if o, ok := doc.(*object); ok {
			var keys []string
			for _, m := range yamlKey.FindAllSubmatch(withoutManagedFields(p), -1) {
				keys = append(keys, string(m[1]))
			}
			o.set(yamlKeysNote, strings.Join(keys, " "))
		}
		d.docs = append(d.docs, doc)
	}
	return d
}

// withoutManagedFields is a YAML document without its managedFields block,
// whose entries two servers may order differently (sortManagedFields).
func withoutManagedFields(doc []byte) []byte {
	var out [][]byte
	skipIndent := -1
	for _, line := range bytes.Split(doc, []byte("\n")) {
		indent := len(line) - len(bytes.TrimLeft(line, " "))
		trimmed := bytes.TrimLeft(line, " ")
		if skipIndent >= 0 {
			// The block's entries ("- ") may sit at its own indentation.
			if len(trimmed) > 0 && (indent < skipIndent || indent == skipIndent && !bytes.HasPrefix(trimmed, []byte("- "))) {
				skipIndent = -1
			} else {
				continue
			}
		}
		if bytes.HasPrefix(trimmed, []byte("managedFields:")) {
			skipIndent = indent
			continue
		}
		out = append(out, line)
	}
	return bytes.Join(out, []byte("\n"))
}

// scheme knows every kind kubeplay serves, for reading protobuf.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := metav1.AddMetaToScheme(s); err != nil {
		panic(err)
	}
	metav1.AddToGroupVersion(s, metav1.SchemeGroupVersion)
	return s
}()

var pbSerializer = protobuf.NewSerializer(scheme, scheme)

// decodeProtobuf reads kube's protobuf envelope (k8s\x00 + runtime.Unknown)
// into the typed object and shows it as JSON; a watch stream is 4-byte
// big-endian length-prefixed frames of WatchEvents. Bytes that the typed
// object, encoded again, would not give back are noted.
func decodeProtobuf(body []byte, stream bool) decoded {
	var d decoded
	if !stream {
		d.add(decodeEnvelope(body))
		return d
	}
	for len(body) > 0 {
		if len(body) < 4 {
			d.docs = append(d.docs, "<truncated frame>")
			break
		}
		n := binary.BigEndian.Uint32(body)
		if uint64(len(body)-4) < uint64(n) {
			d.docs = append(d.docs, "<truncated frame>")
			break
		}
		frame := body[4 : 4+n]
		body = body[4+n:]
		// A frame is a bare WatchEvent message (no envelope); its object is enveloped.
		ev := &metav1.WatchEvent{}
		if err := ev.Unmarshal(frame); err != nil {
			d.docs = append(d.docs, "<undecodable protobuf frame: "+err.Error()+">")
			continue
		}
		inner, notes := decodeEnvelope(ev.Object.Raw)
		o := &object{vals: map[string]any{}}
		o.set("type", ev.Type)
		o.set("object", inner)
		d.docs = append(d.docs, o)
		d.notes = append(d.notes, notes...)
	}
	return d
}

func (d *decoded) add(doc any, notes []string) {
	d.docs = append(d.docs, doc)
	d.notes = append(d.notes, notes...)
}

func decodeEnvelope(b []byte) (any, []string) {
	obj, _, err := pbSerializer.Decode(b, nil, nil)
	if err != nil {
		return "<undecodable protobuf: " + err.Error() + ">", nil
	}
	var notes []string
	var again bytes.Buffer
	if err := pbSerializer.Encode(obj, &again); err == nil && !bytes.Equal(again.Bytes(), b) {
		notes = append(notes, fmt.Sprintf("protobuf bytes differ from the typed object's encoding (%d bytes, encoded again %d)", len(b), again.Len()))
	}
	j, err := json.Marshal(obj)
	if err != nil {
		return "<protobuf object not JSON: " + err.Error() + ">", notes
	}
	docs, err := parseJSONStream(j)
	if err != nil || len(docs) != 1 {
		return "<protobuf object not JSON>", notes
	}
	return docs[0], notes
}

var cborDecMode = func() cbor.DecMode {
	// As kube reads its own CBOR: strings (and map keys) come as byte
	// strings, []byte ones tagged to be read as base64.
	m, err := cbor.DecOptions{
		DefaultMapType:        reflect.TypeOf(map[string]any(nil)),
		DefaultByteStringType: reflect.TypeOf(""),
		ByteStringToString:    cbor.ByteStringToStringAllowedWithExpectedLaterEncoding,
		MapKeyByteString:      cbor.MapKeyByteStringAllowed,
	}.DecMode()
	if err != nil {
		panic(err)
	}
	return m
}()

// selfDescribed is CBOR's self-described tag (55799), which kube puts first.
var selfDescribed = []byte{0xd9, 0xd9, 0xf7}

// decodeCBOR reads a CBOR item, or a sequence of them (a watch), as JSON
// values; whether each begins with the self-described tag is noted.
func decodeCBOR(body []byte) decoded {
	var d decoded
	dec := cborDecMode.NewDecoder(bytes.NewReader(body))
	rest := body
	for len(rest) > 0 {
		tagged := bytes.HasPrefix(rest, selfDescribed)
		var v any
		if err := dec.Decode(&v); err != nil {
			if !errors.Is(err, io.EOF) {
				d.docs = append(d.docs, "<invalid CBOR: "+err.Error()+">")
			}
			break
		}
		rest = body[dec.NumBytesRead():]
		doc := fromPlain(v)
		if o, ok := doc.(*object); ok && !tagged {
			o.set("<cbor without the self-described tag>", true)
		}
		d.docs = append(d.docs, doc)
	}
	return d
}
