package apiserver

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"kubeplay/core/encoding"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/object"
)

const cms = "/api/v1/namespaces/default/configmaps"

func TestK8S_ENC_1_Negotiation(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.createCM("default", "a", nil)
	for _, c := range []struct {
		accept, want string
	}{
		{"", "application/json"},
		{"*/*", "application/json"},
		{"application/yaml", "application/yaml"},
		{"application/cbor", "application/cbor"},
		{"application/vnd.kubernetes.protobuf", "application/vnd.kubernetes.protobuf"},
		{"text/html, application/yaml;q=0.5, application/json;q=0.9", "application/json"},
		{"application/json;q=0.1, application/cbor", "application/cbor"},
		{"application/json;as=Table;v=v1;g=meta.k8s.io, application/json", "application/json"},
		// protobuf cannot carry a Table: the next clause is served.
		{"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/yaml", "application/yaml"},
		{"application/json;as=Unknown;v=v1;g=meta.k8s.io, application/cbor", "application/cbor"},
	} {
		r := s.do("GET", cms+"/a", nil, "Accept", c.accept).must(t, 200)
		if got := r.Header.Get("Content-Type"); got != c.want {
			t.Errorf("Accept %q: Content-Type %q, want %q", c.accept, got, c.want)
		}
	}
	// The router refuses an Accept naming no type a route produces (parameters
	// aside; application/* is not */*), before negotiation (K8S-FID-1).
	for _, accept := range []string{"text/html", "application/*"} {
		s.do("GET", cms+"/a", nil, "Accept", accept).wantStatus(t, 406, "NotAcceptable",
			"406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor")
	}
	s.do("GET", cms, nil, "Accept", "application/xml").wantStatus(t, 406, "NotAcceptable",
		"406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor, "+
			"application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch, application/cbor-seq")
	// A watch's 406 is a Status in the media asked for, when a Status can be.
	if r := s.do("GET", cms+"?watch=1", nil, "Accept", "application/yaml"); r.Code != 406 || r.Header.Get("Content-Type") != "application/yaml" ||
		!strings.Contains(string(r.Body), "message: 'only the following media types are accepted: application/json;stream=watch,\n  application/vnd.kubernetes.protobuf;stream=watch, application/cbor-seq'") {
		t.Fatalf("watch in YAML: %d %s %s", r.Code, r.Header.Get("Content-Type"), r.Body)
	}
	s.do("PATCH", cms+"/a", `{}`, "Content-Type", "application/json").wantStatus(t, 415, "UnsupportedMediaType", "415: Unsupported Media Type")
	s.do("POST", cms, `a: b`, "Content-Type", "text/yaml").wantStatus(t, 415, "UnsupportedMediaType",
		"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor")
	// An error is a Status in the negotiated media: protobuf here.
	r := s.do("GET", cms+"/missing", nil, "Accept", "application/vnd.kubernetes.protobuf")
	if r.Code != 404 || r.Header.Get("Content-Type") != "application/vnd.kubernetes.protobuf" {
		t.Fatalf("protobuf 404: %d %q", r.Code, r.Header.Get("Content-Type"))
	}
	apiVersion, kind, raw, err := protobuf.ParseEnvelope(r.Body)
	if err != nil || apiVersion != "v1" || kind != "Status" {
		t.Fatalf("404 envelope: %s %s %v", apiVersion, kind, err)
	}
	st, err := protobuf.Unmarshal(apiVersion, kind, raw)
	if err != nil || st["reason"] != "NotFound" {
		t.Fatalf("404 Status: %v %v", st, err)
	}
}

func TestK8S_ENC_2_YAML(t *testing.T) {
	s := newTestServer(t, testConfig{})
	body := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\n  labels: {app: web}\ndata:\n  replicas: \"3\"\n  text: |\n    two\n    lines\n"
	r := s.do("POST", cms, body, "Content-Type", "application/yaml", "Accept", "application/yaml").must(t, 201)
	if ct := r.Header.Get("Content-Type"); ct != "application/yaml" {
		t.Fatalf("Content-Type %q", ct)
	}
	// kube's YAML: keys sorted, block style.
	out := string(r.Body)
	if !strings.HasPrefix(out, "apiVersion: v1\ndata:\n  replicas: \"3\"\n  text: |\n    two\n    lines\nkind: ConfigMap\nmetadata:\n") {
		t.Fatalf("YAML answer:\n%s", out)
	}
	got := s.do("GET", cms+"/from-yaml", nil).must(t, 200)
	if got.str("data", "text") != "two\nlines\n" || got.str("metadata", "labels", "app") != "web" {
		t.Fatalf("stored: %s", got.Body)
	}
}

