package xds

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/xds/envoypb"
)

// The discovery protocol's messages (envoy.service.discovery.v3), as the
// server reads and writes them. Requests are decoded from the wire format
// (gRPC) or from proto JSON (HTTP, through envoypb's encoder, which checks
// them and names the field of an error); responses are written in either
// form from resources encoded once per object version (Resource), so a push
// re-encodes nothing that did not change.

// Node is what a request says of the client (config.core.v3.Node): the
// fields the server uses and shows.
type Node struct {
	ID        string `json:"id,omitempty"`
	Cluster   string `json:"cluster,omitempty"`
	UserAgent string `json:"userAgentName,omitempty"`
	// DynamicParameters are the node's dynamic parameters per type URL
	// (node.dynamic_parameters), used for names subscribed without a locator.
	DynamicParameters map[string]map[string]string `json:"dynamicParameters,omitempty"`
}

// Locator is a subscribed name with its dynamic parameters (ResourceLocator).
type Locator struct {
	Name   string
	Params map[string]string
}

// ErrorDetail is a NACK's google.rpc.Status.
type ErrorDetail struct {
	Code    int32
	Message string
}

// Request is a DiscoveryRequest (state of the world).
type Request struct {
	VersionInfo   string
	Node          *Node
	ResourceNames []string
	Locators      []Locator
	TypeURL       string
	ResponseNonce string
	ErrorDetail   *ErrorDetail

	done chan<- error // told when the request is handled (HTTP streams)
}

// DeltaRequest is a DeltaDiscoveryRequest.
type DeltaRequest struct {
	Node                    *Node
	TypeURL                 string
	Subscribe, Unsubscribe  []string
	SubscribeLocators       []Locator
	UnsubscribeLocators     []Locator
	InitialResourceVersions map[string]string
	ResponseNonce           string
	ErrorDetail             *ErrorDetail

	done chan<- error // told when the request is handled (HTTP streams)
}

// Response is a DiscoveryResponse. Heartbeat responses carry their
// resources without bodies, to refresh their TTLs.
type Response struct {
	VersionInfo  string
	Resources    []*Resource
	Heartbeat    bool
	TypeURL      string
	Nonce        string
	ControlPlane string
}

// DeltaResponse is a DeltaDiscoveryResponse.
type DeltaResponse struct {
	SystemVersionInfo string
	Resources         []*Resource
	Heartbeat         bool
	TypeURL           string
	Removed           []Removed
	Nonce             string
	ControlPlane      string
}

// Removed is a name in a delta response's removed_resources, with the
// constraints of the variant removed when it had some (removed_resource_names).
type Removed struct {
	Name        string
	Constraints *Constraints
}

// handled tells whoever waits for the request how its handling went, and
// returns what ends the stream: err, but for a request refused over a limit
// (which changed nothing) whose sender was told, on an HTTP stream; gRPC has
// no answer to one message but the status that ends its stream.
func handled(done chan<- error, err error) error {
	if done == nil {
		return err
	}
	done <- err
	if e := (*Error)(nil); errors.As(err, &e) && e.Code == ResourceExhausted {
		return nil
	}
	return err
}

// errMalformed wraps every decoding error.
var errMalformed = errors.New("malformed discovery request")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}

// fieldsOf calls fn for each field of a message's wire encoding; fn returns
// how many bytes of the value it consumed (protowire's), negative on error,
// 0 to skip it (unknown fields, and known ones with another wire type, which
// protobuf keeps as unknown).
func fieldsOf(b []byte, fn func(num protowire.Number, typ protowire.Type, b []byte) int) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return malformed("%v", protowire.ParseError(n))
		}
		b = b[n:]
		m := fn(num, typ, b)
		if m == 0 {
			m = protowire.ConsumeFieldValue(num, typ, b)
		}
		if m < 0 {
			return malformed("field %d: %v", num, protowire.ParseError(m))
		}
		b = b[m:]
	}
	return nil
}

// str and bytesField read one value of the expected wire type into dst, and
// skip a value of another.
func str(typ protowire.Type, b []byte, dst *string) int {
	if typ != protowire.BytesType {
		return 0
	}
	v, n := protowire.ConsumeBytes(b)
	if n >= 0 {
		*dst = string(v)
	}
	return n
}

func bytesField(typ protowire.Type, b []byte, dst *[]byte) int {
	if typ != protowire.BytesType {
		return 0
	}
	v, n := protowire.ConsumeBytes(b)
	*dst = v
	return n
}

func appendStr(dst *[]string) func(typ protowire.Type, b []byte) int {
	return func(typ protowire.Type, b []byte) int {
		var s string
		n := str(typ, b, &s)
		if n > 0 {
			*dst = append(*dst, s)
		}
		return n
	}
}

