package apiserver

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/encoding"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/encoding/table"
	"kubeplay/core/fieldvalidation"
	"kubeplay/core/gzipjoin"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/types"
	"kubeplay/core/web"
)

// reply is how one resource request is answered: the representation negotiated
// from its Accept header, whether the client takes gzip, and pretty JSON for
// humans. Every body a resource request sends goes through it.
type reply struct {
	out    encoding.Output
	gzip   bool
	pretty bool
	// accept and protobuf are kept to negotiate a Status answer when the
	// response was converted (a Status never is).
	accept   string
	protobuf bool
	// include is what the rows of a Table carry (includeObject).
	include table.IncludeObject
	now     func() time.Time
	// items caches stored objects in the binary media, for lists.
	store *registry.Store // the stored objects' binary encodings
}

// endpointFor says what a resource can be served as (no Table if never stored).
func endpointFor(res *api.Resource, watch bool) encoding.Endpoint {
	return encoding.Endpoint{Protobuf: protobufServed(res), Conversions: true, Watch: watch, NoTable: res.Virtual}
}

// negotiateReply reads the request's Accept and Accept-Encoding headers (and,
// for a Table, includeObject).
func (s *Server) negotiateReply(r *web.Request, res *api.Resource, watch bool) (reply, *apierrors.Status) {
	accept := r.Header.Get("Accept")
	out, err := encoding.NegotiateOutput(accept, endpointFor(res, watch))
	if err != nil {
		return reply{}, notAcceptable(err)
	}
	rep := reply{out: out, gzip: gzipjoin.Accepts(r.Header.Get("Accept-Encoding")), pretty: out.Media == encoding.JSON && (out.Pretty || prettyPrinted(r)),
		accept: accept, protobuf: protobufServed(res), now: s.cfg.Clock.Now, store: s.store}
	if out.Convert != nil && out.Convert.Kind == "Table" {
		if rep.include, err = table.ParseIncludeObject(r.URL.Query().Get("includeObject")); err != nil {
			return reply{}, apierrors.NewBadRequest(err.Error())
		}
	}
	return rep, nil
}

// statusOutput is the representation of a Status answer: the response's when it
// is not converted (the first clause without a conversion is the same for both),
// else the first clause that asks for no conversion.
func (rep reply) statusOutput() (encoding.Output, error) {
	if rep.out.Convert == nil && rep.protobuf {
		return rep.out, nil
	}
	return encoding.NegotiateOutput(rep.accept, statusEndpoint)
}

// statusEndpoint is what a Status answer can be: protobuf too, at a custom
// resource's endpoints as well (kube's serializers for them have Status's
// message).
var statusEndpoint = encoding.Endpoint{Protobuf: true}

// notAcceptable turns a negotiation error into its Status.
func notAcceptable(err error) *apierrors.Status {
	var ua *encoding.UnsupportedMediaTypeError
	if errors.As(err, &ua) {
		return apierrors.New(web.StatusUnsupportedMediaType, "UnsupportedMediaType", err.Error(), nil)
	}
	return apierrors.New(web.StatusNotAcceptable, "NotAcceptable", err.Error(), nil)
}

// prettyPrinted: kube-apiserver indents JSON for ?pretty=true and for the user
// agents of browsers, curl and wget.
func prettyPrinted(r *web.Request) bool {
	if strings.Contains(r.URL.RawQuery, "pretty") {
		if v := r.URL.Query().Get("pretty"); v != "" {
			b, _ := strconv.ParseBool(v)
			return b
		}
	}
	ua := r.UserAgent()
	return strings.HasPrefix(ua, "curl") || strings.HasPrefix(ua, "Wget") || strings.HasPrefix(ua, "Mozilla/5.0")
}

// send writes a complete body, compressed when the client takes gzip and the
// body is over the threshold.
func (rep reply) send(w web.ResponseWriter, code int, contentType string, body []byte) {
	if rep.gzip && len(body) > gzipjoin.Threshold {
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Content-Encoding", "gzip")
		h.Add("Vary", "Accept-Encoding")
		w.WriteHeader(code)
		zw, _ := gzip.NewWriterLevel(w, gzipjoin.Level) // kube's best speed
		_, _ = zw.Write(body)
		_ = zw.Close()
		return
	}
	writeBody(w, code, contentType, body)
}