func TestK8S_ENC_3_ProtobufOverHTTP(t *testing.T) {
	s := newTestServer(t, testConfig{})
	const pb = "application/vnd.kubernetes.protobuf"
	obj := object.Object{"metadata": map[string]any{"name": "pb"}, "data": map[string]any{"k": "v"}}
	raw, err := protobuf.Marshal(nil, "v1", "ConfigMap", obj)
	if err != nil {
		t.Fatal(err)
	}
	r := s.do("POST", cms, protobuf.AppendEnvelope(nil, "v1", "ConfigMap", raw), "Content-Type", pb, "Accept", pb).must(t, 201)
	if !bytes.HasPrefix(r.Body, []byte("k8s\x00")) {
		t.Fatalf("answer is not a protobuf envelope: %q", r.Body)
	}
	// The list is a ConfigMapList message.
	r = s.do("GET", cms, nil, "Accept", pb).must(t, 200)
	apiVersion, kind, raw, err := protobuf.ParseEnvelope(r.Body)
	if err != nil || kind != "ConfigMapList" || apiVersion != "v1" {
		t.Fatalf("list envelope %s %s: %v", apiVersion, kind, err)
	}
	list, err := protobuf.Unmarshal(apiVersion, kind, raw)
	if err != nil || len(list["items"].([]any)) != 1 {
		t.Fatalf("list: %v %v", list, err)
	}

	// A watch is length-delimited WatchEvent frames.
	req, _ := http.NewRequest("GET", s.hs.URL+cms+"?watch=1&resourceVersion=0&timeoutSeconds=1", nil)
	req.Header.Set("Accept", pb)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != pb+";stream=watch" {
		t.Fatalf("watch Content-Type %q", ct)
	}
	msg, _, err := protobuf.SplitFrame(data)
	if err != nil {
		t.Fatal(err)
	}
	typ, objBytes, err := protobuf.ParseWatchEvent(msg)
	if err != nil || typ != "ADDED" {
		t.Fatalf("event %q: %v", typ, err)
	}
	if _, kind, _, err := protobuf.ParseEnvelope(objBytes); err != nil || kind != "ConfigMap" {
		t.Fatalf("event object %s: %v", kind, err)
	}
}

func TestK8S_ENC_4_CBOR(t *testing.T) {
	s := newTestServer(t, testConfig{})
	body, err := encoding.AppendCBOR(nil, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cb"}, "data": map[string]any{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	r := s.do("POST", cms, body, "Content-Type", "application/cbor", "Accept", "application/cbor").must(t, 201)
	if !bytes.HasPrefix(r.Body, encoding.SelfDescribedCBOR) {
		t.Fatalf("answer lacks the self-described tag: %x", r.Body[:8])
	}
	back, err := encoding.DecodeCBOR(r.Body)
	if err != nil || back["kind"] != "ConfigMap" || object.Path(back, "data", "k") != "v" {
		t.Fatalf("CBOR answer: %v %v", back, err)
	}
	req, _ := http.NewRequest("GET", s.hs.URL+cms+"?watch=1&resourceVersion=0&timeoutSeconds=1", nil)
	req.Header.Set("Accept", "application/cbor")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/cbor-seq" {
		t.Fatalf("watch Content-Type %q", ct)
	}
	if !bytes.HasPrefix(data, encoding.SelfDescribedCBOR) || !bytes.Contains(data, []byte("ADDED")) {
		t.Fatalf("cbor-seq: %x", data)
	}
}