// DecodeRequest reads a DiscoveryRequest in the wire format.
func DecodeRequest(b []byte) (*Request, error) {
	r := &Request{}
	err := fieldsOf(b, func(num protowire.Number, typ protowire.Type, b []byte) int {
		switch num {
		case 1:
			return str(typ, b, &r.VersionInfo)
		case 2:
			return sub(typ, b, func(b []byte) error { return decodeNode(b, merged(&r.Node)) })
		case 3:
			return appendStr(&r.ResourceNames)(typ, b)
		case 4:
			return str(typ, b, &r.TypeURL)
		case 5:
			return str(typ, b, &r.ResponseNonce)
		case 6:
			return sub(typ, b, func(b []byte) error { return decodeStatus(b, merged(&r.ErrorDetail)) })
		case 7:
			return sub(typ, b, func(b []byte) error { return decodeLocator(b, &r.Locators) })
		}
		return 0
	})
	return r, err
}

// DecodeDeltaRequest reads a DeltaDiscoveryRequest in the wire format.
func DecodeDeltaRequest(b []byte) (*DeltaRequest, error) {
	r := &DeltaRequest{}
	err := fieldsOf(b, func(num protowire.Number, typ protowire.Type, b []byte) int {
		switch num {
		case 1:
			return sub(typ, b, func(b []byte) error { return decodeNode(b, merged(&r.Node)) })
		case 2:
			return str(typ, b, &r.TypeURL)
		case 3:
			return appendStr(&r.Subscribe)(typ, b)
		case 4:
			return appendStr(&r.Unsubscribe)(typ, b)
		case 5:
			return sub(typ, b, func(b []byte) error {
				if r.InitialResourceVersions == nil {
					r.InitialResourceVersions = map[string]string{}
				}
				return decodeStringEntry(b, r.InitialResourceVersions)
			})
		case 6:
			return str(typ, b, &r.ResponseNonce)
		case 7:
			return sub(typ, b, func(b []byte) error { return decodeStatus(b, merged(&r.ErrorDetail)) })
		case 8:
			return sub(typ, b, func(b []byte) error { return decodeLocator(b, &r.SubscribeLocators) })
		case 9:
			return sub(typ, b, func(b []byte) error { return decodeLocator(b, &r.UnsubscribeLocators) })
		}
		return 0
	})
	return r, err
}

// merged is the message *p, made when absent: a message field that occurs
// more than once is merged, as protobuf does.
func merged[T any](p **T) *T {
	if *p == nil {
		*p = new(T)
	}
	return *p
}

// sub decodes an embedded message with fn.
func sub(typ protowire.Type, b []byte, fn func([]byte) error) int {
	var v []byte
	n := bytesField(typ, b, &v)
	if n <= 0 {
		return n
	}
	if fn(v) != nil {
		return -1
	}
	return n
}

func decodeNode(b []byte, node *Node) error {
	return fieldsOf(b, func(num protowire.Number, typ protowire.Type, b []byte) int {
		switch num {
		case 1:
			return str(typ, b, &node.ID)
		case 2:
			return str(typ, b, &node.Cluster)
		case 6:
			return str(typ, b, &node.UserAgent)
		case 12: // map<string, xds.core.v3.ContextParams>
			return sub(typ, b, func(b []byte) error {
				var typeURL string
				params := map[string]string{}
				err := fieldsOf(b, func(num protowire.Number, typ protowire.Type, b []byte) int {
					switch num {
					case 1:
						return str(typ, b, &typeURL)
					case 2:
						return sub(typ, b, func(b []byte) error {
							return fieldsOf(b, func(num protowire.Number, typ protowire.Type, b []byte) int {
								if num == 1 {
									return sub(typ, b, func(b []byte) error { return decodeStringEntry(b, params) })
								}
								return 0
							})
						})
					}
					return 0
				})
				if node.DynamicParameters == nil {
					node.DynamicParameters = map[string]map[string]string{}
				}
				node.DynamicParameters[typeURL] = params
				return err
			})
		}
		return 0
	})
}

// decodeStringEntry reads one map<string, string> entry into m.
func decodeStringEntry(b []byte, m map[string]string) error {
	var k, v string
	err := fieldsOf(b, func(num protowire.Number, typ protowire.Type, b []byte) int {
		switch num {
		case 1:
			return str(typ, b, &k)
		case 2:
			return str(typ, b, &v)
		}
		return 0
	})
	m[k] = v
	return err
}

func decodeStatus(b []byte, st *ErrorDetail) error {
	return fieldsOf(b, func(num protowire.Number, typ protowire.Type, b []byte) int {
		switch num {
		case 1:
			if typ != protowire.VarintType {
				return 0
			}
			v, n := protowire.ConsumeVarint(b)
			st.Code = int32(v)
			return n
		case 2:
			return str(typ, b, &st.Message)
		}
		return 0
	})
}

