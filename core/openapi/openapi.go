// Package openapi owns kubeplay's OpenAPI documents and serves them as
// kube-apiserver does: /openapi/v2 (JSON, or protobuf for kubectl explain
// --output=plaintext-openapiv2, gzipped for clients that take it) and
// /openapi/v3 (an index of the group versions' documents by ?hash= URL, and
// the documents: immutable when asked for by their hash, a 301 to the current
// hash otherwise), with kube's Content-Type, ETag, Last-Modified, Expires,
// Vary, 304 and 406 answers and its bare 404s.
//
// The documents of the built-in kinds are kube-apiserver 1.32's own, trimmed
// to what kubeplay serves, descriptions included (kubectl explain prints them,
// and kubectl reads the PATCH operations' fieldValidation parameter to send
// field validation to the server). tools/openapigen generates them at build
// time into documents.bin (packed, see the bundle package) and
// documents_gen.go (their sizes and ETags); they are unpacked on first use.
// Natively documents.bin is embedded; in WebAssembly, where every visitor
// downloads and compiles what the module holds, the host hands it over when it
// is first asked for (Options.Documents): the service worker from its cache, the
// edge from a module of its own.
//
// The index follows the API registry (core/api): it is rebuilt when the registry's
// Generation changes, and a served group version that the built-in documents
// do not describe (a CustomResourceDefinition's) gets its v3 document from
// Options.Document and its paths and definitions in the v2 document from
// Options.V2, the seams where CRDs publish their schemas.
package openapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/clock"
	"kubeplay/core/encoding"
	"kubeplay/core/openapi/bundle"
	"kubeplay/core/web"
)

//go:generate go run ../../tools/openapigen

// builtinDocument is one document of documents.bin.
type builtinDocument struct {
	path string // the v3 document's path under /openapi/v3 ("api/v1")
	size int
	etag string
}

// builtinIndex lists documents.bin's documents: the v3 ones, then the v2
// document as JSON and as protobuf. (The protobuf form is served with the JSON's
// ETag, as kube's is; its own says what it holds.)
type builtinIndex struct {
	v3      []builtinDocument
	v2      builtinDocument
	v2Proto builtinDocument
}

// The media types of the documents. kube answers a request for the deprecated
// protobuf name with the current one.
const (
	mediaJSON           = "application/json"
	mediaV2Proto        = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	mediaV2ProtoOldName = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
)

// document is one served document.
type document struct {
	body     []byte
	etag     string    // kube-openapi's: the SHA-512 of the body in upper-case hex
	modified time.Time // Last-Modified

	gzipOnce sync.Once
	gzipped  []byte
}

// gzip is the body gzipped, made once.
func (d *document) gzip() []byte {
	d.gzipOnce.Do(func() {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(d.body)
		_ = zw.Close()
		d.gzipped = b.Bytes()
	})
	return d.gzipped
}

// builtins are the unpacked built-in documents, shared by every Service.
var builtins struct {
	mu      sync.Mutex
	loaded  bool
	v3      map[string][]byte
	v2      []byte
	v2Proto []byte
}

// unpackBuiltins unpacks documents.bin, as load gives it, once it has loaded:
// a host that failed to give it is asked again next time.
func unpackBuiltins(load func() ([]byte, error)) error {
	builtins.mu.Lock()
	defer builtins.mu.Unlock()
	if builtins.loaded {
		return nil
	}
	packed, err := load()
	if err != nil {
		return fmt.Errorf("openapi: loading the documents: %w", err)
	}
	sizes := make([]int, 0, len(builtin.v3)+2)
	for _, d := range builtin.v3 {
		sizes = append(sizes, d.size)
	}
	sizes = append(sizes, builtin.v2.size, builtin.v2Proto.size)
	docs, err := bundle.Unpack(packed, sizes)
	if err != nil {
		return err
	}
	builtins.v3 = map[string][]byte{}
	for i, d := range builtin.v3 {
		builtins.v3[d.path] = docs[i]
	}
	builtins.v2, builtins.v2Proto = docs[len(docs)-2], docs[len(docs)-1]
	builtins.loaded = true
	return nil
}

// DocumentFunc returns the OpenAPI v3 document (JSON) of a served group version
// that the built-in documents do not describe, from its resources; false leaves
// the group version out of the index.
type DocumentFunc func(gv api.GroupVersion, resources []*api.Resource) ([]byte, bool)