func TestK8S_ENC_5_Tables(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.createCM("default", "a", nil)
	const table = "application/json;as=Table;v=v1;g=meta.k8s.io"
	r := s.do("GET", cms, nil, "Accept", table).must(t, 200)
	if r.str("kind") != "Table" || r.str("apiVersion") != "meta.k8s.io/v1" {
		t.Fatalf("not a Table: %s", r.Body)
	}
	cols, _ := r.Obj["columnDefinitions"].([]any)
	if len(cols) != 3 || object.Path(cols[1], "name") != "Data" {
		t.Fatalf("ConfigMap columns: %v", cols)
	}
	rows, _ := r.Obj["rows"].([]any)
	if len(rows) != 1 || object.Path(rows[0], "object", "kind") != "PartialObjectMetadata" {
		t.Fatalf("rows: %v", rows)
	}
	r = s.do("GET", cms+"/a?includeObject=Object", nil, "Accept", table).must(t, 200)
	rows, _ = r.Obj["rows"].([]any)
	if object.Path(rows[0], "object", "kind") != "ConfigMap" || object.Path(rows[0], "object", "data", "k") != "v" {
		t.Fatalf("includeObject=Object: %s", r.Body)
	}
	s.do("GET", cms+"?includeObject=All", nil, "Accept", table).wantStatus(t, 400, "BadRequest",
		`Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`)
	// metadata only
	r = s.do("GET", cms, nil, "Accept", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io").must(t, 200)
	if r.str("kind") != "PartialObjectMetadataList" || len(r.items()) != 1 || r.items()[0]["data"] != nil {
		t.Fatalf("PartialObjectMetadataList: %s", r.Body)
	}
	s.do("GET", cms, nil, "Accept", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io, application/json").wantStatus(t, 406, "NotAcceptable",
		"you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)")
}

// TestK8S_FID_1_K8S_ENC_5_ErrorsWithoutRepresentation: an error whose Status
// the Accept header gives no representation (only a Table or metadata is
// asked for) is answered as it is, in indented JSON, as kube-apiserver 1.32
// answers (recorded); the conversion errors name kube's internal types.
func TestK8S_FID_1_K8S_ENC_5_ErrorsWithoutRepresentation(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.createCM("default", "a", nil)
	for _, accept := range []string{"application/json;as=Table;v=v1;g=meta.k8s.io", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
		"application/yaml;as=Table;v=v1;g=meta.k8s.io"} {
		r := s.do("GET", cms+"/missing", nil, "Accept", accept).wantStatus(t, 404, "NotFound", `configmaps "missing" not found`)
		if want := "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"status\": \"Failure\",\n" +
			"  \"message\": \"configmaps \\\"missing\\\" not found\",\n  \"reason\": \"NotFound\",\n  \"details\": {\n    \"name\": \"missing\",\n" +
			"    \"kind\": \"configmaps\"\n  },\n  \"code\": 404\n}"; string(r.Body) != want || r.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %s %s", accept, r.Header.Get("Content-Type"), r.Body)
		}
	}
	s.do("GET", cms, nil, "Accept", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io").wantStatus(t, 406, "NotAcceptable",
		"you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)")
	s.do("GET", cms+"/a", nil, "Accept", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io").wantStatus(t, 406, "NotAcceptable",
		"you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)")
	s.do("GET", "/apis/apps/v1/namespaces/default/deployments", nil, "Accept", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io").
		wantStatus(t, 406, "NotAcceptable", "you requested PartialObjectMetadata, but the requested object is a list (*apps.DeploymentList)")
}

// TestK8S_ENC_6_Gzip: a list over 128 KiB is gzipped for a client whose
// Accept-Encoding has a gzip token, in every media, stitched from its
// items' cached segments (gzipjoin): read back, it is byte for byte the
// list sent without gzip, for the whole collection, a selection and a
// page, again from the cache, and after an item changes. Identity bytes
// for every other Accept-Encoding, and for small answers.
func TestK8S_ENC_6_Gzip(t *testing.T) {
	s := newTestServer(t, testConfig{})
	big := strings.Repeat("x", 1500)
	for i := range 200 { // about 300 KiB of list, a half of it over 128 KiB
		s.do("POST", cms, cm(fmt.Sprintf("cm-%03d", i), map[string]string{"half": fmt.Sprint(i % 2)}, map[string]string{"k": big})).must(t, 201)
	}
	// Every request names its Accept-Encoding: without one, Go's transport
	// asks for gzip itself and hands back the inflated body.
	get := func(path, accept, encoding string) *response {
		t.Helper()
		return s.do("GET", path, nil, "Accept", accept, "Accept-Encoding", encoding).must(t, 200)
	}
	gunzip := func(b []byte) []byte {
		t.Helper()
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		out, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("gzip: %v", err)
		}
		return out
	}
	for _, accept := range []string{"application/json", "application/vnd.kubernetes.protobuf", "application/cbor", "application/yaml"} {
		for _, path := range []string{cms, cms + "?labelSelector=half%3D1", cms + "?limit=150", cms} {
			plain := get(path, accept, "identity")
			if plain.Header.Get("Content-Encoding") != "" {
				t.Fatalf("%s %s, identity: %v", accept, path, plain.Header)
			}
			zipped := get(path, accept, "gzip")
			if zipped.Header.Get("Content-Encoding") != "gzip" || zipped.Header.Get("Vary") != "Accept-Encoding" || zipped.Header.Get("Content-Type") != plain.Header.Get("Content-Type") {
				t.Fatalf("%s %s: a list of %d bytes was not compressed: %v", accept, path, len(plain.Body), zipped.Header)
			}
			if got := gunzip(zipped.Body); !bytes.Equal(got, plain.Body) {
				t.Fatalf("%s %s: gzip read back %d bytes, the list without gzip is %d", accept, path, len(got), len(plain.Body))
			}
		}
	}
	// An item changed: its segment is made again.
	s.do("PUT", cms+"/cm-007", cm("cm-007", nil, map[string]string{"k": "changed " + big})).must(t, 200)
	want := get(cms, "application/json", "identity").Body
	if body := get(cms, "application/json", "gzip").Body; !bytes.Equal(gunzip(body), want) || !bytes.Contains(want, []byte("changed ")) {
		t.Fatal("after an update the gzipped list is not the list")
	}
	for _, enc := range []string{"br", "gzip;q=0", "x-gzip", "deflate"} {
		if r := get(cms, "application/json", enc); r.Header.Get("Content-Encoding") != "" || !bytes.Equal(r.Body, want) {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, want identity bytes", enc, r.Header.Get("Content-Encoding"))
		}
	}
	if r := get(cms, "application/json", "deflate, gzip"); r.Header.Get("Content-Encoding") != "gzip" {
		t.Error(`Accept-Encoding "deflate, gzip" was not answered with gzip`)
	}
	if small := get(cms+"/cm-000", "application/json", "gzip"); small.Header.Get("Content-Encoding") != "" {
		t.Fatal("a small object was compressed; kube compresses above 128 KiB only")
	}
}