// jsonDocument finishes a JSON document: indented for humans (without a final
// newline, as kube's pretty serializer), else one line ending in a newline.
func (rep reply) jsonDocument(doc []byte) []byte {
	if rep.pretty {
		var buf bytes.Buffer
		if json.Indent(&buf, doc, "", "  ") == nil {
			return buf.Bytes()
		}
	}
	return append(doc, '\n')
}

// encodeDocument turns a JSON document (with kind and apiVersion) into out's
// media.
func (rep reply) encodeDocument(media encoding.Media, doc []byte) ([]byte, error) {
	switch media {
	case encoding.YAML:
		return encoding.JSONToYAML(doc)
	case encoding.CBOR:
		obj, err := object.Decode(doc)
		if err != nil {
			return nil, err
		}
		return encoding.AppendCBOR(nil, obj)
	case encoding.Protobuf:
		return protobuf.EncodeDocument(doc)
	}
	return rep.jsonDocument(doc), nil
}

// writeObject answers with one stored object of res.
func (rep reply) writeObject(w web.ResponseWriter, code int, res *api.Resource, stored []byte) {
	doc := object.WithTypeMeta(registry.Viewed(res, stored), res.Kind, res.APIVersion())
	if c := rep.out.Convert; c != nil {
		var err error
		if doc, err = rep.convertObject(*c, res, stored, doc); err != nil {
			rep.writeStatus(w, apierrors.As(err))
			return
		}
	}
	body, err := rep.encodeDocument(rep.out.Media, doc)
	if err != nil {
		rep.writeStatus(w, apierrors.NewInternal(err))
		return
	}
	rep.send(w, code, rep.out.Media.ContentType(), body)
}

// writeList answers with a <Kind>List of stored items. JSON streams the stored
// bytes as they are, each handed to w without copying (the ResponseWriter
// buffers small writes), so a large list costs one copy into the connection and
// no large allocation; other media build the document.
func (rep reply) writeList(w web.ResponseWriter, res *api.Resource, meta listMeta, items []registry.Item) {
	if rep.out.Convert == nil {
		items = registry.ViewedItems(res, items) // Tables print the stored form, as kube prints its internal one
	}
	if (rep.out.Media == encoding.Protobuf || rep.out.Media == encoding.CBOR) && rep.out.Convert == nil {
		rep.writeBinaryList(w, res, meta, items)
		return
	}
	head, tail := listFrame(res, meta)
	size := len(head) + len(tail)
	for i, it := range items {
		size += len(it.Value)
		if i > 0 {
			size++ // the comma
		}
	}
	if rep.gzip && size > gzipjoin.Threshold && rep.out.Convert == nil && rep.out.Media == encoding.JSON && !rep.pretty {
		comma := []byte{','}
		rep.writeJoinedList(w, res, head, tail, items, func(i int, it registry.Item) ([]byte, []byte) {
			return comma[:min(i, 1)], unsafe.Slice(unsafe.StringData(it.Value), len(it.Value))
		})
		return
	}
	if rep.out.Convert != nil || rep.out.Media != encoding.JSON || rep.pretty || rep.gzip && size > gzipjoin.Threshold {
		doc, err := rep.listDocument(res, meta, items, head, tail, size)
		if err == nil {
			doc, err = rep.encodeDocument(rep.out.Media, doc)
		}
		if err != nil {
			rep.writeStatus(w, apierrors.As(err))
			return
		}
		rep.send(w, web.StatusOK, rep.out.Media.ContentType(), doc)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(size))
	w.WriteHeader(web.StatusOK)
	bw := web.NewBuffered(w, web.ListBuffer)
	defer bw.Release()
	_, _ = bw.Write(head)
	comma := []byte{','}
	for i, it := range items {
		if i > 0 {
			_, _ = bw.Write(comma)
		}
		// Writers must not modify what they are given, so the stored string's
		// bytes can be lent without a copy.
		if _, err := bw.Write(unsafe.Slice(unsafe.StringData(it.Value), len(it.Value))); err != nil {
			return
		}
	}
	_, _ = bw.Write(tail)
	_ = bw.Flush()
}