// V2Func returns the OpenAPI v2 paths and definitions, by name, of a served
// group version that the built-in documents do not describe, from its
// resources; /openapi/v2 holds them besides its own.
type V2Func func(gv api.GroupVersion, resources []*api.Resource) (paths, definitions map[string]any, ok bool)

// Options configure a Service.
type Options struct {
	// Clock dates the documents (Last-Modified, Expires); nil is the wall clock.
	Clock clock.Clock
	// Document describes the group versions the built-in documents do not.
	Document DocumentFunc
	// V2 describes them in the v2 document.
	V2 V2Func
	// Documents returns documents.bin; nil is the embedded one (natively; in
	// WebAssembly the host must give it).
	Documents func() ([]byte, error)
}

// Service serves the OpenAPI documents of one registry.
type Service struct {
	registry *api.Registry
	clock    clock.Clock
	document DocumentFunc
	v2       V2Func
	load     func() ([]byte, error) // documents.bin
	started  time.Time              // Last-Modified of the built-in documents

	mu  sync.Mutex
	set *documentSet // of the registry's generation set.generation

	v2Once          sync.Once
	v2JSON, v2Proto *document
}

// New returns the Service of reg's documents.
func New(reg *api.Registry, o Options) *Service {
	if o.Clock == nil {
		o.Clock = clock.Real
	}
	if o.Documents == nil {
		o.Documents = embeddedDocuments
	}
	return &Service{registry: reg, clock: o.Clock, document: o.Document, v2: o.V2, load: o.Documents, started: o.Clock.Now()}
}

// documentSet is the v3 documents of one generation of the registry: the
// built-in ones (their bodies unpacked on first use) and the extra ones.
type documentSet struct {
	generation uint64
	etags      map[string]string    // by path: what the index lists
	extra      map[string]*document // by path: documents from Options.Document
	builtin    map[string]*document // by path, filled on first use

	v2Paths, v2Definitions map[string]any // from Options.V2
	v2Once                 sync.Once
	v2JSON, v2Proto        *document // the v2 document with them, made on first use
}

func (s *Service) documents() *documentSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	gen := s.registry.Generation()
	if s.set != nil && s.set.generation == gen {
		return s.set
	}
	set := &documentSet{generation: gen, etags: map[string]string{}, extra: map[string]*document{}, builtin: map[string]*document{}}
	known := map[string]string{}
	for _, d := range builtin.v3 {
		known[d.path] = d.etag
	}
	add := func(p string) bool {
		if e, ok := known[p]; ok {
			set.etags[p] = e
			return true
		}
		return false
	}
	add("apis")
	add("version")
	for _, gv := range s.registry.GroupVersions() {
		group := "apis/" + gv.Group
		if gv.Group == "" {
			group = "api"
		}
		add(group)
		p := group + "/" + gv.Version
		if add(p) {
			continue
		}
		if s.v2 != nil {
			if paths, defs, ok := s.v2(gv, s.registry.Resources(gv)); ok {
				if set.v2Paths == nil {
					set.v2Paths, set.v2Definitions = map[string]any{}, map[string]any{}
				}
				maps.Copy(set.v2Paths, paths)
				maps.Copy(set.v2Definitions, defs)
			}
		}
		if s.document == nil {
			continue
		}
		body, ok := s.document(gv, s.registry.Resources(gv))
		if !ok {
			continue
		}
		if unpackBuiltins(s.load) == nil {
			body = withBuiltinSchemas(body)
		}
		d := &document{body: body, etag: etag(body), modified: s.clock.Now()}
		set.extra[p], set.etags[p] = d, d.etag
	}
	s.set = set
	return set
}

// v3Document returns the v3 document at p, or nil.
func (s *Service) v3Document(p string) (*document, error) {
	set := s.documents()
	if d := set.extra[p]; d != nil {
		return d, nil
	}
	e, ok := set.etags[p]
	if !ok {
		return nil, nil
	}
	if err := unpackBuiltins(s.load); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := set.builtin[p]
	if d == nil {
		d = &document{body: builtins.v3[p], etag: e, modified: s.started}
		set.builtin[p] = d
	}
	return d, nil
}