func TestK8S_ENC_BadInput(t *testing.T) {
	s := newTestServer(t, testConfig{})
	rev := s.srv.Store().Revision()
	const pb = "application/vnd.kubernetes.protobuf"
	good, _ := protobuf.Marshal(nil, "v1", "ConfigMap", object.Object{"metadata": map[string]any{"name": "x"}})
	env := protobuf.AppendEnvelope(nil, "v1", "ConfigMap", good)
	secret := protobuf.AppendEnvelope(nil, "v1", "Secret", good)
	bomb := "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	for c := 'b'; c <= 'j'; c++ {
		prev := string(c - 1)
		bomb += string(c) + ": &" + string(c) + " [*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + "]\n"
	}
	for _, c := range []struct {
		name, contentType string
		body              []byte
	}{
		{"wrong magic", pb, append([]byte("k9s\x00"), env[4:]...)},
		{"truncated envelope", pb, env[:len(env)-3]},
		{"truncated message", pb, protobuf.AppendEnvelope(nil, "v1", "ConfigMap", good[:len(good)-1])},
		{"kind disagrees with the URL", pb, secret},
		{"invalid CBOR", "application/cbor", []byte{0xd9, 0xd9, 0xf7, 0xa1, 0x61}},
		{"CBOR duplicate keys", "application/cbor", []byte{0xa2, 0x41, 'a', 0x01, 0x41, 'a', 0x02}},
		{"CBOR not a map", "application/cbor", []byte{0x01}},
		{"YAML bomb", "application/yaml", []byte(bomb)},
		{"bad YAML", "application/yaml", []byte("metadata: [unclosed")},
		{"YAML of another apiVersion", "application/yaml", []byte("apiVersion: apps/v1\nkind: ConfigMap\nmetadata: {name: y}\n")},
	} {
		r := s.do("POST", cms, c.body, "Content-Type", c.contentType)
		if r.Code != 400 || r.str("reason") != "BadRequest" || r.str("message") == "" {
			t.Errorf("%s: %d %s", c.name, r.Code, r.Body)
		}
	}
	s.do("POST", cms, protobuf.AppendEnvelope(nil, "v1", "Widget", good), "Content-Type", pb).wantStatus(t, 400, "BadRequest",
		`Widget in version "v1" cannot be handled as a ConfigMap: no kind "Widget" is registered for version "v1" in scheme "pkg/runtime/scheme.go:100"`)
	s.do("POST", cms, secret, "Content-Type", pb).wantStatus(t, 400, "BadRequest",
		`Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion`)
	if got := s.srv.Store().Revision(); got != rev {
		t.Fatalf("bad input changed the store: revision %d → %d", rev, got)
	}
}

