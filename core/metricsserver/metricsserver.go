// Package metricsserver owns the simulated cluster's metrics-server: the
// aggregated API metrics.k8s.io/v1beta1 (NodeMetrics `nodes` and PodMetrics
// `pods`: get and list, label and field selectors, JSON, YAML and Tables as
// metrics-server v0.7 answers) that `kubectl top` and the
// HorizontalPodAutoscaler read. As a real cluster's, it is an API client
// (the service account kube-system:metrics-server) keeping informers of the
// Nodes, Pods and Services, and kube-apiserver's aggregator proxies to it
// while its APIService, v1beta1.metrics.k8s.io, exists: the simulated
// cluster registers it, so an API-only sandbox serves no metrics.
//
// No container runs, so what one uses is a model, the same for every
// request at the same time: a running container idles at a twentieth of its
// CPU request and holds half its memory request; the annotations
// kubeplay.dev/cpu-load and kubeplay.dev/memory-load (quantities) on a
// Service spread that much demand evenly over the running Pods it selects,
// as its clients' requests would be, and on a Pod add to that Pod alone;
// CPU is held to a container's limit. A node uses what its Pods use and its
// own daemons' share. Numbers are scraped every 15 s (the timestamp, a
// 15 s window), and a container has them once it has run a whole window.
package metricsserver

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/encoding"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/request"
	"kubeplay/core/selector"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// The group version metrics-server serves, and the name of its APIService.
const (
	Group       = "metrics.k8s.io"
	Version     = "v1beta1"
	APIService  = Version + "." + Group
	Account     = "metrics-server" // its service account, in kube-system
	resolution  = 15 * time.Second // --metric-resolution
	metricsKind = Group + "/" + Version
)

// Server is the simulated metrics-server.
type Server struct {
	clock    clock.Clock
	pods     *client.TypedInformer[*controllers.Pod]
	nodes    *client.TypedInformer[*controllers.Node]
	services *client.TypedInformer[*controllers.Service]
}

// New is a metrics-server reading the cluster through h.
func New(h web.Handler, clk clock.Clock) *Server {
	c := client.New(h, user.ServiceAccount("kube-system", Account), "metrics-server/v0.7.2 (kubeplay)")
	return &Server{clock: clk,
		pods:     client.NewTypedInformer(c, "/api/v1/pods", controllers.Codec[controllers.Pod](), client.TypedHandler[*controllers.Pod]{}, nil, clk),
		nodes:    client.NewTypedInformer(c, "/api/v1/nodes", controllers.Codec[controllers.Node](), client.TypedHandler[*controllers.Node]{}, nil, clk),
		services: client.NewTypedInformer(c, "/api/v1/services", controllers.Codec[controllers.Service](), client.TypedHandler[*controllers.Service]{}, nil, clk),
	}
}

// Run keeps the informers until ctx is done.
func (s *Server) Run(ctx context.Context) {
	go s.pods.Run(ctx)
	go s.nodes.Run(ctx)
	s.services.Run(ctx)
}

// Resources are what discovery shows of metrics.k8s.io/v1beta1, each
// answered by s.
func (s *Server) Resources() []*api.Resource {
	verbs := []string{"get", "list"}
	return []*api.Resource{
		{Group: Group, Version: Version, Kind: "NodeMetrics", Plural: "nodes", Verbs: verbs, Remote: s},
		{Group: Group, Version: Version, Kind: "PodMetrics", Plural: "pods", Namespaced: true, Verbs: verbs, Remote: s},
	}
}