func decodeLocator(b []byte, out *[]Locator) error {
	l := Locator{}
	err := fieldsOf(b, func(num protowire.Number, typ protowire.Type, b []byte) int {
		switch num {
		case 1:
			return str(typ, b, &l.Name)
		case 2:
			return sub(typ, b, func(b []byte) error {
				if l.Params == nil {
					l.Params = map[string]string{}
				}
				return decodeStringEntry(b, l.Params)
			})
		}
		return 0
	})
	*out = append(*out, l)
	return err
}

// DecodeRequestJSON reads a DiscoveryRequest in proto JSON; a malformed one
// is an error naming its fields.
func DecodeRequestJSON(data []byte) (*Request, error) {
	b, err := jsonToWire("envoy.service.discovery.v3.DiscoveryRequest", data)
	if err != nil {
		return nil, err
	}
	return DecodeRequest(b)
}

// DecodeDeltaRequestJSON reads a DeltaDiscoveryRequest in proto JSON.
func DecodeDeltaRequestJSON(data []byte) (*DeltaRequest, error) {
	b, err := jsonToWire("envoy.service.discovery.v3.DeltaDiscoveryRequest", data)
	if err != nil {
		return nil, err
	}
	return DecodeDeltaRequest(b)
}

func jsonToWire(message string, data []byte) ([]byte, error) {
	v, err := object.DecodeValue(data)
	if err != nil {
		return nil, malformed("%v", err)
	}
	b, errs := envoypb.Lookup(message).Encode(nil, v, field.NewPath("request"))
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return nil, malformed("%s", strings.Join(msgs, "; "))
	}
	return b, nil
}

// AppendWire appends r in the wire format.
func (r *Response) AppendWire(b []byte) []byte {
	b = appendString(b, 1, r.VersionInfo)
	for _, res := range r.Resources {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, res.sotwAny(r.Heartbeat))
	}
	b = appendString(b, 4, r.TypeURL)
	b = appendString(b, 5, r.Nonce)
	return appendControlPlane(b, 6, r.ControlPlane)
}

// AppendWire appends r in the wire format.
func (r *DeltaResponse) AppendWire(b []byte) []byte {
	b = appendString(b, 1, r.SystemVersionInfo)
	for _, res := range r.Resources {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		if r.Heartbeat {
			b = protowire.AppendBytes(b, res.heartbeat)
		} else {
			b = protowire.AppendBytes(b, res.delta)
		}
	}
	b = appendString(b, 4, r.TypeURL)
	b = appendString(b, 5, r.Nonce)
	for _, rm := range r.Removed {
		b = appendString(b, 6, rm.Name)
	}
	b = appendControlPlane(b, 7, r.ControlPlane)
	for _, rm := range r.Removed {
		if rm.Constraints != nil {
			b = protowire.AppendTag(b, 8, protowire.BytesType)
			b = protowire.AppendBytes(b, appendResourceName(nil, rm.Name, rm.Constraints))
		}
	}
	return b
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendControlPlane(b []byte, num protowire.Number, id string) []byte {
	if id == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, appendString(nil, 1, id))
}

// appendResourceName appends a ResourceName's fields.
func appendResourceName(b []byte, name string, c *Constraints) []byte {
	b = appendString(b, 1, name)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	return protowire.AppendBytes(b, c.wire)
}

// JSON is r in proto JSON, as a value for encoding/json.
func (r *Response) JSON() map[string]any {
	out := map[string]any{"versionInfo": r.VersionInfo, "typeUrl": r.TypeURL, "nonce": r.Nonce}
	resources := make([]any, len(r.Resources))
	for i, res := range r.Resources {
		resources[i] = res.sotwJSON(r.Heartbeat)
	}
	out["resources"] = resources
	if r.ControlPlane != "" {
		out["controlPlane"] = map[string]any{"identifier": r.ControlPlane}
	}
	return out
}

// JSON is r in proto JSON, as a value for encoding/json.
func (r *DeltaResponse) JSON() map[string]any {
	out := map[string]any{"systemVersionInfo": r.SystemVersionInfo, "typeUrl": r.TypeURL, "nonce": r.Nonce}
	resources := make([]any, len(r.Resources))
	for i, res := range r.Resources {
		resources[i] = res.deltaJSON(r.Heartbeat)
	}
	out["resources"] = resources
	if len(r.Removed) > 0 {
		var names []any
		var withConstraints []any
		for _, rm := range r.Removed {
			names = append(names, rm.Name)
			if rm.Constraints != nil {
				withConstraints = append(withConstraints, map[string]any{"name": rm.Name, "dynamicParameterConstraints": rm.Constraints.json})
			}
		}
		out["removedResources"] = names
		if withConstraints != nil {
			out["removedResourceNames"] = withConstraints
		}
	}
	if r.ControlPlane != "" {
		out["controlPlane"] = map[string]any{"identifier": r.ControlPlane}
	}
	return out
}

// nonces are a stream's response nonces: 1, 2, 3, ...
type nonces int64

func (n *nonces) next() string {
	*n++
	return strconv.FormatInt(int64(*n), 10)
}