func TestPLAY_3_DecodeBinaryForDisplay(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.createCM("default", "a", map[string]string{"app": "web"})
	fetch := func(accept, query string) ([]byte, string) {
		req, _ := http.NewRequest("GET", s.hs.URL+cms+query, nil)
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b, resp.Header.Get("Content-Type")
	}
	for _, accept := range []string{"application/vnd.kubernetes.protobuf", "application/cbor"} {
		body, ct := fetch(accept, "/a")
		r := s.do("POST", "/debug/kubeplay/decode", body, "Content-Type", ct).must(t, 200)
		if r.str("kind") != "ConfigMap" || r.str("metadata", "labels", "app") != "web" || r.str("data", "k") != "v" {
			t.Errorf("%s decoded: %s", accept, r.Body)
		}
		stream, ct := fetch(accept, "?watch=1&resourceVersion=0&timeoutSeconds=1")
		r = s.do("POST", "/debug/kubeplay/decode", stream, "Content-Type", ct).must(t, 200)
		var events []watchEvent
		if err := json.Unmarshal(r.Body, &events); err != nil || len(events) != 1 || events[0].Type != "ADDED" || events[0].name() != "a" {
			t.Errorf("%s stream decoded: %s (%v)", ct, r.Body, err)
		}
	}
	s.do("POST", "/debug/kubeplay/decode", "k8s\x00garbage", "Content-Type", "application/vnd.kubernetes.protobuf").wantStatus(t, 400, "BadRequest", "")
}

func TestK8S_ENC_3_QuantitiesCanonical(t *testing.T) {
	s := newTestServer(t, testConfig{})
	const pods = "/api/v1/namespaces/default/pods"
	pod := func(name, cpu, mem string) string {
		return `{"metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"` + cpu + `","memory":"` + mem + `"}}}]}}`
	}
	r := s.do("POST", pods, pod("q", "0.5", "1024Mi")).must(t, 201)
	req := object.Path(r.Obj, "spec", "containers").([]any)[0]
	if cpu, mem := object.Path(req, "resources", "requests", "cpu"), object.Path(req, "resources", "requests", "memory"); cpu != "500m" || mem != "1Gi" {
		t.Fatalf("quantities stored as %v and %v, want 500m and 1Gi as kube stores them", cpu, mem)
	}
	// Strings kube keeps as given stay as given.
	r = s.do("POST", pods, pod("kept", "100m", "64Mi")).must(t, 201)
	req = object.Path(r.Obj, "spec", "containers").([]any)[0]
	if cpu := object.Path(req, "resources", "requests", "cpu"); cpu != "100m" {
		t.Fatalf("cpu %v", cpu)
	}
	rev := s.srv.Store().Revision()
	s.do("POST", pods, pod("bad", "lots", "1Gi")).wantStatus(t, 400, "BadRequest",
		`Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`)
	// A patch kube cannot decode is an invalid patch (kube-apiserver 1.32.13).
	r = s.do("PATCH", pods+"/q", `{"spec":{"containers":[{"name":"c","image":"nginx","resources":{"limits":{"cpu":"1KK"}}}]}}`,
		"Content-Type", "application/merge-patch+json").wantStatus(t, 422, "Invalid", "")
	if msg := r.str("message"); !strings.HasPrefix(msg, ` "" is invalid: patch: Invalid value: "{`) || !strings.HasSuffix(msg, `}": unable to parse quantity's suffix`) {
		t.Fatalf("message %q", msg)
	}
	if s.srv.Store().Revision() != rev {
		t.Fatal("a bad quantity was stored")
	}
}