// ServeHTTP answers a request the aggregator passed on, as metrics-server's
// generic API server does.
func (s *Server) ServeHTTP(w web.ResponseWriter, r *web.Request) {
	info := request.RequestInfoFrom(r.Context())
	if info == nil {
		info = request.ParseRequestInfo(r)
	}
	if (r.Method != web.MethodGet && r.Method != web.MethodHead) || info.Verb == "watch" || info.Subresource != "" {
		apierrors.Write(w, apierrors.NewMethodNotAllowed())
		return
	}
	q := r.URL.Query()
	labels, err := selector.ParseLabels(q.Get("labelSelector"))
	if err != nil {
		apierrors.Write(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	fields, err := selector.ParseFields(q.Get("fieldSelector"))
	if err != nil {
		apierrors.Write(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	for _, inf := range []interface{ Synced() <-chan struct{} }{s.pods, s.nodes, s.services} {
		select {
		case <-inf.Synced():
		case <-r.Context().Done():
			return
		}
	}
	now := s.clock.Now()
	scraped := now.Truncate(resolution)
	since := object.Timestamp(scraped.Add(-resolution))
	nodes := info.Resource == "nodes"
	var items []*metrics
	switch {
	case info.Name != "":
		item, st := s.one(info, scraped, since, now)
		if st != nil {
			apierrors.Write(w, st)
			return
		}
		items = []*metrics{item}
	case nodes:
		items = s.nodeMetrics(scraped, since, now, func(n *controllers.Node) bool {
			return labels.Matches(n.Metadata.Labels) && fields.Matches(metaFields(&n.Metadata))
		})
	default:
		items = s.podMetrics(info.Namespace, scraped, since, now, func(p *controllers.Pod) bool {
			return labels.Matches(p.Metadata.Labels) && fields.Matches(metaFields(&p.Metadata))
		})
	}
	kind := "PodMetrics"
	if nodes {
		kind = "NodeMetrics"
	}
	s.write(w, r, kind, info.Name != "", items, now)
}

// metaFields are the fields metrics-server selects on: the metadata's.
func metaFields(m *controllers.ObjectMeta) map[string]string {
	f := map[string]string{"metadata.name": m.Name}
	if m.Namespace != "" {
		f["metadata.namespace"] = m.Namespace
	}
	return f
}

// one is the metrics of the node or Pod info names, or metrics-server's 404.
func (s *Server) one(info *request.RequestInfo, scraped time.Time, since string, now time.Time) (*metrics, *apierrors.Status) {
	var items []*metrics
	if info.Resource == "nodes" {
		if _, ok := s.nodes.Get(info.Name); !ok {
			return nil, apierrors.NewNotFound("", "node", info.Name) // the node lister's words
		}
		items = s.nodeMetrics(scraped, since, now, func(n *controllers.Node) bool { return n.Metadata.Name == info.Name })
		if len(items) == 0 {
			return nil, apierrors.NewNotFound(Group, "nodes", info.Name)
		}
		return items[0], nil
	}
	if _, ok := s.pods.Get(info.Namespace + "/" + info.Name); !ok {
		return nil, apierrors.NewNotFound("", "pods", info.Name)
	}
	items = s.podMetrics(info.Namespace, scraped, since, now, func(p *controllers.Pod) bool { return p.Metadata.Name == info.Name })
	if len(items) == 0 {
		return nil, apierrors.NewNotFound(Group, "pods", info.Namespace+"/"+info.Name)
	}
	return items[0], nil
}

// podMetrics are the PodMetrics of the measured Pods in namespace ns ("":
// all) that match, by namespace and name.
func (s *Server) podMetrics(ns string, scraped time.Time, since string, now time.Time, match func(*controllers.Pod) bool) []*metrics {
	pods := s.pods.List()
	loads := podLoads(pods, s.services.List(), since)
	sort.Slice(pods, func(i, j int) bool { return pods[i].Metadata.Key() < pods[j].Metadata.Key() })
	var out []*metrics
	for _, p := range pods {
		l, ok := loads[p.Metadata.Key()]
		if !ok || (ns != "" && p.Metadata.Namespace != ns) || !match(p) {
			continue
		}
		names, use := containerUsage(p, l, since)
		m := newMetrics("PodMetrics", &p.Metadata, scraped, now)
		for i, name := range names {
			m.Containers = append(m.Containers, containerMetrics{Name: name, Usage: use[i].quantities()})
		}
		out = append(out, m)
	}
	return out
}

// nodeMetrics are the NodeMetrics of the nodes that match, by name.
func (s *Server) nodeMetrics(scraped time.Time, since string, now time.Time, match func(*controllers.Node) bool) []*metrics {
	pods := s.pods.List()
	loads := podLoads(pods, s.services.List(), since)
	perNode := map[string]usage{}
	for _, p := range pods {
		if l, ok := loads[p.Metadata.Key()]; ok {
			_, use := containerUsage(p, l, since)
			total := perNode[p.Spec.NodeName]
			for _, u := range use {
				total.add(u)
			}
			perNode[p.Spec.NodeName] = total
		}
	}
	nodes := s.nodes.List()
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Metadata.Name < nodes[j].Metadata.Name })
	var out []*metrics
	for _, n := range nodes {
		if !match(n) || n.Metadata.CreationTimestamp > object.Timestamp(scraped.Add(-resolution)) {
			continue
		}
		total := nodeOverhead(n.Metadata.Name)
		total.add(perNode[n.Metadata.Name])
		m := newMetrics("NodeMetrics", &n.Metadata, scraped, now)
		m.Usage = total.quantities()
		out = append(out, m)
	}
	return out
}

// metrics is a NodeMetrics (with usage) or a PodMetrics (with
// containers), its fields in metrics-server's order.
type metrics struct {
	Kind       string             `json:"kind,omitempty"`
	APIVersion string             `json:"apiVersion,omitempty"`
	Metadata   metricsMeta        `json:"metadata"`
	Timestamp  string             `json:"timestamp"`
	Window     string             `json:"window"`
	Usage      map[string]string  `json:"usage,omitempty"`
	Containers []containerMetrics `json:"containers,omitempty"`
}

// metricsMeta is the metadata metrics-server gives: the object's name,
// namespace and labels, made now.
type metricsMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace,omitempty"`
	CreationTimestamp string            `json:"creationTimestamp"`
	Labels            map[string]string `json:"labels,omitempty"`
}

// containerMetrics is a PodMetrics' container.
type containerMetrics struct {
	Name  string            `json:"name"`
	Usage map[string]string `json:"usage"`
}

// newMetrics is the metrics of kind of the object m describes.
func newMetrics(kind string, m *controllers.ObjectMeta, scraped, now time.Time) *metrics {
	return &metrics{Kind: kind, APIVersion: metricsKind, Timestamp: object.Timestamp(scraped), Window: resolution.String(),
		Metadata: metricsMeta{Name: m.Name, Namespace: m.Namespace, CreationTimestamp: object.Timestamp(now), Labels: m.Labels}}
}

// write answers with items: the one asked for, or a list, in the form
// negotiated (JSON, YAML or a Table).
func (s *Server) write(w web.ResponseWriter, r *web.Request, kind string, single bool, items []*metrics, now time.Time) {
	out, err := encoding.NegotiateOutput(r.Header.Get("Accept"), encoding.Endpoint{Conversions: true})
	if err != nil {
		apierrors.Write(w, apierrors.New(web.StatusNotAcceptable, "NotAcceptable", err.Error(), nil))
		return
	}
	var body []byte
	contentType := out.Media.ContentType()
	switch {
	case out.Convert != nil && out.Convert.Kind == "Table" && out.Convert.MetaV1():
		body, err = tableOf(kind, items, out.Convert.Version, r, now)
		contentType = "application/json"
	case out.Convert != nil && (out.Convert.Kind == "PartialObjectMetadataList") == single:
		// kube's words for a conversion of an object to a list or back
		is := "is not a list (*metrics." + kind + ")"
		if !single {
			is = "is a list (*metrics." + kind + "List)"
		}
		apierrors.Write(w, apierrors.New(web.StatusNotAcceptable, "NotAcceptable", "you requested "+out.Convert.Kind+", but the requested object "+is, nil))
		return
	case out.Convert != nil:
		body, err = partialMetadata(out.Convert, single, items)
		contentType = "application/json"
	case single:
		body, err = json.Marshal(items[0])
	default:
		list := struct {
			Kind       string     `json:"kind"`
			APIVersion string     `json:"apiVersion"`
			Metadata   struct{}   `json:"metadata"`
			Items      []*metrics `json:"items"`
		}{Kind: kind + "List", APIVersion: metricsKind, Items: []*metrics{}}
		for _, it := range items {
			it.Kind, it.APIVersion = "", "" // a list's items carry neither
			list.Items = append(list.Items, it)
		}
		body, err = json.Marshal(list)
	}
	if err == nil && out.Media == encoding.YAML && contentType != "application/json" {
		body, err = encoding.JSONToYAML(body)
	} else if err == nil {
		body = append(body, '\n') // as kube's JSON serializer ends a document
	}
	if err != nil {
		apierrors.Write(w, apierrors.NewInternal(err))
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(web.StatusOK)
	if r.Method != web.MethodHead {
		_, _ = w.Write(body)
	}
}

// tableOf is metrics-server's Table of items: the name, the summed usage of
// each resource (sorted by name) and the window; an empty list has neither
// columns nor rows.
func tableOf(kind string, items []*metrics, version string, r *web.Request, now time.Time) ([]byte, error) {
	include, err := table.ParseIncludeObject(r.URL.Query().Get("includeObject"))
	if err != nil {
		return nil, err
	}
	columns := []table.Column{{Name: "Name", Type: "string", Format: "name", Description: "Name of the resource"}}
	for _, name := range []string{"cpu", "memory"} {
		columns = append(columns, table.Column{Name: name, Type: "string", Format: "quantity"})
	}
	columns = append(columns, table.Column{Name: "Window", Type: "string", Format: "duration"})
	p := table.NewPrinter(columns, func(obj object.Object, _ time.Time) []any {
		var total usage
		if kind == "NodeMetrics" {
			total = parsed(object.Child(obj, "usage"))
		} else {
			for _, c := range object.Objects(obj, "containers") {
				total.add(parsed(object.Child(c, "usage")))
			}
		}
		q := total.quantities()
		return []any{object.MetaString(obj, "name"), q["cpu"], q["memory"], object.String(obj["window"])}
	})
	rows := make([]table.Item, len(items))
	for i, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			return nil, err
		}
		obj, err := object.Decode(b)
		if err != nil {
			return nil, err
		}
		rows[i] = table.Item{Object: obj, Kind: kind, APIVersion: metricsKind}
	}
	opts := table.Options{Version: version, Include: include, Now: now, NoHeaders: len(items) == 0}
	body, err := table.Build(nil, p, rows, opts)
	if err == nil && len(items) == 0 {
		body = []byte(strings.Replace(string(body), `"rows":[]`, `"rows":null`, 1))
	}
	return body, err
}