// v2Documents returns the v2 document as JSON and as protobuf: the built-in
// one, or, when served group versions add paths and definitions, the
// built-in one with them, made once per generation of the registry. (The
// protobuf form gets the definitions, not the paths: what kubectl reads of
// it. It is served with the JSON's ETag, as kube serves it.)
func (s *Service) v2Documents() (*document, *document, error) {
	if err := unpackBuiltins(s.load); err != nil {
		return nil, nil, err
	}
	s.v2Once.Do(func() {
		s.v2JSON = &document{body: builtins.v2, etag: builtin.v2.etag, modified: s.started}
		s.v2Proto = &document{body: builtins.v2Proto, etag: builtin.v2.etag, modified: s.started}
	})
	set := s.documents()
	if set.v2Paths == nil {
		return s.v2JSON, s.v2Proto, nil
	}
	var err error
	set.v2Once.Do(func() {
		var body []byte
		if body, err = withAdditions(builtins.v2, set.v2Paths, set.v2Definitions); err != nil {
			return
		}
		now := s.clock.Now()
		set.v2JSON = &document{body: body, etag: etag(body), modified: now}
		set.v2Proto = &document{body: withProtoDefinitions(builtins.v2Proto, set.v2Definitions), etag: set.v2JSON.etag, modified: now}
	})
	if set.v2JSON == nil {
		return nil, nil, fmt.Errorf("openapi: adding to the v2 document: %v", err)
	}
	return set.v2JSON, set.v2Proto, nil
}

// withAdditions is the v2 document doc with paths and defs among its own,
// written as tools/openapigen writes it (keys sorted, HTML not escaped).
func withAdditions(doc []byte, paths, defs map[string]any) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, err
	}
	for key, add := range map[string]map[string]any{"paths": paths, "definitions": defs} {
		var members map[string]json.RawMessage
		if err := json.Unmarshal(top[key], &members); err != nil {
			return nil, err
		}
		for name, v := range add {
			b, err := encodeJSON(v)
			if err != nil {
				return nil, err
			}
			members[name] = b
		}
		b, err := encodeJSON(members)
		if err != nil {
			return nil, err
		}
		top[key] = b
	}
	out, err := encodeJSON(top)
	return append(out, '\n'), err
}

// encodeJSON is v as JSON, HTML not escaped.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// etag is kube-openapi's ETag of a document.
func etag(b []byte) string { return fmt.Sprintf("%X", sha512.Sum512(b)) }

// ServeHTTP serves /openapi/v2, /openapi/v3 and /openapi/v3/{group version};
// any other path under /openapi is kube's plain-text 404. As kube, every method
// is answered.
func (s *Service) ServeHTTP(w web.ResponseWriter, r *web.Request) {
	switch p := r.URL.Path; {
	case p == "/openapi/v2":
		s.serveV2(w, r)
	case p == "/openapi/v3":
		s.serveIndex(w, r)
	case strings.HasPrefix(p, "/openapi/v3/"):
		s.serveV3(w, r, strings.TrimPrefix(p, "/openapi/v3/"))
	default:
		web.NotFound(w)
	}
}

// serveIndex answers the v3 index as kube-apiserver's aggregator does: built on
// every request, without an ETag, its Content-Type sniffed from the JSON.
func (s *Service) serveIndex(w web.ResponseWriter, r *web.Request) {
	type entry struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	}
	paths := map[string]entry{}
	for p, e := range s.documents().etags {
		paths[p] = entry{serverRelativeURL(p, e)}
	}
	body, _ := json.Marshal(map[string]any{"paths": paths})
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	serveContent(w, r, body, s.clock.Now())
}

// serverRelativeURL is a document's URL in the index: /openapi/v3/P?hash=ETAG.
func serverRelativeURL(p, etag string) string {
	u := url.URL{Path: path.Join("/openapi/v3", p), RawQuery: url.Values{"hash": {etag}}.Encode()}
	return u.String()
}

// serveV3 answers one group version's document. With ?hash= the answer is
// cached for a year (or, for an old hash, redirected to the current one).
func (s *Service) serveV3(w web.ResponseWriter, r *web.Request, p string) {
	d, err := s.v3Document(p)
	switch {
	case err != nil:
		w.WriteHeader(web.StatusInternalServerError)
		return
	case d == nil:
		w.WriteHeader(web.StatusNotFound)
		return
	}
	h := w.Header()
	h.Add("Vary", "Accept")
	if _, ok := encoding.PickMedia(r.Header.Get("Accept"), mediaJSON); !ok {
		// kube also serves the document as protobuf (gnostic's OpenAPIv3);
		// kubeplay does not, as no kubectl command asks for it.
		w.WriteHeader(web.StatusNotAcceptable)
		return
	}
	h.Set("Content-Type", mediaJSON)
	h.Set("Etag", `"`+d.etag+`"`)
	if hash := r.URL.Query().Get("hash"); hash != "" {
		if hash != d.etag {
			h.Set("Location", serverRelativeURL(p, d.etag))
			w.WriteHeader(web.StatusMovedPermanently)
			return
		}
		h.Set("Cache-Control", "public, immutable")
		h.Set("Expires", s.clock.Now().AddDate(1, 0, 0).UTC().Format(time.RFC1123))
	}
	serveContent(w, r, d.body, d.modified)
}