// writeJoinedList answers a list with gzip as kube-apiserver does (best
// speed, over the threshold), but compresses no item it compressed before:
// one gzip member (gzipjoin) of the head and tail as they are and each
// item's cached segment of the lead and body item(i, it) gives (a comma, a
// protobuf field's head; the item's bytes). The first item of a JSON list
// has no comma, unlike its cached segment: it is compressed afresh.
func (rep reply) writeJoinedList(w web.ResponseWriter, res *api.Resource, head, tail []byte, items []registry.Item, item func(int, registry.Item) (lead, body []byte)) {
	h := w.Header()
	h.Set("Content-Type", rep.out.Media.ContentType())
	h.Set("Content-Encoding", "gzip")
	h.Add("Vary", "Accept-Encoding")
	w.WriteHeader(web.StatusOK)
	bw := web.NewBuffered(w, web.ListBuffer)
	defer bw.Release()
	_ = gzipjoin.WriteList(bw, head, tail, len(items), func(i int) (gzipjoin.Segment, []byte, []byte) {
		lead, body := item(i, items[i])
		if i == 0 && rep.out.Media == encoding.JSON {
			return gzipjoin.Compress(lead, body), lead, body
		}
		return rep.store.Segment(rep.out.Media, res, items[i], lead, body), lead, body
	})
	_ = bw.Flush()
}

// listFrame is a JSON <Kind>List around its items: the head up to "items":[ and
// the tail after them.
func listFrame(res *api.Resource, meta listMeta) (head, tail []byte) {
	head = make([]byte, 0, 128)
	head = append(head, `{"kind":`...)
	head = strconv.AppendQuote(head, res.ListKind())
	head = append(head, `,"apiVersion":`...)
	head = strconv.AppendQuote(head, res.APIVersion())
	head = append(head, `,"metadata":`...)
	mb, _ := json.Marshal(meta)
	if res.Custom != nil && meta.Continue == "" { // kube's unstructured lists always write continue
		mb = append([]byte(`{"continue":""`+strings.Repeat(",", min(1, len(mb)-2))), mb[1:]...)
	}
	head = append(head, mb...)
	head = append(head, `,"items":[`...)
	return head, []byte("]}\n")
}

// listDocument builds the list as one JSON document of size bytes (without the
// final newline) from its frame, converted when the client asked for a Table
// or metadata only.
func (rep reply) listDocument(res *api.Resource, meta listMeta, items []registry.Item, head, tail []byte, size int) ([]byte, error) {
	if c := rep.out.Convert; c != nil {
		return rep.convertList(*c, res, meta, items)
	}
	doc := make([]byte, 0, size)
	doc = append(doc, head...)
	for i, it := range items {
		if i > 0 {
			doc = append(doc, ',')
		}
		// Items in a typed list carry no kind and apiVersion, in YAML as in JSON.
		doc = append(doc, it.Value...)
	}
	doc = append(doc, tail...)
	return doc[:len(doc)-1], nil
}

// writeStatus answers with an error Status in the negotiated representation.
func (rep reply) writeStatus(w web.ResponseWriter, st *apierrors.Status) {
	rep.sendStatus(w, st.Code, st)
}

// sendStatus answers with st and the HTTP status code. When the Accept header
// allows no representation of a Status, kube-apiserver answers in indented
// JSON (its WriteRawJSON): an error as it is, a success as the 406 it became.
func (rep reply) sendStatus(w web.ResponseWriter, code int, st *apierrors.Status) {
	setRetryAfter(w, st)
	out, err := rep.statusOutput()
	if err != nil {
		if code >= 200 && code < 400 {
			st = notAcceptable(err)
			code = st.Code
		}
		writeRawJSON(w, code, st)
		return
	}
	if out.Media == encoding.JSON && !rep.pretty {
		writeJSON(w, code, st)
		return
	}
	doc, err := json.Marshal(st)
	if err != nil {
		writeStatus(w, st)
		return
	}
	body, err := rep.encodeDocument(out.Media, doc)
	if err != nil {
		writeJSON(w, code, st)
		return
	}
	rep.send(w, code, out.Media.ContentType(), body)
}

