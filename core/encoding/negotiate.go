// Package encoding owns the representations the API speaks — JSON, YAML, CBOR
// and the Kubernetes protobuf envelope (core/encoding/protobuf) — and the one
// place where they are negotiated from Accept and Content-Type, with
// kube-apiserver's rules: the Accept clauses in its order (q-values, then
// specificity), the as/g/v conversion parameters (Table, PartialObjectMetadata),
// stream=watch, and its 406 and 415 answers.
package encoding

import (
	"mime"
	"sort"
	"strconv"
	"strings"
)

// Media is a serialization the server reads and writes.
type Media uint8

// The media the server serves, in kube-apiserver's order (the first is the
// default).
const (
	JSON Media = iota
	YAML
	Protobuf
	CBOR
)

var mediaTypes = [...]string{
	JSON:     "application/json",
	YAML:     "application/yaml",
	Protobuf: "application/vnd.kubernetes.protobuf",
	CBOR:     "application/cbor",
}

// ContentType is the media type of a single response or request body.
func (m Media) ContentType() string { return mediaTypes[m] }

// StreamContentType is the Content-Type of a watch in m; YAML has none.
func (m Media) StreamContentType() (string, bool) {
	switch m {
	case JSON:
		return "application/json", true
	case Protobuf:
		return mediaTypes[Protobuf] + ";stream=watch", true
	case CBOR:
		return "application/cbor-seq", true
	}
	return "", false
}

// streamAccepted is how a 406 for a watch lists what would have worked.
func (m Media) streamAccepted() (string, bool) {
	switch m {
	case JSON, Protobuf:
		return mediaTypes[m] + ";stream=watch", true
	case CBOR:
		return "application/cbor-seq", true
	}
	return "", false
}

// Conversion is a request to answer with another type than the resource's
// (the as, g and v parameters of an Accept clause).
type Conversion struct {
	Kind, Group, Version string
}

// MetaV1 reports whether the conversion targets meta.k8s.io/v1 or v1beta1, the
// only group versions that have Table and PartialObjectMetadata.
func (c Conversion) MetaV1() bool {
	return c.Group == "meta.k8s.io" && (c.Version == "v1" || c.Version == "v1beta1")
}

// Output is the negotiated representation of a response.
type Output struct {
	Media   Media
	Convert *Conversion // nil: the object as it is
	Pretty  bool        // the clause asked for pretty=1
}

// Endpoint says what the addressed endpoint can produce.
type Endpoint struct {
	// Protobuf is true for kinds that have a protobuf message (the built-ins),
	// false for custom resources (whose Status answers still may be
	// protobuf).
	Protobuf bool
	// Conversions allows as=Table and as=PartialObjectMetadata[List]; a Status
	// answer is never converted.
	Conversions bool
	// Watch: the answer is a stream of events.
	Watch bool
	// NoTable: the answer is never a Table: a watch list (initial events
	// ending in a bookmark), or a kind whose storage kube gives no table
	// convertor (the reviews, a Binding).
	NoTable bool
}

func (ep Endpoint) serves(m Media) bool { return m != Protobuf || ep.Protobuf }

// Accepted lists the media a 406 or 415 names, or with stream their watch
// forms: every medium, protobuf too where the endpoint's objects have no
// message (a custom resource's), as kube's serializers name them all.
func (ep Endpoint) Accepted(stream bool) []string {
	var out []string
	for m := JSON; m <= CBOR; m++ {
		if !stream {
			out = append(out, m.ContentType())
		} else if s, ok := m.streamAccepted(); ok {
			out = append(out, s)
		}
	}
	return out
}

// NotAcceptableError is the 406 answer: nothing in Accept can be produced.
type NotAcceptableError struct {
	Accepted []string
}

func (e *NotAcceptableError) Error() string {
	return "only the following media types are accepted: " + strings.Join(e.Accepted, ", ")
}

// UnsupportedMediaTypeError is the 415 answer to a request body the server cannot read.
type UnsupportedMediaTypeError struct {
	Accepted []string
}

func (e *UnsupportedMediaTypeError) Error() string {
	return "the body of the request was in an unknown format - accepted media types include: " + strings.Join(e.Accepted, ", ")
}

// acceptClause is one entry of an Accept header.
type acceptClause struct {
	typ, subtype string
	q            float64
	params       map[string]string
}