// partialMetadata is items as PartialObjectMetadata (single) or a
// PartialObjectMetadataList of meta.k8s.io version c.Version (its items
// null when there are none, as kube's).
func partialMetadata(c *encoding.Conversion, single bool, items []*metrics) ([]byte, error) {
	type partial struct {
		Kind       string      `json:"kind,omitempty"`
		APIVersion string      `json:"apiVersion,omitempty"`
		Metadata   metricsMeta `json:"metadata"`
	}
	apiVersion := "meta.k8s.io/" + c.Version
	if single {
		return json.Marshal(partial{Kind: "PartialObjectMetadata", APIVersion: apiVersion, Metadata: items[0].Metadata})
	}
	list := struct {
		Kind       string    `json:"kind"`
		APIVersion string    `json:"apiVersion"`
		Metadata   struct{}  `json:"metadata"`
		Items      []partial `json:"items"`
	}{Kind: "PartialObjectMetadataList", APIVersion: apiVersion}
	for _, it := range items {
		list.Items = append(list.Items, partial{Kind: "PartialObjectMetadata", APIVersion: apiVersion, Metadata: it.Metadata})
	}
	return json.Marshal(list)
}

// parsed reads back a usage that quantities wrote.
func parsed(q map[string]any) usage {
	return usage{cpu: int64(nanos(object.String(q["cpu"]))), memory: int64(bytes(object.String(q["memory"])))}
}