// writeEarlyStatus answers st before the answer's representation is known, as
// kube-apiserver's ErrorNegotiated does: in the first representation of a
// Status the Accept header allows, else in indented JSON.
func writeEarlyStatus(w web.ResponseWriter, r *web.Request, st *apierrors.Status) {
	out, err := encoding.NegotiateOutput(r.Header.Get("Accept"), statusEndpoint)
	if err != nil {
		setRetryAfter(w, st)
		writeRawJSON(w, st.Code, st)
		return
	}
	// out is a Status's representation already (protobuf allowed).
	rep := reply{out: out, gzip: gzipjoin.Accepts(r.Header.Get("Accept-Encoding")), pretty: out.Media == encoding.JSON && (out.Pretty || prettyPrinted(r)), protobuf: true}
	rep.sendStatus(w, st.Code, st)
}

// writeRouterStatus is writeEarlyStatus for a method no route of the path
// takes: kube's router answers it through serializers without CBOR, so a
// CBOR Accept gets the raw JSON of a failed negotiation.
func writeRouterStatus(w web.ResponseWriter, r *web.Request, st *apierrors.Status) {
	if out, err := encoding.NegotiateOutput(r.Header.Get("Accept"), statusEndpoint); err == nil && out.Media == encoding.CBOR {
		writeRawJSON(w, st.Code, st)
		return
	}
	writeEarlyStatus(w, r, st)
}

// writeRawJSON answers with st in indented JSON, as kube-apiserver does when it
// has no other representation for it.
func writeRawJSON(w web.ResponseWriter, code int, st *apierrors.Status) {
	b, _ := json.MarshalIndent(st, "", "  ")
	writeBody(w, code, "application/json", b)
}

func setRetryAfter(w web.ResponseWriter, st *apierrors.Status) {
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
}

// isJSONBody: the request body is JSON (or its Content-Type is absent).
func isJSONBody(r *web.Request) bool {
	media, err := encoding.NegotiateInput(r.Header.Get("Content-Type"), encoding.Endpoint{})
	return err == nil && media == encoding.JSON
}

// decodeBody reads a request body for res in the media its Content-Type names
// into the JSON object form of res's kind, then does what validation says
// with the unknown and duplicate fields kube's strict decoding finds in it:
// warnings, or (Strict) kube's 400.
func decodeBody(r *web.Request, res *api.Resource, body []byte, validation fieldvalidation.Directive) (object.Object, error) {
	if err := checkBodyKind(r, res, body, validation); err != nil {
		return nil, err
	}
	obj, err := decodeBodyAs(r, res, res.Version, res.APIVersion(), res.Kind, res.Kind, body)
	if err != nil || !validation.Checks() {
		return obj, err
	}
	if err := validation.Apply(r.Context(), strictErrors(r, res, body)); err != nil {
		return nil, decodeError(res.Version, res.Kind, res.Kind, err, body)
	}
	return obj, nil
}

// checkBodyKind answers, as kube-apiserver does, a body for a built-in kind
// that names another kind or version (what it leaves out is res's): one kube
// has no type for it cannot decode; another it decodes (strictly, as
// validation says, as that kind), then cannot convert.
func checkBodyKind(r *web.Request, res *api.Resource, body []byte, validation fieldvalidation.Directive) error {
	if !types.Known(res.APIVersion(), res.Kind) {
		return nil
	}
	apiVersion, kind, ok := bodyKind(r, res, body)
	if !ok {
		return nil // the body's decoding says what is wrong
	}
	kind, apiVersion = cmp.Or(kind, res.Kind), cmp.Or(apiVersion, res.APIVersion())
	if apiVersion == res.APIVersion() && kind == res.Kind {
		return nil
	}
	version := apiVersion[strings.LastIndexByte(apiVersion, '/')+1:]
	if !types.Known(apiVersion, kind) {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: no kind %q is registered for version %q in scheme %q",
			kind, version, res.Kind, kind, apiVersion, "pkg/runtime/scheme.go:100"))
	}
	if _, err := decodeBodyAs(r, res, version, apiVersion, kind, res.Kind, body); err != nil {
		return err
	}
	if kind == res.Kind && types.SharedInternalType(apiVersion, res.APIVersion(), kind) {
		if validation.Checks() {
			if err := validation.Apply(r.Context(), strictErrorsAs(r, res, apiVersion, kind, body)); err != nil {
				return decodeError(version, kind, res.Kind, err, body)
			}
		}
		// Converted, refused by the handler's check.
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", apiVersion, res.APIVersion()))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: converting (%s) to (%s): unknown conversion",
		kind, version, res.Kind, types.GoType(apiVersion, kind), goType(res, false)[1:]))
}