// parseAccept splits an Accept header as kube-apiserver's parser does: entries
// that are not type/subtype (or "*") are dropped, parameters are split at
// their first two "=" and ignored when nothing or something more follows, q is read as a float (a q of 0 still counts), and the entries
// are ordered by q and then by specificity.
func parseAccept(header string) []acceptClause {
	var clauses []acceptClause
	for _, part := range strings.Split(header, ",") {
		part = strings.Trim(part, " ")
		if part == "" {
			continue
		}
		rangePart, paramPart, _ := strings.Cut(part, ";")
		c := acceptClause{q: 1}
		typ, sub, hasSub := strings.Cut(rangePart, "/")
		c.typ = strings.Trim(typ, " ")
		switch {
		case !hasSub || sub == "":
			if c.typ != "*" {
				continue
			}
			c.subtype = "*"
		default:
			// Like parameters, the subtype ends at the next "/" and is dropped
			// when anything follows it.
			sub, rest, _ := strings.Cut(sub, "/")
			if rest != "" {
				continue
			}
			c.subtype = strings.Trim(sub, " ")
		}
		if paramPart != "" {
			c.params = map[string]string{}
			for _, p := range strings.Split(paramPart, ";") {
				k, after, _ := strings.Cut(p, "=")
				if after == "" {
					continue
				}
				v, rest, _ := strings.Cut(after, "=")
				if rest != "" {
					continue
				}
				k = strings.Trim(k, " ")
				if k == "q" {
					q, _ := strconv.ParseFloat(v, 32)
					c.q = q
				} else {
					c.params[k] = strings.Trim(v, " ")
				}
			}
		}
		clauses = append(clauses, c)
	}
	// The same (not strictly weak) order and the same sort as kube's parser, so
	// that ties between clauses fall the same way.
	sort.Sort(byPreference(clauses))
	return clauses
}

type byPreference []acceptClause

func (s byPreference) Len() int      { return len(s) }
func (s byPreference) Swap(i, j int) { s[i], s[j] = s[j], s[i] }
func (s byPreference) Less(i, j int) bool {
	a, b := s[i], s[j]
	return a.q > b.q || a.typ != "*" && b.typ == "*" || a.subtype != "*" && b.subtype == "*"
}

// NegotiateOutput picks the response representation for accept on ep. An empty
// Accept means JSON. When no clause can be served the error is a
// *NotAcceptableError.
func NegotiateOutput(accept string, ep Endpoint) (Output, error) {
	out, ok := negotiate(accept, ep)
	if !ok {
		return Output{}, &NotAcceptableError{Accepted: ep.Accepted(false)}
	}
	if ep.Watch {
		if _, ok := out.Media.StreamContentType(); !ok {
			return Output{}, &NotAcceptableError{Accepted: ep.Accepted(true)}
		}
	}
	return out, nil
}

// PickMedia returns the first of offers ("type/subtype") that a clause of
// accept matches, taking the clauses in kube's order ("*" matching any type or
// subtype); an empty accept is "*/*". It is how kube-openapi picks the form of
// an OpenAPI document. False when no clause matches an offer.
func PickMedia(accept string, offers ...string) (string, bool) {
	if accept == "" {
		accept = "*/*"
	}
	for _, c := range parseAccept(accept) {
		for _, o := range offers {
			typ, sub, _ := strings.Cut(o, "/")
			if (c.typ == typ || c.typ == "*") && (c.subtype == sub || c.subtype == "*") {
				return o, true
			}
		}
	}
	return "", false
}

func negotiate(accept string, ep Endpoint) (Output, bool) {
	if accept == "" {
		return Output{Media: JSON}, true
	}
	for _, c := range parseAccept(accept) {
		for m := JSON; m <= CBOR; m++ {
			typ, sub, _ := strings.Cut(m.ContentType(), "/")
			if !(c.typ == typ && (c.subtype == sub || c.subtype == "*") || c.typ == "*" && c.subtype == "*") {
				continue
			}
			if out, ok := clauseOptions(c, m, ep); ok {
				return out, true
			}
		}
	}
	return Output{}, false
}

// clauseOptions reads a clause's parameters for media m; false when the
// endpoint cannot honour them, so the next candidate is tried.
func clauseOptions(c acceptClause, m Media, ep Endpoint) (Output, bool) {
	out := Output{Media: m}
	for k, v := range c.params {
		switch k {
		case "as", "g", "v":
			if out.Convert == nil {
				out.Convert = &Conversion{}
			}
			switch k {
			case "as":
				out.Convert.Kind = v
			case "g":
				out.Convert.Group = v
			case "v":
				out.Convert.Version = v
			}
		case "stream":
			if _, ok := m.StreamContentType(); v != "" && (!ok || v != "watch") {
				return Output{}, false
			}
		case "sv":
			if v != "" && v != "v1" {
				return Output{}, false
			}
		case "pretty":
			out.Pretty = v == "1"
		}
	}
	if out.Convert == nil {
		return out, ep.serves(m)
	}
	if !ep.Conversions || !out.Convert.MetaV1() {
		return Output{}, false
	}
	switch out.Convert.Kind {
	case "Table":
		return out, (m == JSON || m == YAML) && !ep.NoTable
	case "PartialObjectMetadata", "PartialObjectMetadataList":
		return out, true
	}
	return Output{}, false
}

// NegotiateInput picks the media of a request body from its Content-Type (empty
// means JSON). An unknown or malformed type is a *UnsupportedMediaTypeError.
func NegotiateInput(contentType string, ep Endpoint) (Media, error) {
	if contentType == "" {
		return JSON, nil
	}
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		for m := JSON; m <= CBOR; m++ {
			if mt == m.ContentType() && ep.serves(m) {
				return m, nil
			}
		}
	}
	return 0, &UnsupportedMediaTypeError{Accepted: ep.Accepted(false)}
}
