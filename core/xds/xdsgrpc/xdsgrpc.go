// Package xdsgrpc serves core/xds over gRPC, as Envoy and grpc-go's xDS
// client reach a control plane: the aggregated discovery service and the
// per-type services of LDS, RDS, CDS, EDS and SDS, each with its state of
// the world, delta and fetch methods. Messages pass through as bytes (a
// codec that copies them), so core/xds decodes requests and writes
// responses from the encodings it keeps, and nothing is encoded twice.
package xdsgrpc

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"

	"kubeplay/core/xds"
)

// NewServer is a gRPC server of s's discovery services, each connection
// carrying at most s's Limits().StreamsPerConnection streams at once.
func NewServer(s *xds.Server, opts ...grpc.ServerOption) *grpc.Server {
	g := grpc.NewServer(append([]grpc.ServerOption{grpc.ForceServerCodecV2(rawCodec{}),
		grpc.MaxConcurrentStreams(uint32(s.Limits().StreamsPerConnection))}, opts...)...)
	Register(g, s)
	return g
}

// Register adds s's discovery services to g, which must pass messages as
// bytes (NewServer's codec).
func Register(g *grpc.Server, s *xds.Server) {
	g.RegisterService(&grpc.ServiceDesc{
		ServiceName: "envoy.service.discovery.v3.AggregatedDiscoveryService",
		HandlerType: (*any)(nil),
		Streams: []grpc.StreamDesc{
			{StreamName: "StreamAggregatedResources", Handler: sotw(s, ""), ServerStreams: true, ClientStreams: true},
			{StreamName: "DeltaAggregatedResources", Handler: delta(s, ""), ServerStreams: true, ClientStreams: true},
		},
	}, struct{}{})
	for _, svc := range services {
		typeURL := "type.googleapis.com/" + svc.typeName
		g.RegisterService(&grpc.ServiceDesc{
			ServiceName: "envoy.service." + svc.pkg + ".v3." + svc.service,
			HandlerType: (*any)(nil),
			Methods:     []grpc.MethodDesc{{MethodName: "Fetch" + svc.noun, Handler: fetch(s, typeURL)}},
			Streams: []grpc.StreamDesc{
				{StreamName: "Stream" + svc.noun, Handler: sotw(s, typeURL), ServerStreams: true, ClientStreams: true},
				{StreamName: "Delta" + svc.noun, Handler: delta(s, typeURL), ServerStreams: true, ClientStreams: true},
			},
		}, struct{}{})
	}
}

// services are the per-type discovery services.
var services = []struct{ pkg, service, noun, typeName string }{
	{"listener", "ListenerDiscoveryService", "Listeners", "envoy.config.listener.v3.Listener"},
	{"route", "RouteDiscoveryService", "Routes", "envoy.config.route.v3.RouteConfiguration"},
	{"cluster", "ClusterDiscoveryService", "Clusters", "envoy.config.cluster.v3.Cluster"},
	{"endpoint", "EndpointDiscoveryService", "Endpoints", "envoy.config.endpoint.v3.ClusterLoadAssignment"},
	{"secret", "SecretDiscoveryService", "Secrets", "envoy.extensions.transport_sockets.tls.v3.Secret"},
}

func sotw(s *xds.Server, typeURL string) grpc.StreamHandler {
	return handler(xds.DecodeRequest, func(ctx context.Context, recv func() (*xds.Request, error), send func(*xds.Response) error) error {
		return s.StreamSotW(ctx, typeURL, recv, send)
	}, (*xds.Response).AppendWire)
}

func delta(s *xds.Server, typeURL string) grpc.StreamHandler {
	return handler(xds.DecodeDeltaRequest, func(ctx context.Context, recv func() (*xds.DeltaRequest, error), send func(*xds.DeltaResponse) error) error {
		return s.StreamDelta(ctx, typeURL, recv, send)
	}, (*xds.DeltaResponse).AppendWire)
}

// handler serves a bidirectional stream with serve: requests decoded from
// the bytes received, responses appended as bytes to send.
func handler[Req, Resp any](decode func([]byte) (Req, error), serve func(context.Context, func() (Req, error), func(Resp) error) error,
	appendWire func(Resp, []byte) []byte) grpc.StreamHandler {
	return func(_ any, ss grpc.ServerStream) error {
		return grpcError(serve(ss.Context(), func() (Req, error) {
			var b []byte
			if err := ss.RecvMsg(&b); err != nil {
				var zero Req
				return zero, err
			}
			return decode(b)
		}, func(r Resp) error { return ss.SendMsg(appendWire(r, nil)) }))
	}
}

func fetch(s *xds.Server, typeURL string) grpc.MethodHandler {
	return func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		var b []byte
		if err := dec(&b); err != nil {
			return nil, err
		}
		req, err := xds.DecodeRequest(b)
		if err != nil {
			return nil, grpcError(err)
		}
		if req.TypeURL == "" {
			req.TypeURL = typeURL
		}
		resp, err := s.Fetch(ctx, req)
		if errors.Is(err, xds.ErrNotModified) {
			return nil, status.Error(codes.Unavailable, err.Error()) // as go-control-plane's "skip fetch"
		}
		if err != nil {
			return nil, grpcError(err)
		}
		return resp.AppendWire(nil), nil
	}
}

// grpcError is a stream's end as a gRPC status.
func grpcError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	e := xds.AsError(err)
	return status.Error(codes.Code(e.Code), e.Message)
}

// rawCodec passes messages as the bytes core/xds reads and writes.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	b, ok := v.([]byte)
	if !ok {
		return nil, fmt.Errorf("xdsgrpc: cannot send %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	p, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("xdsgrpc: cannot receive into %T", v)
	}
	*p = data.Materialize()
	return nil
}