// bodyKind reads the apiVersion and kind a body names, as kube's serializers
// first do, and whether it could.
func bodyKind(r *web.Request, res *api.Resource, body []byte) (apiVersion, kind string, ok bool) {
	media, err := encoding.NegotiateInput(r.Header.Get("Content-Type"), endpointFor(res, false))
	if err != nil {
		return "", "", false
	}
	doc := body
	switch media {
	case encoding.Protobuf:
		apiVersion, kind, _, err := protobuf.ParseEnvelope(body)
		return apiVersion, kind, err == nil
	case encoding.CBOR:
		m, err := encoding.DecodeCBOR(body)
		apiVersion, _ = m["apiVersion"].(string)
		kind, _ = m["kind"].(string)
		return apiVersion, kind, err == nil
	case encoding.YAML:
		if doc, err = encoding.YAMLToJSON(body); err != nil {
			return "", "", false
		}
	}
	var tm struct{ APIVersion, Kind string }
	err = json.Unmarshal(doc, &tm)
	return tm.APIVersion, tm.Kind, err == nil
}

// strictErrors are the unknown and duplicate fields kube's strict decoding
// finds in a body decodeBodyAs read: for YAML the keys given twice in a
// mapping first, then what the JSON holds. Protobuf bodies have none (kube's
// protobuf decoding drops unknown fields in every mode), nor, until custom
// resources have schemas, bodies of kinds without a Go type.
func strictErrors(r *web.Request, res *api.Resource, body []byte) []error {
	if res.Custom != nil {
		return customStrictErrors(r, res, body)
	}
	return strictErrorsAs(r, res, res.APIVersion(), res.Kind, body)
}

// strictErrorsAs are strictErrors of a body read as kind in apiVersion (a
// built-in kind) at res's endpoint.
func strictErrorsAs(r *web.Request, res *api.Resource, apiVersion, kind string, body []byte) []error {
	if !types.Known(apiVersion, kind) {
		return nil
	}
	media, _ := encoding.NegotiateInput(r.Header.Get("Content-Type"), endpointFor(res, false))
	switch media {
	case encoding.YAML:
		var errs []error
		if err := encoding.YAMLStrictError(body); err != nil {
			errs = append(errs, err)
		}
		doc, _ := encoding.YAMLToJSON(body)
		return append(errs, types.StrictJSON(apiVersion, kind, doc)...)
	case encoding.CBOR:
		if err := types.StrictCBOR(apiVersion, kind, body); err != nil {
			return []error{err}
		}
		return nil
	case encoding.Protobuf:
		return nil
	}
	return types.StrictJSON(apiVersion, kind, body)
}

// customStrictErrors are the fields of a custom object's body its schema
// does not know (which pruning drops), and for YAML the keys given twice.
func customStrictErrors(r *web.Request, res *api.Resource, body []byte) []error {
	var errs []error
	media, _ := encoding.NegotiateInput(r.Header.Get("Content-Type"), endpointFor(res, false))
	obj, err := decodeBodyAs(r, res, res.Version, res.APIVersion(), res.Kind, res.Kind, body)
	if media == encoding.YAML {
		if e := encoding.YAMLStrictError(body); e != nil {
			errs = append(errs, e)
		}
	}
	if err != nil {
		return errs
	}
	for _, p := range res.Custom.Schema.Prune(obj) {
		errs = append(errs, fmt.Errorf("unknown field %q", p))
	}
	return errs
}