// serveV2 answers the v2 document, as JSON or protobuf by Accept, gzipped for a
// client that takes gzip (kube wraps this handler in a gzip handler).
func (s *Service) serveV2(w web.ResponseWriter, r *web.Request) {
	h := w.Header()
	h.Add("Vary", "Accept-Encoding")
	h.Add("Vary", "Accept")
	jsonDoc, protoDoc, err := s.v2Documents()
	if err != nil {
		w.WriteHeader(web.StatusInternalServerError)
		return
	}
	media, ok := encoding.PickMedia(r.Header.Get("Accept"), mediaJSON, mediaV2ProtoOldName, mediaV2Proto)
	if !ok {
		w.WriteHeader(web.StatusNotAcceptable)
		return
	}
	d := jsonDoc
	if media != mediaJSON {
		d, media = protoDoc, mediaV2Proto
	}
	h.Set("Content-Type", media)
	h.Set("Etag", `"`+d.etag+`"`)
	body := d.body
	if takesGzip(r) && len(body) >= gzipMinSize {
		h.Set("Content-Encoding", "gzip")
		body = d.gzip()
	}
	serveContent(w, r, body, d.modified)
}

// gzipMinSize is the size from which kube's gzip handler compresses.
const gzipMinSize = 1400

// takesGzip reads Accept-Encoding as kube's gzip handler does: a gzip coding
// whose q is above 0.
func takesGzip(r *web.Request) bool {
	for _, coding := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(coding, ";")
		if strings.TrimSpace(name) != "gzip" {
			continue
		}
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			q, _ = strconv.ParseFloat(v, 64)
		}
		return q > 0
	}
	return false
}

// httpTime is HTTP's date format (net/http's TimeFormat).
const httpTime = "Mon, 02 Jan 2006 15:04:05 GMT"

// serveContent answers as net/http's ServeContent does for the requests
// clients make: 304 when If-None-Match holds the ETag (412 for a method other
// than GET and HEAD) or, without If-None-Match, when If-Modified-Since is not
// before modified; otherwise the body with Last-Modified and Content-Length.
// Ranges are not served.
func serveContent(w web.ResponseWriter, r *web.Request, body []byte, modified time.Time) {
	h := w.Header()
	getOrHead := r.Method == web.MethodGet || r.Method == web.MethodHead
	notModified := false
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if etagListed(inm, h.Get("Etag")) {
			if !getOrHead {
				w.WriteHeader(web.StatusPreconditionFailed)
				return
			}
			notModified = true
		}
	} else if ims, err := time.Parse(httpTime, r.Header.Get("If-Modified-Since")); err == nil && getOrHead &&
		!modified.Truncate(time.Second).After(ims) {
		notModified = true
	}
	if notModified {
		h.Del("Content-Type")
		h.Del("Content-Length")
		h.Del("Content-Encoding")
		if h.Get("Etag") != "" {
			h.Del("Last-Modified")
		} else {
			h.Set("Last-Modified", modified.UTC().Format(httpTime))
		}
		w.WriteHeader(web.StatusNotModified)
		return
	}
	h.Set("Last-Modified", modified.UTC().Format(httpTime))
	if h.Get("Content-Encoding") == "" {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(web.StatusOK)
	if r.Method != web.MethodHead {
		_, _ = w.Write(body)
	}
}

// etagListed says whether an If-None-Match list names etag (weakly, as
// net/http compares), or is "*".
func etagListed(list, etag string) bool {
	if etag == "" {
		return false
	}
	for _, e := range strings.Split(list, ",") {
		e = strings.TrimPrefix(strings.TrimSpace(e), "W/")
		if e == "*" || e == strings.TrimPrefix(etag, "W/") {
			return true
		}
	}
	return false
}