// decodeBodyAs reads a request body for res into the JSON object form of kind
// in apiVersion (version without its group), for an endpoint of target kind
// (which kube's messages name); bodies kube-apiserver could not
// read are 415 or 400. A built-in kind's body is read into its Go type as kube
// reads it: a value of the wrong type is kube's 400, fields the type does not
// have are dropped.
func decodeBodyAs(r *web.Request, res *api.Resource, version, apiVersion, kind, target string, body []byte) (object.Object, error) {
	media, err := encoding.NegotiateInput(r.Header.Get("Content-Type"), endpointFor(res, false))
	if err != nil {
		return nil, notAcceptable(err)
	}
	typed := types.Known(apiVersion, kind)
	doc := body
	switch media {
	case encoding.YAML:
		if doc, err = encoding.YAMLToJSON(body); err != nil {
			return nil, unrecognized(kind, err, body)
		}
	case encoding.CBOR:
		if typed {
			obj, err := types.DecodeCBOR(apiVersion, kind, body)
			return obj, decodeError(version, kind, target, err, body)
		}
		obj, err := encoding.DecodeCBOR(body)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v", kind, err))
		}
		return obj, nil
	case encoding.Protobuf:
		obj, err := decodeProtobuf(version, kind, target, body)
		if err != nil {
			return nil, err
		}
		// Typed already, but protobuf carries times and free-form JSON that
		// JSON cannot serve: read the object as its JSON body would be (a
		// kind typed in protobuf alone, the definition, as it is).
		apiVersion, kind := obj["apiVersion"].(string), obj["kind"].(string)
		if !types.Known(apiVersion, kind) {
			return obj, nil
		}
		if doc, err = json.Marshal(obj); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		obj, err = types.DecodeJSON(apiVersion, kind, doc)
		return obj, decodeError(version, kind, target, err, body)
	}
	if typed {
		obj, err := types.DecodeJSON(apiVersion, kind, doc)
		return obj, decodeError(version, kind, target, err, body)
	}
	obj, err := object.Decode(doc)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): couldn't get version/kind; json parse error: %v (%s)",
			kind, err, summarizeBody(body)))
	}
	return obj, nil
}

// decodeError is kube's answer to a body it could not decode into kind for an
// endpoint of target kind: an unrecognized object when the body's kind could
// not be read, else an object it cannot handle.
func decodeError(version, kind, target string, err error, body []byte) error {
	var kindErr *types.KindError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &kindErr):
		return unrecognized(kind, err, body)
	}
	return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", kind, version, target, err))
}

// unrecognized is kube's answer to a body whose kind it could not read.
func unrecognized(kind string, err error, body []byte) error {
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", kind, err, summarizeBody(body)))
}

// summarizeBody is how kube-apiserver quotes a body it could not read: up to 30
// bytes, as text when it starts like a JSON object, else in hex.
func summarizeBody(body []byte) string {
	const max = 30
	short, more := body, ""
	if len(body) > max {
		short, more = body[:max], " ..."
	}
	switch {
	case len(body) == 0:
		return "<empty>"
	case body[0] == '{':
		return string(short) + more
	}
	return hex.EncodeToString(short) + more
}

// watchCodec writes a watch's events in the negotiated representation. Events
// are encoded once per representation, however many watchers share it.
type watchCodec struct {
	rep reply
	res *api.Resource
	key string // the representation, for Event.Encoded
	// table prints each event as a Table (as=Table): the first with the column
	// definitions, so it is per watch and not shared.
	table *table.Watch
	// build encodes an event the first time a watcher of this representation
	// asks for it (made once per watch, not per event).
	build func(*registry.Event) []byte
}

func newWatchCodec(t target) *watchCodec {
	key := t.rep.out.Media.ContentType()
	if c := t.rep.out.Convert; c != nil {
		key += ";as=" + c.Kind + ";v=" + c.Version
	}
	if t.res.View != nil || t.res.Custom != nil {
		key += ";v=" + t.res.APIVersion() // an event's encodings are cached per form: a view's, a custom resource's version
	}
	c := &watchCodec{rep: t.rep, res: t.res, key: key}
	switch conv := t.rep.out.Convert; {
	case conv != nil && conv.Kind == "Table":
		c.table = &table.Watch{Printer: printerFor(t.res), Version: conv.Version, Include: t.rep.include}
	case t.rep.out.Media == encoding.JSON && conv == nil && t.res.View == nil && t.res.Custom == nil:
		c.key = "json"
		c.build = func(e *registry.Event) []byte { return jsonEventFrame(c.res, e) }
	default:
		c.build = c.encodeEvent
	}
	return c
}

// start sends the response header of the stream.
func (c *watchCodec) start(w web.ResponseWriter) {
	ct, _ := c.rep.out.Media.StreamContentType()
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Transfer-Encoding", "chunked")
	w.WriteHeader(web.StatusOK)
}

// event is e's frame.
func (c *watchCodec) event(e *registry.Event) []byte {
	if c.table != nil {
		return c.tableEvent(e)
	}
	return e.Encoded(c.key, c.build)
}

// encodeEvent encodes e in the watch's media, converted if asked for.
func (c *watchCodec) encodeEvent(e *registry.Event) []byte {
	if e.Type == registry.Bookmark {
		return c.frame(string(e.Type), c.bookmark(e.Rev, false))
	}
	doc := object.WithTypeMeta(registry.Viewed(c.res, e.Object), c.res.Kind, c.res.APIVersion())
	if conv := c.rep.out.Convert; conv != nil && conv.Kind != "PartialObjectMetadataList" {
		// A conversion that fails leaves the object as it is, as kube's watch does
		// (PartialObjectMetadataList never applies to a single object).
		if converted, err := c.rep.convertObject(*conv, c.res, e.Object, doc); err == nil {
			doc = converted
		}
	}
	return c.frame(string(e.Type), doc)
}

// tableEvent is e's object printed as a one-row Table; like kube-apiserver, a
// bookmark's object (only a resourceVersion) is printed too.
func (c *watchCodec) tableEvent(e *registry.Event) []byte {
	stored := e.Object
	if e.Type == registry.Bookmark {
		stored = []byte(`{"metadata":{"resourceVersion":"` + strconv.FormatInt(e.Rev, 10) + `"}}`)
	}
	obj, err := object.Decode(stored)
	if err != nil {
		return c.internalError(string(e.Type), err)
	}
	doc, err := c.table.Append(nil, table.Item{Object: obj, Raw: registry.Viewed(c.res, stored), Kind: c.res.Kind, APIVersion: c.res.APIVersion()}, c.rep.now())
	if err != nil {
		return c.internalError(string(e.Type), err)
	}
	return c.frame(string(e.Type), doc)
}

// bookmark is the object of a BOOKMARK event, its list blueprint (on the
// end-of-initial-events bookmark) in the stream's media.
func (c *watchCodec) bookmark(rev int64, initialEnd bool) []byte {
	blueprint := ""
	if initialEnd {
		blueprint = listBlueprint(c.res, c.rep.out.Media)
	}
	return bookmarkObject(c.res, rev, blueprint)
}

// frame is one WatchEvent of type typ whose object is the JSON document doc.
func (c *watchCodec) frame(typ string, doc []byte) []byte {
	switch c.rep.out.Media {
	case encoding.CBOR:
		obj, err := object.Decode(doc)
		if err == nil {
			var raw, b []byte
			if raw, err = encoding.AppendCBOR(nil, obj); err == nil {
				if b, err = encoding.AppendCBORWatchEvent(nil, typ, raw); err == nil {
					return b
				}
			}
		}
		return c.internalError(typ, err)
	case encoding.Protobuf:
		b, err := protobuf.WatchFrame(typ, doc)
		if err != nil {
			return c.internalError(typ, err)
		}
		return b
	}
	return watchFrame(nil, typ, doc)
}

// internalError is the frame sent in place of an event that cannot be encoded.
func (c *watchCodec) internalError(typ string, err error) []byte {
	st, _ := json.Marshal(apierrors.NewInternal(fmt.Errorf("unable to encode watch object of type %s: %v", typ, err)))
	if c.rep.out.Media == encoding.JSON {
		return watchFrame(nil, "ERROR", st)
	}
	return c.frame("ERROR", st)
}

// writeInitialEnd sends the bookmark that tells a WatchList client its initial
// events are complete.
func (c *watchCodec) writeInitialEnd(w web.ResponseWriter, rev int64) error {
	if _, err := w.Write(c.frame(string(registry.Bookmark), c.bookmark(rev, true))); err != nil {
		return err
	}
	return web.Flush(w)
}
